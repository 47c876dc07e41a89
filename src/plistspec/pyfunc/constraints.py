"""Reading ``Annotated`` metadata: constraints, descriptions, pydantic ``Field`` objects.

Owns: duck-typed recognition of ``annotated_types`` constraints (``Ge``, ``Lt``, ``MinLen``,
``Len``, ``Interval``...), pydantic's ``FieldInfo`` and general metadata, ``typing_extensions.Doc``
and plain strings, without importing either package; and how a constraint lands on a schema
(``min_length`` is ``minLength`` on a string, ``minItems`` on an array).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "is_field_info",
    "field_default",
    "metadata_description",
    "constraints_of",
    "apply_constraints",
    "UNSET",
]

UNSET: Any = object()

_NUMERIC = {"gt": "exclusiveMinimum", "ge": "minimum", "lt": "exclusiveMaximum", "le": "maximum"}
_CONSTRAINT_ATTRS = ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern")
_LENGTH = {
    "string": ("minLength", "maxLength"),
    "array": ("minItems", "maxItems"),
    "object": ("minProperties", "maxProperties"),
}


def is_field_info(obj: Any) -> bool:
    """True for a pydantic ``FieldInfo`` (what ``Field(...)`` returns)."""
    t = type(obj)
    return t.__name__ == "FieldInfo" and t.__module__.startswith("pydantic")


def is_doc(obj: Any) -> bool:
    return type(obj).__name__ == "Doc" and isinstance(getattr(obj, "documentation", None), str)


def field_default(fi: Any) -> tuple[Any, bool]:
    """``(default, has_factory)`` of a FieldInfo; default is :data:`UNSET` when required."""
    factory = getattr(fi, "default_factory", None)
    if factory is not None:
        return UNSET, True
    d = getattr(fi, "default", UNSET)
    if type(d).__name__ == "PydanticUndefinedType" or d is Ellipsis:
        return UNSET, False
    return d, False


def metadata_description(metadata: tuple[Any, ...]) -> str | None:
    """The description ``Annotated`` metadata gives: ``Field(description=)`` beats a string/Doc;
    of several ``Field``s the last wins (pydantic merges them that way; a ``Field`` used as the
    default comes last)."""
    field_desc = None
    text_desc = None
    for m in metadata:
        if is_field_info(m):
            if m.description is not None:
                field_desc = m.description
        elif isinstance(m, str):
            if text_desc is None:
                text_desc = m
        elif is_doc(m):
            if text_desc is None:
                text_desc = m.documentation
    return field_desc if field_desc is not None else text_desc


def constraints_of(obj: Any) -> dict[str, Any]:
    """The generic constraints (``ge``, ``min_length``, ``pattern``...) one metadata object carries."""
    out: dict[str, Any] = {}
    if obj is None or isinstance(obj, (str, int, float, bool, bytes)):
        return out
    if is_field_info(obj):
        for m in getattr(obj, "metadata", ()) or ():
            out.update(constraints_of(m))
        return out
    for attr in _CONSTRAINT_ATTRS:
        v = getattr(obj, attr, None)
        if v is not None and not callable(v):
            out[attr] = v
    return out


def _schema_type(schema: dict[str, Any]) -> str | None:
    t = schema.get("type")
    if isinstance(t, str):
        return t
    if "prefixItems" in schema or "items" in schema:
        return "array"
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    return None


def apply_constraints(schema: dict[str, Any], cons: dict[str, Any], to_json: Any) -> None:
    """Put ``cons`` on ``schema`` in JSON Schema words; into ``anyOf`` members when it is a union."""
    if not cons:
        return
    members = schema.get("anyOf")
    if isinstance(members, list):
        targets = [m for m in members if isinstance(m, dict) and m.get("type") != "null"]
        for m in targets:
            apply_constraints(m, cons, to_json)
        return
    kind = _schema_type(schema)
    for k, v in cons.items():
        if k in _NUMERIC:
            schema[_NUMERIC[k]] = to_json(v)
        elif k == "multiple_of":
            schema["multipleOf"] = to_json(v)
        elif k == "pattern":
            schema["pattern"] = v if isinstance(v, str) else getattr(v, "pattern", str(v))
        elif k in ("min_length", "max_length"):
            lo, hi = _LENGTH.get(kind or "string", _LENGTH["string"])
            schema[lo if k == "min_length" else hi] = v
