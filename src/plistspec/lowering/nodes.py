"""The per-node rewrites of a lowering walk (after ``$ref``/``allOf`` are settled).

Owns: ``oneOf`` → ``anyOf``, ``const``, ``enum``, ``type``
beside ``anyOf``, strict mode's closing and required-with-null, unsupported keywords
moved into the description, ``format``, array ``items`` and node ``type``. Nullability and
type lists are :mod:`plistspec.lowering.nulls`'s. Each function
edits one node in place and records a :class:`~plistspec.lowering.context.Change`.
"""

from __future__ import annotations

import re
from typing import Any

from plistspec.core.jsonutil import add_note, brief, jeq, ptr, types_of
from plistspec.lowering.context import Ctx
from plistspec.lowering.nulls import is_null_schema, nullability

__all__ = ["rewrite_node", "LOOKAROUND"]

# Keywords that are only metadata: removed without a note when the target has no place.
_META = frozenset(
    "$schema $id $anchor $comment $vocabulary $dynamicAnchor title propertyOrdering "
    "discriminator".split()
)
LOOKAROUND = re.compile(r"\(\?[=!<]|\\[1-9]")


def rewrite_node(node: dict, p: str, root: bool, ctx: Ctx) -> None:
    """Every per-node rewrite, in order."""
    _one_of(node, p, ctx)
    nullability(node, p, ctx)
    _const(node, p, ctx)
    _enum(node, p, ctx)
    _anyof_type(node, p, ctx)
    if ctx.strict is not None:
        _strict(node, p, ctx)
    _keywords(node, p, root, ctx)
    _format(node, p, root, ctx)
    _items(node, p, ctx)
    _node_type(node, p, root, ctx)


def _one_of(node: dict, p: str, ctx: Ctx) -> None:
    if "oneOf" not in node:
        return
    to_any = ctx.rules["oneOf"] == "anyOf" or (
        ctx.strict is not None and "oneOf" in ctx.strict["reject"]
    )
    members = node["oneOf"]
    if not to_any or not isinstance(members, list):
        return
    if "anyOf" in node:
        return  # left to the keyword step (moved into the description)
    node["anyOf"] = node.pop("oneOf")
    lossless = len(members) <= 1
    ctx.add(
        p,
        "PS417",
        "info" if lossless else "warning",
        "oneOf written as anyOf" + ("" if lossless else " (a value may now match several)"),
    )


def _const(node: dict, p: str, ctx: Ctx) -> None:
    if "const" not in node:
        return
    if ctx.rules["const"] != "enum" and ctx.allowed("const", False):
        return
    v = node.pop("const")
    if isinstance(node.get("enum"), list):
        both = [e for e in node["enum"] if jeq(e, v)]
        if not both:
            add_note(
                node, f"const {brief(v, 80)} and enum {brief(node['enum'], 120)}: no value fits"
            )
            node["enum"] = [v]
            ctx.add(
                p, "PS415", "warning", "const outside enum (no value was valid): kept the const"
            )
            return
        node["enum"] = both
    else:
        node["enum"] = [v]
    ctx.add(p, "PS415", "info", f"const {brief(v, 80)} written as a one-value enum")


def _enum(node: dict, p: str, ctx: Ctx) -> None:
    e = node.get("enum")
    kind = ctx.rules["enum"]
    if not isinstance(e, list) or kind == "any":
        return
    if any(x is None for x in e):
        _null_in_enum(node, e, p, ctx)
        e = node.get("enum")
        if not isinstance(e, list):
            return
    if kind == "strings":
        bad = [x for x in e if not isinstance(x, str)]
    else:
        bad = [x for x in e if isinstance(x, bool) or not isinstance(x, (str, int, float))]
    if not bad:
        if kind == "strings" and e and "type" not in node and "anyOf" not in node:
            node["type"] = "string"
        return
    del node["enum"]
    if node.get("type") == "boolean" and any(x is True for x in e) and any(x is False for x in e):
        ctx.add(p, "PS416", "info", "enum of both booleans dropped (type boolean says the same)")
        return
    add_note(node, "one of: " + ", ".join(brief(x, 80) for x in e))
    ctx.add(
        p,
        "PS416",
        "warning",
        f"{ctx.rules.name} accepts only {kind.replace('-', ' and ')} in enum: "
        f"the values {brief(e, 120)} moved into the description",
    )


