"""Nullability and type lists in a lowering walk: one node's ``null`` made what the target says.

Owns: :func:`nullability` (``anyOf`` with a null member → ``nullable: true`` and a type
list → one type plus ``nullable`` or an ``anyOf`` of one type each, where the target
writes OpenAPI's ``nullable``; ``nullable`` → a type union with null where it does not),
and what counts as a null schema (:func:`is_null_schema`, :func:`null_member`).
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsontypes import is_json_type
from plistspec.core.jsonutil import brief, resolve_pointer, types_of
from plistspec.lowering.context import LOSSLESS, WIDENS, Ctx

__all__ = ["nullability", "null_union", "null_member", "is_null_schema"]

_TYPE_KEYS = {
    "object": (
        "properties required additionalProperties minProperties maxProperties "
        "patternProperties propertyNames propertyOrdering dependentRequired dependentSchemas"
    ).split(),
    "array": "items prefixItems minItems maxItems uniqueItems contains minContains maxContains".split(),
    "string": "minLength maxLength pattern format".split(),
    "number": "minimum maximum exclusiveMinimum exclusiveMaximum multipleOf".split(),
}
_TYPE_KEYS["integer"] = _TYPE_KEYS["number"]


def nullability(node: dict, p: Any, ctx: Ctx, origin: Any = None) -> None:
    """``node``'s null union, type list or ``nullable`` as the target writes them (in place)."""
    gem = ctx.rules.type_list == "nullable"
    if not gem:
        if "nullable" in node:
            v = node.pop("nullable")
            t = node.get("type")
            if v is True and isinstance(t, str) and t != "null":
                node["type"] = [t, "null"]
            elif v is True and isinstance(t, list) and "null" not in t:
                node["type"] = [*t, "null"]
            else:
                ctx.add(
                    p, "PS414", LOSSLESS, f"removed nullable: {brief(v)} (not JSON Schema)", origin
                )
                return
            ctx.add(
                p,
                "PS414",
                WIDENS,
                "OpenAPI nullable written as a type union with null (JSON Schema ignores "
                "nullable, so the schema now accepts null where it did not)",
                origin,
            )
        return
    if node.get("nullable") is True and "null" not in (types_of(node) or ("null",)):
        ctx.add(
            p,
            "PS414",
            WIDENS,
            f"OpenAPI nullable: true kept: {ctx.rules.name} reads it and accepts null, "
            "which JSON Schema (that ignores nullable) did not",
            origin,
        )
    null_union(node, p, ctx, origin)
    t = node.get("type")
    if isinstance(t, list):
        nonnull = list(dict.fromkeys(x for x in t if x != "null"))
        has_null = len(nonnull) < len(t)
        if len(nonnull) <= 1 or "anyOf" not in node:
            if len(nonnull) <= 1:
                node["type"] = nonnull[0] if nonnull else "null"
            else:
                _split_types(node, nonnull)
            if has_null and nonnull:
                node["nullable"] = True
            ctx.add(
                p,
                "PS414",
                LOSSLESS,
                f"the type list {brief(t)} written with nullable/anyOf",
                origin,
            )


def null_union(node: dict, p: Any, ctx: Ctx, origin: Any = None) -> None:
    """Where the target writes OpenAPI's ``nullable``: ``anyOf`` with a null member →
    ``nullable: true`` beside the other members (written into the node when one is
    left). The walk calls it again on a node once its members are lowered
    (:func:`plistspec.lowering.schema.lower_schema`): a member that only becomes null
    when lowered (``allOf: [{type: null}]``, a ``not`` moved into the description) is
    settled in the same lowering, so lowering twice changes nothing."""
    members = node.get("anyOf")
    if not isinstance(members, list):
        return
    nulls = [null_member(m, ctx) for m in members]
    if True in nulls:
        rest = [m for m, null in zip(members, nulls, strict=True) if not null]
        node["nullable"] = True
        if not rest:
            del node["anyOf"]
            node.setdefault("type", "null")
        elif (
            len(rest) == 1
            and isinstance(rest[0], dict)
            and not (set(rest[0]) & set(node) - {"anyOf"})
            and not (set(rest[0]) & {"$ref", "allOf", "anyOf", "oneOf"})
        ):
            del node["anyOf"]
            saved = dict(node)
            node.clear()
            node.update(rest[0])
            node.update(saved)
        else:
            node["anyOf"] = rest
        ctx.add(p, "PS414", LOSSLESS, "anyOf with null written as nullable: true", origin)


def null_member(m: Any, ctx: Ctx) -> bool:
    """``m`` is a null schema, or a ``$ref`` (with annotations at most) the target inlines
    to one: the member is seen as what it becomes, so one lowering settles the union (a
    member inlined later would leave ``anyOf [null, S]`` for a second lowering)."""
    seen: set[str] = set()
    while (
        isinstance(m, dict)
        and "$ref" in m
        and ctx.rules.ref_mode == "inline"
        and is_null_schema({k: v for k, v in m.items() if k != "$ref"} | {"type": "null"})
    ):
        ref = m["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#") or ref in seen:
            return False
        seen.add(ref)
        found, m = resolve_pointer(ctx.original, ref)
        if not found:
            return False
    return is_null_schema(m)


def is_null_schema(m: Any) -> bool:
    """``{"type": "null"}`` (or a list of only ``"null"``), with annotations at most."""
    if not isinstance(m, dict):
        return False
    t = m.get("type")
    if isinstance(t, str):
        if t != "null":
            return False
    elif not isinstance(t, list) or not t:
        return False
    elif not all(x == "null" for x in t):  # (a list of "null" only)
        return False
    return all(k in _NULL_EXTRA or k.startswith("x-") for k in m)


#: the keywords a null schema may hold beside its type
_NULL_EXTRA = frozenset(("type", "description", "title", "default", "examples", "$comment"))


def _split_types(node: dict, types: list[str]) -> None:
    members = []
    enum = node.pop("enum", None)
    for t in types:
        m: dict[str, Any] = {"type": t}
        for k in _TYPE_KEYS.get(t, ()):
            if k in node:
                m[k] = node[k]
        if isinstance(enum, list):
            vals = [v for v in enum if is_json_type(v, t)]
            if not vals:
                continue
            m["enum"] = vals
        members.append(m)
    for t in types:
        for k in _TYPE_KEYS.get(t, ()):
            node.pop(k, None)
    node.pop("type", None)
    node["anyOf"] = members
