"""Strict mode (OpenAI ``strict: true``, Anthropic ``strict: true``) in a lowering walk.

Owns: :func:`strict_node`, the rewrites strict mode needs at one node and the checks
that send the tool non-strict instead (:meth:`~plistspec.lowering.context.Ctx.block`,
reported as PS426) where a rewrite would change what the tool accepts beyond what the
documented rules allow:

* a union of objects beside object keywords: the keywords go into each member (exact);
* an object with properties and no ``additionalProperties``: closed (fewer keys);
* an optional property (OpenAI): required, with ``null`` allowed;
* a pattern with lookaround, backreferences or word boundaries, ``minItems`` over what
  Anthropic takes: moved into the description (the schema accepts more);
* never strict: an object without properties or with ``additionalProperties`` other than
  ``false`` (a free-form object would accept only ``{}``), ``patternProperties``, a node
  without a type, an enum past OpenAI's size rule or with values Anthropic cannot take.
"""

from __future__ import annotations

import re
from functools import partial
from itertools import filterfalse
from operator import is_
from typing import Any

from plistspec.core.jsontypes import only_strings
from plistspec.core.jsonutil import Ptr, brief, ptr, types_of
from plistspec.lowering.context import BOTH, LOSSLESS, NARROWS, WIDENS, Change, Ctx
from plistspec.lowering.merge import merge_all
from plistspec.lowering.nulls import is_null_schema

__all__ = [
    "strict_node",
    "close_object",
    "nullable",
    "COMPLEX_PATTERN",
    "enum_violations",
    "value_violations",
]

_new = tuple.__new__  # a NamedTuple made without its Python-level __new__ (hot path)

#: what strict modes document they cannot match: lookaround, backreferences, \b
COMPLEX_PATTERN = re.compile(r"\(\?[=!<]|\\[1-9]|\\[bB]")
_OBJECT_KEYS = ("type", "properties", "required", "additionalProperties")
_OBJECT_KEYS += ("minProperties", "maxProperties", "propertyNames")
_MISSING = object()
#: keywords that constrain objects only (an instance of another type ignores them)
_OBJECT_ONLY = frozenset(
    (
        "properties",
        "required",
        "additionalProperties",
        "minProperties",
        "maxProperties",
        "patternProperties",
        "propertyNames",
        "dependentRequired",
        "dependentSchemas",
    )
)
#: keywords a type list cannot make nullable: the schema goes into anyOf [S, null]
_WRAPPED = frozenset(("const", "$ref", "allOf", "not"))
_IS_NONE = partial(is_, None)  # (x is None, in C)


def strict_node(node: dict, p: Any, root: bool, ctx: Ctx, origin: Any) -> None:
    s = ctx.strict
    assert s is not None
    t = node.get("type")
    is_obj = t == "object" or (type(t) is list and "object" in t)
    if t is not None and not is_obj and not _OBJECT_ONLY.isdisjoint(node):
        _not_an_object(node, t, p, ctx, origin)
    if not root and "anyOf" in node and (is_obj or "properties" in node):
        _distribute(node, p, ctx, origin)
        t = node.get("type")
        is_obj = t == "object" or (type(t) is list and "object" in t)
    if t is None and type(node.get("properties")) is dict:
        node["type"] = t = "object"
        is_obj = True
        ctx.add(p, "PS421", NARROWS, 'typed "object" (it has properties) for strict mode', origin)
    if is_obj:
        close_object(node, p, ctx, origin)
    elif t is None and "anyOf" not in node and "$ref" not in node and s["typed_nodes"]:
        ctx.block(p, f"a schema without a type ({brief(node, 60)}) has no strict form")
    if len(node) <= 2 and ("description" in node or len(node) == 1):
        return  # {"type": T(, "description": D)}: nothing below applies
    e = node.get("enum")
    if type(e) is list:
        if s.get("enum_primitives") and any(type(x) in (dict, list) for x in e):
            ctx.block(p, "an enum holds an object or array value")
        big = s.get("large_enum")
        if big and len(e) > big["values"] and all(type(x) is str for x in e):
            if sum(len(x) for x in e) > big["chars"]:
                ctx.block(
                    p,
                    f"an enum of {len(e)} strings holds more than {big['chars']} characters "
                    f"(the limit past {big['values']} values)",
                )
    mi = node.get("minItems")
    if type(mi) is int and s["min_items_max"] is not None and mi > s["min_items_max"]:
        del node["minItems"]
        ctx.note(node, False, f"minItems: {mi}")
        ctx.add(p, "PS419", WIDENS, f"minItems {mi} moved into the description", origin)
    pat = node.get("pattern")
    if type(pat) is str and s["simple_patterns"] and COMPLEX_PATTERN.search(pat):
        del node["pattern"]
        ctx.note(node, False, f"pattern: {pat}")
        ctx.add(
            p,
            "PS419",
            WIDENS,
            "a pattern with lookaround, backreferences or word boundaries moved into the "
            "description (strict mode does not take it)",
            origin,
        )


