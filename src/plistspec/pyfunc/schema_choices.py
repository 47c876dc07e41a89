"""Schemas of annotations that choose among alternatives: ``X | Y``/``Optional``/``Union``
(``anyOf``), ``Literal[...]`` and ``Enum`` classes (``enum``, with ``type`` when all values
share one JSON type) (``python-schema.md`` §2).

Owns the ``union``, ``literal`` and ``enum`` handlers of
:data:`plistspec.pyfunc.schema.HANDLERS` and :func:`flatten_literal` (nested ``Literal``\\ s
as one list). A non-scalar ``Literal``/``Enum`` value is a PS609 error.
"""

from __future__ import annotations

import enum
import typing
from typing import TYPE_CHECKING, Any

from plistspec.core.jsontypes import scalar_type
from plistspec.pyfunc.schema_hints import own_doc
from plistspec.pyfunc.schema_kinds import special_forms
from plistspec.pyfunc.schema_values import is_json_scalar

if TYPE_CHECKING:
    from plistspec.pyfunc.schema_builder import Builder

Schema = dict[str, Any]


def union_schema(b: Builder, tp: Any) -> Schema:
    """``anyOf`` of the members' schemas (duplicates dropped; one left is itself)."""
    members: list[Schema] = []
    for arg in typing.get_args(tp):
        s = b.schema(arg)
        if s not in members:
            members.append(s)
    if len(members) == 1:
        return members[0]
    return {"anyOf": members}


def literal_schema(b: Builder, tp: Any) -> Schema:
    values = []
    for v in flatten_literal(tp):
        if isinstance(v, enum.Enum):
            v = v.value
        if not is_json_scalar(v):
            raise b.ctx.error(
                "PS609",
                f"Literal value {v!r} is not a JSON scalar; use strings, numbers, booleans or None",
            )
        if not any(v == w and type(v) is type(w) for w in values):
            values.append(v)
    return _enum_schema(values)


def enum_schema(b: Builder, tp: Any) -> Schema:
    values = []
    for member in tp:
        v = member.value
        if not is_json_scalar(v):
            raise b.ctx.error(
                "PS609",
                f"Enum {tp.__name__} member {member.name} has the value {v!r}, which is not a "
                "JSON scalar; use str or int values",
            )
        values.append(v)
    out = _enum_schema(values)
    doc = own_doc(tp)
    if doc:
        out["description"] = doc
    return out


def flatten_literal(tp: Any) -> list[Any]:
    """The values of ``Literal[...]``, nested ``Literal``\\ s spliced in."""
    out = []
    for a in typing.get_args(tp):
        if (
            typing.get_origin(a) is not None
            and special_forms().get(typing.get_origin(a)) == "literal"
        ):
            out.extend(flatten_literal(a))
        else:
            out.append(a)
    return out


def _json_type(v: Any) -> str:
    return scalar_type(v) or "string"


def _enum_schema(values: list[Any]) -> Schema:
    kinds = {_json_type(v) for v in values}
    if len(kinds) == 1:
        return {"type": kinds.pop(), "enum": values}
    return {"enum": values}