def _anyof_type(node: dict, p: str, ctx: Ctx) -> None:
    if ctx.rules["anyof_with_type"] or "anyOf" not in node or "type" not in node:
        return
    outer = types_of(node) or []
    members = node["anyOf"]
    lossless = True
    if isinstance(members, list):
        for i, m in enumerate(members):
            if isinstance(m, dict):
                mt = types_of(m)
                if mt is None:
                    m = dict(m)
                    m["type"] = node["type"]
                    members[i] = m
                elif any(t not in outer and not (t == "integer" and "number" in outer) for t in mt):
                    lossless = False
    del node["type"]
    ctx.add(
        p,
        "PS414",
        "info" if lossless else "warning",
        "type moved into each anyOf member (the target refuses type beside anyOf)",
    )


def _strict(node: dict, p: str, ctx: Ctx) -> None:
    s = ctx.strict
    assert s is not None
    types = types_of(node)
    is_obj = (types is not None and "object" in types) or (types is None and "properties" in node)
    if s["closed_objects"] and types is None and isinstance(node.get("properties"), dict):
        node["type"] = "object"
        ctx.add(p, "PS421", "warning", 'typed "object" (it has properties) for strict mode')
    if s["closed_objects"] and is_obj and "additionalProperties" not in node:
        node["additionalProperties"] = False
        ctx.add(
            p, "PS422", "warning", "closed the object (additionalProperties: false) for strict mode"
        )
    props = node.get("properties")
    if s["all_required"] and isinstance(props, dict):
        req = node.get("required")
        req = [x for x in req if isinstance(x, str)] if isinstance(req, list) else []
        for name in props:
            if name not in req:
                props[name] = _nullable(props[name])
                ctx.add(
                    ptr(p, "properties", name),
                    "PS425",
                    "warning",
                    f"optional property {name!r} made required and nullable for strict mode "
                    "(the model sends null for it)",
                )
        if req != list(props) or "required" not in node:
            node["required"] = list(props)
    mi = node.get("minItems")
    if s["min_items_max"] is not None and isinstance(mi, int) and mi > s["min_items_max"]:
        del node["minItems"]
        ctx.note(node, False, f"minItems: {mi}")
        ctx.add(p, "PS419", "warning", f"minItems {mi} moved into the description")
    pat = node.get("pattern")
    if isinstance(pat, str) and s["simple_patterns"] and LOOKAROUND.search(pat):
        del node["pattern"]
        ctx.note(node, False, f"pattern: {pat}")
        ctx.add(
            p,
            "PS419",
            "warning",
            "a pattern with lookaround or backreferences moved into the description",
        )


def _nullable(s: Any) -> Any:
    if s is True or s == {}:
        return {} if s is True else s
    if not isinstance(s, dict):
        return s
    s = dict(s)
    t = s.get("type")
    if "const" in s or "$ref" in s or "allOf" in s or "not" in s:
        keep = {k: s.pop(k) for k in ("description", "title") if k in s}
        return {**keep, "anyOf": [s, {"type": "null"}]}
    if isinstance(t, str):
        if t != "null":
            s["type"] = [t, "null"]
    elif isinstance(t, list):
        if "null" not in t:
            s["type"] = [*t, "null"]
    elif isinstance(s.get("anyOf"), list):
        if not any(is_null_schema(m) for m in s["anyOf"]):
            s["anyOf"] = [*s["anyOf"], {"type": "null"}]
    elif isinstance(s.get("oneOf"), list):
        s["oneOf"] = [*s["oneOf"], {"type": "null"}]
    if isinstance(s.get("enum"), list) and not any(x is None for x in s["enum"]):
        s["enum"] = [*s["enum"], None]
    return s


def _keywords(node: dict, p: str, root: bool, ctx: Ctx) -> None:
    for key in list(node):
        if key not in node or ctx.allowed(key, root):
            continue
        v = node.pop(key)
        if key in ("$defs", "definitions"):
            if ctx.inline_all or ctx.rules.allowed("$ref", False):
                ctx.add(p, "PS412", "info", f"removed {key} (every $ref to it inlined)")
            else:
                ctx.add(p, "PS412", "warning", f"removed {key}: {ctx.rules.name} does not keep it")
        elif key == "description":
            if isinstance(v, str) and v:
                ctx.tool_notes.append(v)
            ctx.add(p, "PS419", "info", "the root description moved into the tool's description")
        elif key == "additionalProperties":
            if v is True or v == {}:
                ctx.add(p, "PS422", "info", "removed additionalProperties: true (the default)")
            else:
                text = "no other properties" if v is False else f"additionalProperties: {brief(v)}"
                ctx.note(node, root, text)
                ctx.add(
                    p,
                    "PS422",
                    "warning",
                    f"{ctx.rules.name} refuses additionalProperties: "
                    f"{brief(v, 60)}; said in the description instead",
                )
        elif key in ("prefixItems", "items") and isinstance(v, list):
            members: list = []
            for m in [*v, node.get("items", None)]:
                if m is not None and m is not True and not any(jeq(m, x) for x in members):
                    members.append(m)
            if members:
                node["items"] = members[0] if len(members) == 1 else {"anyOf": members}
            ctx.note(node, root, f"{len(v)} items in a fixed order")
            ctx.add(
                p,
                "PS430",
                "warning",
                "positional item schemas (prefixItems) became one items schema",
            )
        elif key in _META or key.startswith("x-"):
            ctx.add(
                p,
                "PS429",
                "info",
                f"removed {key} ({ctx.rules.name} does not take it; it "
                "does not constrain the value)",
            )
        elif key in ctx.rules.annotations:
            ctx.note(node, root, f"{key}: {brief(v, 10**9)}")
            ctx.add(p, "PS419", "info", f"{key} moved into the description")
        elif key in ctx.rules.json_schema_keywords:
            ctx.note(node, root, f"{key}: {brief(v, 10**9)}")
            ctx.add(
                p,
                "PS419",
                "warning",
                f"{ctx.rules.name} refuses {key}: moved into the "
                "description (the schema now accepts more)",
            )
        else:
            ctx.add(p, "PS429", "info", f"removed the unknown keyword {key}")


