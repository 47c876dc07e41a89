"""The ``:type`` an llm arg can be written with when its JSON schema composes one.

Owns: :func:`composed_type`. llm 0.31.1 keeps only ``type description enum items
properties`` of an arg and sends a missing ``:type`` as ``"type": "nil"``, which no
provider accepts. A schema that has no ``type`` of its own but whose ``anyOf``/
``oneOf``/``allOf`` branches all say the same one (``allOf [{type: string},
{maxLength: 2000}]``), or whose ``oneOf``/``anyOf`` branches are constants of one type
(``oneOf [{const: "public"}, {const: "private"}]``, which is exactly ``enum``), is
written with that type (and that ``enum``): what the branches accept is kept, the
dropped keywords are reported by the writer as before.
"""

from __future__ import annotations

from plistspec.core.jsontypes import scalar_type

__all__ = ["composed_type"]


def composed_type(schema: dict) -> tuple[str, list | None] | None:
    """``(type, enum or None)`` for a ``schema`` without ``type`` whose combinators agree
    on one type; None when they do not (or there is none)."""
    if "type" in schema:
        return None
    for key in ("oneOf", "anyOf", "allOf"):
        alts = schema.get(key)
        if not isinstance(alts, list) or not alts or not all(isinstance(a, dict) for a in alts):
            continue
        if key != "allOf" and all(
            set(a) <= {"const", "description", "title"} and "const" in a for a in alts
        ):
            values = [a["const"] for a in alts]
            types = {scalar_type(v) for v in values}
            if len(types) == 1 and None not in types and "null" not in types:
                return types.pop(), values  # type: ignore[return-value]
            return None
        types = {a.get("type") for a in alts if "type" in a}
        if len(types) == 1 and isinstance(t := next(iter(types)), str):
            if key == "allOf" or all(a.get("type") == t for a in alts):
                return t, None
        return None
    return None
