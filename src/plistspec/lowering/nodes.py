"""The per-node rewrites of a lowering walk (after ``$ref``/``allOf`` are settled).

Owns: :func:`rewrite_node`, which runs, in order: ``oneOf`` → ``anyOf``, nullability
(:mod:`plistspec.lowering.nulls`), ``const``, ``enum`` (and the ``type`` its values
imply, where the target needs one), ``type`` beside ``anyOf``, the object rules
(:mod:`plistspec.lowering.objects`), strict mode (:mod:`plistspec.lowering.strict`),
unsupported keywords moved into the description or removed, ``format``, array
``items`` and node ``type``. Each function edits one node in place (never a node of the
input: the walk hands it a copy) and records a
:class:`~plistspec.lowering.context.Change` with its effect.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsonutil import add_note, brief, jeq, types_of
from plistspec.lowering.context import (
    LOSSLESS,
    NARROWS,
    WIDENS,
    Ctx,
    moved_text,
    refused_ap_text,
    removed_meta_text,
)
from plistspec.lowering.nulls import nullability
from plistspec.lowering.objects import (
    OBJECT_KEYWORDS,
    free_form_object,
    object_keywords_into_members,
    object_rules,
)
from plistspec.lowering.strict import strict_node

__all__ = ["rewrite_node", "value_type"]

# Keywords that are only metadata: removed without a note when the target has no place.
_META = frozenset(
    "$schema $id $anchor $comment $vocabulary $dynamicAnchor title propertyOrdering "
    "discriminator".split()
)
_DEFS = ("$defs", "definitions")
_KEEP_FALSE = frozenset(("additionalProperties",))
_OBJECT_KEYS = frozenset(OBJECT_KEYWORDS)


def rewrite_node(node: dict, p: Any, root: bool, home: Any, ctx: Ctx, origin: Any) -> None:
    """Every per-node rewrite, in order (each behind a cheap test of the node's keys)."""
    r = ctx.rules
    if "oneOf" in node:
        _one_of(node, p, ctx, origin)
    if "nullable" in node or (
        r.type_list == "nullable" and ("anyOf" in node or type(node.get("type")) is list)
    ):
        nullability(node, p, ctx, origin)
    if "const" in node:
        _const(node, p, ctx, origin)
        if "const" in node and "type" not in node and "anyOf" not in node:
            _const_type(node, p, ctx, origin)
    if "enum" in node:
        _enum(node, p, ctx, origin)
    if not r.anyof_with_type and "anyOf" in node and "type" in node:
        _anyof_type(node, p, ctx, origin)
    if (
        r.object_keywords_only
        and "anyOf" in node
        and node.get("type") != "object"
        and not _OBJECT_KEYS.isdisjoint(node)
    ):
        object_keywords_into_members(node, p, ctx, origin)
    if "properties" in node or "required" in node:
        object_rules(node, p, root, home, ctx, origin)
    if ctx.strict is not None:
        strict_node(node, p, root, ctx, origin)
    if ctx.inline_all and ("$defs" in node or "definitions" in node):
        for key in _DEFS:
            if key in node:
                del node[key]
                ctx.add(p, "PS412", LOSSLESS, f"removed {key} (every $ref to it inlined)", origin)
    allowed = ctx.allowed_root if root else ctx.allowed_node
    if r.additional == "false-only" and "additionalProperties" in node:
        _false_only(node, p, root, ctx, origin)
        if node.get("additionalProperties") is False and allowed is not None:
            allowed = allowed | _KEEP_FALSE
    if allowed is not None and not node.keys() <= allowed:
        _keywords(node, p, root, ctx, origin, allowed)
    if "format" in node:
        _format(node, p, root, ctx, origin)
    t = node.get("type")
    if r.items_required and (t == "array" or type(t) is list):
        if "items" not in node and "prefixItems" not in node:
            _items(node, p, ctx, origin)
    if (r.type_required and t is None and "anyOf" not in node) or (
        r.object_keywords_only
        and t != "object"  # (an object keeps its object keywords)
        and not _OBJECT_KEYS.isdisjoint(node)
    ):
        _node_type(node, p, root, ctx, origin)
    if r.free_form_objects == "error" and not root and node.get("type") == "object":
        free_form_object(node, p, ctx, origin)


def value_type(values: list) -> str | None:
    """The one JSON type all ``values`` have (``integer`` for whole numbers, ``number``
    when there is a fraction), or None."""
    seen = set()
    for v in values:
        if v is None:
            seen.add("null")
        elif v is True or v is False:
            seen.add("boolean")
        elif type(v) is str:
            seen.add("string")
        elif type(v) is int:
            seen.add("integer")
        elif type(v) is float:
            seen.add("integer" if v.is_integer() else "number")
        elif type(v) is dict:
            seen.add("object")
        elif type(v) is list:
            seen.add("array")
        else:
            return None
    if seen == {"integer", "number"}:
        return "number"
    return next(iter(seen)) if len(seen) == 1 else None


def _one_of(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    to_any = ctx.rules.one_of == "anyOf" or (
        ctx.strict is not None and "oneOf" not in ctx.strict["keywords_set"]
    )
    members = node["oneOf"]
    if not to_any or type(members) is not list:
        return
    if "anyOf" in node:
        return  # left to the keyword step (moved into the description)
    node["anyOf"] = node.pop("oneOf")
    lossless = len(members) <= 1
    ctx.add(
        p,
        "PS417",
        LOSSLESS if lossless else WIDENS,
        "oneOf written as anyOf" + ("" if lossless else " (a value may now match several)"),
        origin,
    )


def _const(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    if ctx.rules.const_mode != "enum" and ctx.allowed("const", False):
        return
    v = node.pop("const")
    if type(node.get("enum")) is list:
        both = [e for e in node["enum"] if jeq(e, v)]
        if not both:
            add_note(
                node, f"const {brief(v, 80)} and enum {brief(node['enum'], 120)}: no value fits"
            )
            node["enum"] = [v]
            ctx.add(
                p,
                "PS415",
                WIDENS,
                "const outside enum (no value was valid): kept the const",
                origin,
            )
            return
        node["enum"] = both
    else:
        node["enum"] = [v]
    ctx.add(p, "PS415", LOSSLESS, f"const {brief(v, 80)} written as a one-value enum", origin)


def _const_type(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    """A kept ``const`` without ``type``, for a target that needs a type on every node."""
    if ctx.rules.type_required or (ctx.strict is not None and ctx.strict["typed_nodes"]):
        t = value_type([node["const"]])
        if t is not None:
            node["type"] = t
            ctx.add(p, "PS437", LOSSLESS, f'typed "{t}", the type of the const value', origin)


def _enum(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    e = node["enum"]
    kind = ctx.rules.enum_kind
    if type(e) is not list:
        return
    if kind != "any":
        if any(x is None for x in e):
            _null_in_enum(node, e, p, ctx, origin)
            e = node.get("enum")
            if type(e) is not list:
                return
        if kind == "strings":
            bad = [x for x in e if type(x) is not str]
        else:
            bad = [x for x in e if type(x) not in (str, int, float)]
        if bad:
            del node["enum"]
            if node.get("type") == "boolean" and True in e and False in e:
                ctx.add(
                    p,
                    "PS416",
                    LOSSLESS,
                    "enum of both booleans dropped (type boolean says the same)",
                    origin,
                )
                return
            add_note(node, "one of: " + ", ".join(brief(x, 80) for x in e))
            ctx.add(
                p,
                "PS416",
                WIDENS,
                f"{ctx.rules.name} accepts only {kind.replace('-', ' and ')} in enum: "
                f"the values {brief(e, 120)} moved into the description",
                origin,
            )
            return
    if e and "type" not in node and "anyOf" not in node and "$ref" not in node:
        if ctx.rules.type_required or (ctx.strict is not None and ctx.strict["typed_nodes"]):
            t = value_type(e)
            if t is not None:
                node["type"] = t
                ctx.add(p, "PS437", LOSSLESS, f'typed "{t}", the type of every enum value', origin)


def _anyof_type(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    outer = types_of(node) or []
    members = node["anyOf"]
    lossless = True
    if type(members) is list:
        members = node["anyOf"] = list(members)
        for i, m in enumerate(members):
            if type(m) is dict:
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
        LOSSLESS if lossless else WIDENS,
        "type moved into each anyOf member (the target refuses type beside anyOf)",
        origin,
    )


def _keywords(node: dict, p: Any, root: bool, ctx: Ctx, origin: Any, allowed: frozenset) -> None:
    r = ctx.rules
    for key in [k for k in node if k not in allowed]:
        if key not in node:
            continue
        v = node.pop(key)
        if key in _DEFS:
            if ctx.inline_all or r.allowed("$ref", False):
                ctx.add(p, "PS412", LOSSLESS, f"removed {key} (every $ref to it inlined)", origin)
            else:
                ctx.add(p, "PS412", WIDENS, f"removed {key}: {r.name} does not keep it", origin)
        elif key == "description":
            if type(v) is str and v:
                ctx.tool_notes.append(v)
            ctx.add(
                p,
                "PS419",
                LOSSLESS,
                "the root description moved into the tool's description",
                origin,
            )
        elif key == "additionalProperties":
            if root and r.no_args == "omit" and not node.get("properties"):
                ctx.add(
                    p,
                    "PS422",
                    LOSSLESS,
                    f"removed additionalProperties: {brief(v, 40)} (the tool takes no "
                    "arguments: it is sent without parameters)",
                    origin,
                )
            elif v is True or v == {}:
                ctx.add(
                    p, "PS422", LOSSLESS, "removed additionalProperties: true (the default)", origin
                )
            else:
                text = "no other properties" if v is False else f"additionalProperties: {brief(v)}"
                ctx.note(node, root, text)
                ctx.add(p, "PS422", WIDENS, refused_ap_text(r.name, v), origin)
        elif key == "prefixItems" and type(v) is list:
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
                WIDENS,
                "positional item schemas (prefixItems) became one items schema",
                origin,
            )
        elif key in _META or key.startswith("x-"):
            ctx.add(p, "PS429", LOSSLESS, removed_meta_text(r.name, key), origin)
        elif key in r.annotations:
            ctx.note(node, root, f"{key}: {brief(v, 10**9)}")
            ctx.add(p, "PS419", LOSSLESS, moved_text(key), origin)
        elif key in r.json_schema_keywords:
            ctx.note(node, root, f"{key}: {brief(v, 10**9)}")
            ctx.add(
                p,
                "PS419",
                WIDENS,
                f"{r.name}{' strict mode' if ctx.strict is not None else ''} refuses {key}: "
                "moved into the description (the schema now accepts more)",
                origin,
            )
        else:
            ctx.add(
                p,
                "PS429",
                LOSSLESS,
                f"removed the unknown keyword {key} (not JSON Schema: it constrains nothing)",
                origin,
            )


def _false_only(node: dict, p: Any, root: bool, ctx: Ctx, origin: Any) -> None:
    """Keep ``additionalProperties: false`` (the target drops it, the meaning is kept by
    the model seeing the properties); say any other value in the description."""
    v = node["additionalProperties"]
    if v is False:
        return
    del node["additionalProperties"]
    if v is True or v == {}:
        ctx.add(p, "PS422", LOSSLESS, "removed additionalProperties: true (the default)", origin)
        return
    ctx.note(node, root, f"additionalProperties: {brief(v)}")
    ctx.add(
        p,
        "PS422",
        WIDENS,
        f"{ctx.rules.name} drops additionalProperties: {brief(v, 60)}; said in the description",
        origin,
    )


def _format(node: dict, p: Any, root: bool, ctx: Ctx, origin: Any) -> None:
    f = node["format"]
    fm = ctx.rules.formats
    if ctx.strict is not None:
        sf = ctx.rules.strict_formats
        fm = sf if fm is None else (fm & sf if sf is not None else fm)
    t = types_of(node)
    not_string = ctx.rules.type_required and (t is None or "string" not in t)
    if (fm is not None and f not in fm) or not_string:
        del node["format"]
        ctx.note(node, root, f"format: {brief(f, 80)}")
        ctx.add(
            p,
            "PS419",
            WIDENS,
            f"format {brief(f, 60)} moved into the description (a validator that checks "
            "formats now accepts more)",
            origin,
        )


def _items(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    t = node.get("type")
    if t == "array" or (type(t) is list and "array" in t):
        node["items"] = {}
        ctx.add(p, "PS420", LOSSLESS, "added items: {} to an array schema without items", origin)


def _node_type(node: dict, p: Any, root: bool, ctx: Ctx, origin: Any) -> None:
    r = ctx.rules
    t = types_of(node)
    if r.object_keywords_only and t is not None and "object" not in t:
        for k in OBJECT_KEYWORDS:
            if k in node:
                del node[k]
                ctx.add(
                    p, "PS421", LOSSLESS, f"removed {k} from a schema that is not an object", origin
                )
    if not r.type_required or "type" in node or "anyOf" in node:
        return
    if not _OBJECT_KEYS.isdisjoint(node):
        node["type"] = "object"
        why = (
            "object (it has object keywords)"
            if "properties" not in node
            else "object (it has properties)"
        )
    elif "items" in node:
        node["type"] = "array"
        why = "array (it has items)"
    else:
        node["type"] = "string"
        ctx.note(node, root, "any JSON value, written as text")
        why = "string (it had none: any value)"
    ctx.add(p, "PS421", NARROWS, f"{r.name} needs a type on every schema: typed {why}", origin)


def _null_in_enum(node: dict, e: list, p: Any, ctx: Ctx, origin: Any) -> None:
    """``null`` out of ``enum`` for a target whose enums cannot hold it, keeping its meaning."""
    types = types_of(node)
    reachable = types is None or "null" in types or node.get("nullable") is True
    rest = [x for x in e if x is not None]
    if not reachable:
        if rest:
            node["enum"] = rest
            ctx.add(
                p,
                "PS416",
                LOSSLESS,
                "removed null from enum (the type already excludes it)",
                origin,
            )
        else:
            del node["enum"]
            add_note(node, "enum [null] beside a type without null: no value is valid")
            ctx.add(
                p,
                "PS416",
                WIDENS,
                "enum [null] under a non-null type accepts nothing: said in the description",
                origin,
            )
        return
    if ctx.rules.type_list == "nullable":
        if rest:
            node["enum"] = rest
        else:
            del node["enum"]
            node["type"] = "null"
            ctx.add(
                p,
                "PS416",
                LOSSLESS,
                "enum [null]: only null fits, the other keywords are moot",
                origin,
            )
        node["nullable"] = True
        ctx.add(p, "PS416", LOSSLESS, "null in enum written as nullable: true", origin)
        return
    keep = {k: node.pop(k) for k in ("description", "title") if k in node}
    inner = dict(node)
    node.clear()
    node.update(keep)
    if not rest:
        node["type"] = "null"
        ctx.add(
            p, "PS416", LOSSLESS, "enum [null]: only null fits, the other keywords are moot", origin
        )
        return
    inner["enum"] = rest
    if types is not None:
        nonnull = [t for t in types if t != "null"]
        if nonnull:
            inner["type"] = nonnull[0] if len(nonnull) == 1 else nonnull
        else:
            inner.pop("type", None)
    node["anyOf"] = [inner, {"type": "null"}]
    ctx.add(p, "PS416", LOSSLESS, "null in enum written as anyOf [enum, null]", origin)