def _not_an_object(node: dict, t: Any, p: Any, ctx: Ctx, origin: Any) -> None:
    """A schema typed other than object (``{"type": "string", "properties": {}}``, a type
    taken from a const or enum) holds object keywords: they constrain nothing (no value of
    its type is an object), but strict mode, or a strict checker such as openai-agents,
    would close or require the properties. Removed, losing nothing."""
    gone = sorted(_OBJECT_ONLY.intersection(node))
    for k in gone:
        del node[k]
    ctx.add(
        p,
        "PS429",
        LOSSLESS,
        f"removed {', '.join(gone)}: the schema is typed {brief(t)}, and object keywords "
        "constrain only objects",
        origin,
    )


def close_object(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    s = ctx.strict
    assert s is not None
    ap = node.get("additionalProperties", _MISSING)
    if ap is not _MISSING and ap is not False:
        ctx.block(p, f"a free-form object (additionalProperties: {brief(ap, 40)})")
    if "patternProperties" in node:
        ctx.block(p, "an object with patternProperties (keys of any name)")
    props = node.get("properties")
    if not props:
        if ap is not False:
            ctx.block(p, "an object without properties (any keys: strict mode would allow only {})")
        if type(props) is dict and s["all_required"] and node.get("required") != []:
            node["required"] = []
            ctx.add(
                p,
                "PS425",
                LOSSLESS,
                "added required: [] (strict mode lists every property in required; there are none)",
                origin,
            )
        return
    if type(props) is not dict:
        return
    if ap is _MISSING:
        node["additionalProperties"] = False
        ctx.add(
            p,
            "PS422",
            NARROWS,
            "closed the object (additionalProperties: false) for strict mode",
            origin,
        )
    if not s["all_required"]:
        return
    req = node.get("required")
    if type(req) is list and len(req) == len(props) and req == list(props):
        return  # every property required, in order: strict mode's form already
    if type(req) is not list:
        req_set: Any = ()
    elif only_strings(map(type, req)):
        req_set = set(req)
    else:
        req_set = {x for x in req if type(x) is str}
    optional = list(filterfalse(req_set.__contains__, props)) if req_set else list(props)
    if optional:
        props = node["properties"] = dict(props)
        at = Ptr(p, "properties")  # one parent pointer: its text is written once
        add = ctx.add
        # ctx.add's change, appended here where it has nothing to deduplicate (BOTH is
        # BOTH under not, oneOf and if, a warning): one call fewer per optional property
        changes = ctx.changes if not ctx.dedupe or origin is None else None
        for name in optional:
            sub = props[name]
            if (  # a node typed T, the commonest ({"type": T, "description": D}): [T, "null"]
                type(sub) is dict  # here, as _nullable makes it (no enum to add null to,
                and type(t := sub.get("type")) is str  # nothing to wrap in anyOf)
                and t != "null"
                and "enum" not in sub
                and _WRAPPED.isdisjoint(sub)
            ):
                sub = sub.copy()
                sub["type"] = [t, "null"]
                props[name] = sub
            else:
                props[name] = nullable(sub)
            text = (
                f"optional property {name!r} made required and nullable for strict mode "
                "(the model sends null for it)"
            )
            if changes is not None:
                changes.append(_new(Change, (Ptr(at, name), "PS425", "warning", text, BOTH)))
            else:
                add(Ptr(at, name), "PS425", BOTH, text, origin)
    else:
        ctx.add(
            ptr(p, "required"),
            "PS425",
            LOSSLESS,
            "required listed once each, in the order of properties (strict mode's form)",
            origin,
        )
    node["required"] = list(props)


def nullable(s: Any) -> Any:
    """``s`` as strict mode makes an optional property: required, with null allowed (a
    copy; ``s`` itself is not changed)."""
    if s is True or s == {}:
        return {} if s is True else s
    if type(s) is not dict:
        return s
    s = dict(s)
    t = s.get("type")
    if not s.keys().isdisjoint(_WRAPPED):
        keep = {k: s.pop(k) for k in ("description", "title") if k in s}
        return {**keep, "anyOf": [s, {"type": "null"}]}
    if type(t) is str:
        if t != "null":
            s["type"] = [t, "null"]
    elif type(t) is list:
        if "null" not in t:
            s["type"] = [*t, "null"]
    elif type(s.get("anyOf")) is list:
        if not any(is_null_schema(m) for m in s["anyOf"]):
            s["anyOf"] = [*s["anyOf"], {"type": "null"}]
    elif type(s.get("oneOf")) is list:
        s["oneOf"] = [*s["oneOf"], {"type": "null"}]
    e = s.get("enum")
    if type(e) is list and not any(map(_IS_NONE, e)):
        s["enum"] = [*e, None]
    return s


def _object_member(m: Any) -> bool:
    if type(m) is not dict or "anyOf" in m or "oneOf" in m or "allOf" in m or "$ref" in m:
        return False
    t = types_of(m)
    return (t is None and "type" not in m) or (t is not None and t == ["object"])


def _distribute(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    """``{type: object, properties: P, anyOf: [A, B]}`` → ``{anyOf: [P∧A, P∧B]}``: strict
    mode closes every object, so the keywords of the parent must be in each member."""
    members = node["anyOf"]
    t = types_of(node)
    if type(members) is not list or not members or (t is not None and t != ["object"]):
        ctx.block(p, "a union beside object keywords that do not go into its members")
        return
    if not all(_object_member(m) for m in members):
        ctx.block(p, "an object beside a union whose members are not all objects")
        return
    base = {k: node.pop(k) for k in _OBJECT_KEYS if k in node}
    base["type"] = "object"
    out = []
    for m in members:
        merged, losses = merge_all(base, [m])
        if losses:
            node.update(base)
            ctx.block(p, "a union of objects that cannot be merged with its parent: " + losses[0])
            return
        out.append(merged)
    node["anyOf"] = out
    ctx.add(
        p,
        "PS436",
        LOSSLESS,
        "the object's keywords written into each member of its anyOf (strict mode closes "
        "every object, so each member must list all its properties)",
        origin,
    )


def enum_violations(enum: list, p: Any, s: dict, out: list) -> None:
    """Append to ``out`` a ``(pointer, message)`` for each rule of strict mode ``s`` that
    ``enum`` (the enum at ``p``) breaks: values of primitive types only (Anthropic), at most
    ``large_enum["chars"]`` characters past ``large_enum["values"]`` strings (OpenAI). The
    in-walk check (:mod:`.check`) and the validator (:mod:`.validate`) both ask here."""
    if s.get("enum_primitives") and any(type(x) in (dict, list) for x in enum):
        out.append((ptr(p, "enum"), "strict mode takes enum values of primitive types only"))
    big = s.get("large_enum")
    if big and len(enum) > big["values"] and all(type(x) is str for x in enum):
        if sum(len(x) for x in enum) > big["chars"]:
            out.append(
                (
                    ptr(p, "enum"),
                    f"strict mode takes at most {big['chars']} characters in an enum of "
                    f"more than {big['values']} strings",
                )
            )


def value_violations(node: dict, p: Any, s: dict, out: list) -> None:
    """Append to ``out`` a ``(pointer, message)`` for each rule of strict mode ``s`` that
    the values of ``node`` (at ``p``) break: ``minItems`` past what it takes (Anthropic),
    a pattern with lookaround, backreferences or word boundaries. The in-walk check
    (:mod:`.check`) and the validator (:mod:`.validate`) both ask here."""
    mi = node.get("minItems")
    if s["min_items_max"] is not None and type(mi) is int and mi > s["min_items_max"]:
        out.append((ptr(p, "minItems"), f"strict mode takes minItems up to {s['min_items_max']}"))
    pat = node.get("pattern")
    if type(pat) is str and s["simple_patterns"] and COMPLEX_PATTERN.search(pat):
        out.append((ptr(p, "pattern"), "strict mode takes simple patterns only"))
