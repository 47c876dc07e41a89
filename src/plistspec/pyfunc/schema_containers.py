"""Schemas of container annotations: ``list``/``Sequence``/``Iterable`` (``items``),
``set``/``frozenset`` (``uniqueItems``), ``tuple`` (``prefixItems`` or homogeneous ``items``)
and ``dict``/``Mapping`` (``additionalProperties``, with ``propertyNames`` for a str
``Enum``/``Literal`` key) (``python-schema.md`` §2).

Owns the ``list``, ``set``, ``tuple`` and ``dict`` handlers of
:data:`plistspec.pyfunc.schema.HANDLERS`. A key type that is not a string is a PS607 error.
"""

from __future__ import annotations

import enum
import typing
from typing import TYPE_CHECKING, Any

from plistspec.pyfunc.errors import type_name
from plistspec.pyfunc.schema_choices import flatten_literal
from plistspec.pyfunc.schema_kinds import kind_of

if TYPE_CHECKING:
    from plistspec.pyfunc.schema_builder import Builder

Schema = dict[str, Any]


def list_schema(b: Builder, tp: Any) -> Schema:
    args = typing.get_args(tp)
    return {"type": "array", "items": b.schema(args[0]) if args else {}}


def set_schema(b: Builder, tp: Any) -> Schema:
    args = typing.get_args(tp)
    return {"type": "array", "items": b.schema(args[0]) if args else {}, "uniqueItems": True}


def tuple_schema(b: Builder, tp: Any) -> Schema:
    args = typing.get_args(tp)
    if tp is tuple or (not args and getattr(tp, "_name", None) == "Tuple"):
        return {"type": "array", "items": {}}
    if len(args) == 2 and args[1] is Ellipsis:
        return {"type": "array", "items": b.schema(args[0])}
    if args == ((),):
        args = ()
    items = [b.schema(a) for a in args]
    if not items:  # tuple[()]: prefixItems must not be empty
        return {"type": "array", "minItems": 0, "maxItems": 0}
    return {
        "type": "array",
        "prefixItems": items,
        "minItems": len(items),
        "maxItems": len(items),
    }


def dict_schema(b: Builder, tp: Any) -> Schema:
    args = typing.get_args(tp)
    if not args:
        return {"type": "object", "additionalProperties": True}
    key, value = args[0], args[1] if len(args) > 1 else typing.Any
    if len(args) == 1 and getattr(typing.get_origin(tp), "__name__", "") == "Counter":
        value = int
    out: Schema = {"type": "object"}
    names = _key_schema(b, key)
    out["additionalProperties"] = b.schema(value)
    if names is not None:
        out["propertyNames"] = names
    return out


def _key_schema(b: Builder, key: Any) -> Schema | None:
    """``propertyNames`` for a dict key type: None for ``str``; the key type's own schema
    for a str ``Enum``/``Literal`` (so the allowed keys reach the model); else an error."""
    k = kind_of(key)
    if k in ("str", "any"):
        return None
    if k == "annotated":
        return _key_schema(b, key.__origin__)
    if k == "newtype":
        return _key_schema(b, key.__supertype__)
    if k == "enum" and all(isinstance(m.value, str) for m in key):
        return b.schema(key)
    if k == "literal":
        vals = [v.value if isinstance(v, enum.Enum) else v for v in flatten_literal(key)]
        if all(isinstance(v, str) for v in vals):
            return b.schema(key)
    raise b.ctx.error(
        "PS607",
        f"dict key type '{type_name(key)}' is not str: JSON object keys are strings; "
        "use dict[str, ...] (or a str Enum/Literal key)",
    )
