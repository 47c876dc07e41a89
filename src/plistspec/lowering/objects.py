"""Object schemas in a lowering walk: ``required`` against ``properties``.

Owns: :func:`object_rules` (a draft-3 boolean ``required`` on a property, which an Elisp
``:required t`` inside an arg sends, moved into the parent's ``required``, lossless; a
name in ``required`` that ``properties`` lacks, which Gemini refuses and strict mode
cannot satisfy, added as a property taking any value, lossless; for
``gemini-jsonschema``, a required property holding a recursive ``$ref`` made optional,
since Gemini unrolls recursion only through optional properties),
:func:`object_keywords_into_members` (Gemini takes ``properties``/``required`` only on a
node typed ``object``: beside an ``anyOf`` they go into its object members) and
:func:`free_form_object` (Gemini's ``parameters`` cannot say "any properties": an object
without properties arrives empty, which is reported).
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsonutil import brief, ptr, resolve_pointer, types_of
from plistspec.lowering.context import LOSSLESS, NARROWS, WIDENS, Ctx
from plistspec.lowering.inline import graph
from plistspec.lowering.merge import merge_all

__all__ = ["object_rules", "free_form_object", "object_keywords_into_members", "OBJECT_KEYWORDS"]

#: the keywords that constrain objects only, and that Gemini takes only on a node typed
#: ``object`` ("required only allowed on OBJECT")
OBJECT_KEYWORDS = (
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "additionalProperties",
    "propertyOrdering",
)


def object_rules(node: dict, p: Any, root: bool, home: Any, ctx: Ctx, origin: Any) -> None:
    props = node.get("properties")
    req = node.get("required")
    t = node.get("type")
    if type(props) is dict:
        moved = None
        for name, sub in props.items():
            if type(sub) is dict and "required" in sub:
                flag = sub["required"]
                if flag is True or flag is False:
                    if moved is None:
                        moved = []
                    moved.append(name)
        if moved:
            props = node["properties"] = dict(props)
            req = list(req) if type(req) is list else []
            listed = set(req)
            for name in moved:
                sub = dict(props[name])
                flag = sub.pop("required")
                props[name] = sub
                if flag is True and name not in listed:
                    req.append(name)
                    listed.add(name)
                ctx.add(
                    ptr(p, "properties", name),
                    "PS433",
                    LOSSLESS,
                    f"the draft-3 required: {'true' if flag else 'false'} of property {name!r} "
                    + ("moved into the parent's required" if flag else "removed (the default)"),
                    origin,
                )
            if req or "required" in node:
                node["required"] = req
    if type(req) is not list or not req:
        return
    is_object = t is None or t == "object" or (type(t) is list and "object" in t)
    if not is_object:
        return
    if ctx.rules.required_in_properties or ctx.strict is not None:
        have = props if type(props) is dict else {}
        missing = None
        if not all(map(have.__contains__, req)):  # (one lookup each, in C)
            for n in req:
                if n not in have and type(n) is str:
                    missing = [n for n in req if type(n) is str and n not in have]
                    break
        if missing:
            props = node["properties"] = dict(have)
            for n in dict.fromkeys(missing):
                props[n] = {}
                ctx.add(
                    ptr(p, "properties", n),
                    "PS432",
                    LOSSLESS,
                    f"required names {n!r}, which properties lacks: added as a property "
                    "taking any value",
                    origin,
                )
    if ctx.rules.recursive_required == "optional" and type(props) is dict:
        _recursive_required(node, props, req, p, home, ctx, origin)


_NO_REFS = frozenset(("$ref", "anyOf", "oneOf"))


def _refs_of(s: Any) -> list[str]:
    if type(s) is not dict:
        return []
    out = []
    if type(s.get("$ref")) is str:
        out.append(s["$ref"])
    for key in ("anyOf", "oneOf"):
        for m in s.get(key) or ():
            if type(m) is dict and type(m.get("$ref")) is str:
                out.append(m["$ref"])
    return out


def _recursive_required(
    node: dict, props: dict, req: list, p: Any, home: Any, ctx: Ctx, origin: Any
) -> None:
    drop = []
    for name in req:
        sub = props.get(name)
        if type(sub) is not dict or _NO_REFS.isdisjoint(sub):
            continue  # no $ref here, nor in a union's members (most properties)
        for ref in _refs_of(sub):
            found, target = resolve_pointer(ctx.original, ref)
            if found and graph(ctx).recursive(home, target):
                drop.append(name)
                break
    if not drop:
        return
    node["required"] = [n for n in req if n not in drop]
    for name in drop:
        ctx.add(
            ptr(p, "properties", name),
            "PS438",
            WIDENS,
            f"property {name!r} holds a recursive $ref: made optional ({ctx.rules.name} "
            "unrolls recursion only through optional properties)",
            origin,
        )


def object_keywords_into_members(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    """``{anyOf: [A, B], properties: P, required: R}`` (no ``type``, or one that is not
    ``object``: Gemini moved it into the members) → ``{anyOf: [A∧P∧R, B]}``: the object
    keywords constrain only the members that are objects, so they are written into
    each member typed ``object`` and left out of the others (exact). A member whose type
    is not known here (a ``$ref``, a union, no type) could be an object: the keywords
    are then said in the description instead (the schema accepts more)."""
    keys = [k for k in OBJECT_KEYWORDS if k in node]
    base = {k: node.pop(k) for k in keys}
    members = node["anyOf"]
    t = types_of(node)
    if t is not None and "object" not in t:
        members = None  # the node's own type excludes objects: the keywords say nothing
    elif type(members) is list:
        original = members
        members = list(members)
        for i, m in enumerate(members):
            mt = types_of(m) if type(m) is dict else None
            if mt is not None and "object" not in mt:
                continue  # no object matches the member: nothing to add
            if mt != ["object"] or not _OBJECT_MEMBER.isdisjoint(m):
                members = None
                break
            merged, losses = merge_all(base, [m])
            if losses:
                members = None
                break
            merged["type"] = "object"
            members[i] = merged
    else:
        members = None
    if members is not None:
        into = any(m is not o for m, o in zip(members, original, strict=True))
        node["anyOf"] = members
        how = "written into each object member of anyOf" if into else "removed (no value it"
        how += "" if into else " takes is an object)"
        ctx.add(
            p,
            "PS436",
            LOSSLESS,
            f"{', '.join(keys)} {how} ({ctx.rules.name} takes object keywords only on a "
            "schema typed object)",
            origin,
        )
        return
    if t is not None and "object" not in t:
        ctx.add(
            p,
            "PS436",
            LOSSLESS,
            f"{', '.join(keys)} removed (the schema is typed {brief(node['type'])}: they "
            "constrain only objects)",
            origin,
        )
        return
    ctx.note(node, False, "if an object: " + ", ".join(f"{k}: {brief(base[k], 200)}" for k in keys))
    ctx.add(
        p,
        "PS421",
        WIDENS,
        f"{', '.join(keys)} beside anyOf moved into the description ({ctx.rules.name} takes "
        "object keywords only on a schema typed object)",
        origin,
    )


_OBJECT_MEMBER = frozenset(("$ref", "anyOf", "oneOf", "allOf", "not"))


def free_form_object(node: dict, p: Any, ctx: Ctx, origin: Any) -> None:
    """An object schema without properties (any keys) for a target that cannot say so."""
    t = node.get("type")
    if t != "object" or node.get("properties"):
        return
    ctx.add(
        p,
        "PS435",
        NARROWS,
        f"{ctx.rules.name} cannot say 'an object with any properties': sent as an object "
        "without properties, it arrives empty ({}); lower for gemini-jsonschema to keep it",
        origin,
    )