def _format(node: dict, p: str, root: bool, ctx: Ctx) -> None:
    f = node.get("format")
    if f is None:
        return
    fm = ctx.rules.formats
    if ctx.strict is not None:
        sf = ctx.rules.strict_formats
        fm = sf if fm is None else (fm & sf if sf is not None else fm)
    t = types_of(node)
    not_string = ctx.rules["type_required"] and (t is None or "string" not in t)
    if (fm is not None and f not in fm) or not_string:
        del node["format"]
        ctx.note(node, root, f"format: {brief(f, 80)}")
        ctx.add(p, "PS419", "info", f"format {brief(f, 60)} moved into the description")


def _items(node: dict, p: str, ctx: Ctx) -> None:
    t = types_of(node)
    if (
        ctx.rules["items_required"]
        and t is not None
        and "array" in t
        and "items" not in node
        and "prefixItems" not in node
    ):
        node["items"] = {}
        ctx.add(p, "PS420", "info", "added items: {} to an array schema without items")


def _node_type(node: dict, p: str, root: bool, ctx: Ctx) -> None:
    t = types_of(node)
    if ctx.rules["object_keywords_only_on_objects"] and t is not None and "object" not in t:
        for k in ("properties", "required"):
            if k in node:
                del node[k]
                ctx.add(p, "PS421", "info", f"removed {k} from a schema that is not an object")
    if not ctx.rules["type_required"] or "type" in node or "anyOf" in node:
        return
    if "properties" in node:
        node["type"] = "object"
        why = "object (it has properties)"
    elif "items" in node:
        node["type"] = "array"
        why = "array (it has items)"
    else:
        node["type"] = "string"
        ctx.note(node, root, "any JSON value, written as text")
        why = "string (it had none: any value)"
    ctx.add(p, "PS421", "warning", f"{ctx.rules.name} needs a type on every schema: typed {why}")


def _null_in_enum(node: dict, e: list, p: str, ctx: Ctx) -> None:
    """``null`` out of ``enum`` for a target whose enums cannot hold it, keeping its meaning."""
    types = types_of(node)
    reachable = types is None or "null" in types or node.get("nullable") is True
    rest = [x for x in e if x is not None]
    if not reachable:
        if rest:
            node["enum"] = rest
            ctx.add(p, "PS416", "info", "removed null from enum (the type already excludes it)")
        else:
            del node["enum"]
            add_note(node, "enum [null] beside a type without null: no value is valid")
            ctx.add(
                p,
                "PS416",
                "warning",
                "enum [null] under a non-null type accepts nothing: said in the description",
            )
        return
    if ctx.rules["type_list"] == "nullable":
        if rest:
            node["enum"] = rest
        else:
            del node["enum"]
            node["type"] = "null"
            ctx.add(p, "PS416", "info", "enum [null]: only null fits, the other keywords are moot")
        node["nullable"] = True
        ctx.add(p, "PS416", "info", "null in enum written as nullable: true")
        return
    keep = {k: node.pop(k) for k in ("description", "title") if k in node}
    inner = dict(node)
    node.clear()
    node.update(keep)
    if not rest:
        node["type"] = "null"
        ctx.add(p, "PS416", "info", "enum [null]: only null fits, the other keywords are moot")
        return
    else:
        inner["enum"] = rest
        if types is not None:
            nonnull = [t for t in types if t != "null"]
            if nonnull:
                inner["type"] = nonnull[0] if len(nonnull) == 1 else nonnull
            else:
                inner.pop("type", None)
        node["anyOf"] = [inner, {"type": "null"}]
    ctx.add(p, "PS416", "info", "null in enum written as anyOf [enum, null]")
