"""Merging schemas: ``allOf`` members into one node, and a root ``anyOf``/``oneOf`` into
one object schema, for targets that refuse composition there.

Owns: :func:`merge_all` (the conjunction of schemas, exact when the members agree:
properties are united, a property in several members becomes an ``allOf`` of its
schemas, merged in turn when the walk reaches it; ``required`` is united, types and
enums intersected, bounds tightened; anything that cannot be combined exactly is
reported as a loss) and :func:`flatten_union` (an object whose properties and
``required`` accept every member: a loosening, always reported).
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsonutil import brief, jeq, types_of

__all__ = ["merge_all", "flatten_union"]

_MIN = frozenset("minimum exclusiveMinimum minLength minItems minProperties minContains".split())
_MAX = frozenset("maximum exclusiveMaximum maxLength maxItems maxProperties maxContains".split())
_TEXT = frozenset(("description", "title"))


def _intersect_types(a: list[str], b: list[str]) -> list[str]:
    out = []
    for t in a:
        if t in b or (t == "integer" and "number" in b):
            out.append(t)
    for t in b:
        if t == "integer" and "number" in a and t not in out:
            out.append(t)
    return out


def _merge_two(a: dict[str, Any], b: dict[str, Any], losses: list[str]) -> dict[str, Any]:
    out = dict(a)
    for k, v in b.items():
        if k not in out:
            out[k] = v
            continue
        av = out[k]
        if jeq(av, v):
            continue
        if k == "properties" and isinstance(av, dict) and isinstance(v, dict):
            props = dict(av)
            for name, s in v.items():
                props[name] = s if name not in props else {"allOf": [props[name], s]}
            out[k] = props
        elif k == "required" and isinstance(av, list) and isinstance(v, list):
            seen = set(av)
            out[k] = av + [x for x in v if x not in seen]
        elif k == "type" and types_of(out) is not None and types_of(b) is not None:
            both = _intersect_types(types_of(out) or [], types_of(b) or [])
            if not both:
                losses.append(f"the types {brief(av)} and {brief(v)} exclude each other")
                continue
            out[k] = both[0] if len(both) == 1 else both
        elif k == "enum" and isinstance(av, list) and isinstance(v, list):
            both = [x for x in av if any(jeq(x, y) for y in v)]
            if both:
                out[k] = both
            else:
                losses.append(f"the enums {brief(av)} and {brief(v)} have no value in common")
        elif k in _TEXT and isinstance(av, str) and isinstance(v, str):
            out[k] = f"{av} {v}"
        elif k in _MIN and _num(av) and _num(v):
            out[k] = max(av, v)
        elif k in _MAX and _num(av) and _num(v):
            out[k] = min(av, v)
        elif k == "items" and isinstance(av, dict) and isinstance(v, dict):
            out[k] = {"allOf": [av, v]}
        else:
            losses.append(f"{k}: {brief(v, 10**9)} (kept {brief(av, 120)})")
    return out


def _num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def merge_all(base: dict[str, Any], members: list[Any]) -> tuple[dict[str, Any], list[str]]:
    """``base`` and every member of an ``allOf`` merged into one node, and the losses."""
    losses: list[str] = []
    out = dict(base)
    closed = [m for m in [base, *members] if isinstance(m, dict) and _closes(m)]
    with_props = [m for m in [base, *members] if isinstance(m, dict) and m.get("properties")]
    if closed and len(with_props) > 1:
        losses.append(
            "additionalProperties applied to one member's properties only; "
            "the merged object applies it to all of them"
        )
    for m in members:
        if m is True or m == {}:
            continue
        if not isinstance(m, dict):
            losses.append(f"the member {brief(m)} cannot be merged")
            continue
        out = _merge_two(out, m, losses)
    return out, losses


def _closes(m: dict[str, Any]) -> bool:
    ap = m.get("additionalProperties", True)
    return ap is not True and ap != {}


def flatten_union(
    root: dict[str, Any], members: list[Any]
) -> tuple[dict[str, Any] | None, list[str]]:
    """One object schema accepting every member of a root ``anyOf``/``oneOf``.

    A property in several members is the ``anyOf`` of its schemas; ``required`` is what
    every member requires (plus the root's own). None when a member is not an object schema.
    """
    props: dict[str, list[Any]] = {}
    required: list[str] | None = None
    for m in members:
        if not isinstance(m, dict):
            return None, [f"the member {brief(m)} is not an object schema"]
        t = types_of(m)
        if t is not None and "object" not in t:
            return None, [f"the member {brief(m, 120)} is not an object schema"]
        mp = m.get("properties")
        for name, s in (mp if isinstance(mp, dict) else {}).items():
            seen = props.setdefault(name, [])
            if not any(jeq(s, x) for x in seen):
                seen.append(s)
        mr = m.get("required")
        req = [x for x in (mr if isinstance(mr, list) else []) if isinstance(x, str)]
        if required is None:
            required = req
        else:
            mine = set(req)
            required = [x for x in required if x in mine]
    out = dict(root)
    own = dict(out["properties"]) if isinstance(out.get("properties"), dict) else {}
    for name, schemas in props.items():
        if name in own:
            continue
        own[name] = schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
    out["properties"] = own
    rr = out.get("required")
    req = [x for x in (rr if isinstance(rr, list) else []) if isinstance(x, str)]
    have = set(req)
    req += [x for x in (required or []) if x not in have]
    if req:
        out["required"] = req
    else:
        out.pop("required", None)
    return out, [
        "an object matching one of several shapes became one object with the union of their "
        "properties (only what every shape requires stays required)"
    ]
