"""Schemas of typing forms that stand for another annotation: ``Annotated[T, ...]`` (T's schema
plus constraints, descriptions, pydantic ``Field`` and ``json_schema`` metadata),
``Required``/``NotRequired``/``ReadOnly``/``Final``/``ClassVar`` wrappers, ``NewType``,
``TypeVar`` (bound by a generic class's arguments, else its bound or constraints), generic
classes (``Box[int]``) and unresolved forward references (a PS605 error).

Owns the ``annotated``, ``wrapper``, ``newtype``, ``forward``, ``typevar`` and
``generic_class`` handlers of :data:`plistspec.pyfunc.schema.HANDLERS`.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any

from plistspec.pyfunc.constraints import (
    apply_constraints,
    constraints_of,
    is_field_info,
    metadata_description,
)
from plistspec.pyfunc.schema_choices import union_schema
from plistspec.pyfunc.schema_kinds import class_kind
from plistspec.pyfunc.schema_scalars import any_schema

if TYPE_CHECKING:
    from plistspec.pyfunc.schema_builder import Builder

Schema = dict[str, Any]


def annotated_schema(b: Builder, tp: Any) -> Schema:
    base = tp.__origin__
    meta = tp.__metadata__
    schema = dict(b.schema(base))
    desc = metadata_description(meta)
    cons: dict[str, Any] = {}
    for m in meta:
        cons.update(constraints_of(m))
    apply_constraints(schema, cons, b.json_value)
    for m in meta:
        if is_field_info(m):
            _apply_field_info(b, schema, m)
        elif isinstance(m, dict) and m.get("__plistspec__") == "json_schema":
            schema.update({k: v for k, v in m.items() if k != "__plistspec__"})
    if desc is not None:
        schema["description"] = desc
    return schema


def _apply_field_info(b: Builder, schema: Schema, fi: Any) -> None:
    """A pydantic ``FieldInfo``'s title, description, examples, deprecation and extra."""
    if getattr(fi, "title", None) is not None:
        schema["title"] = fi.title
    if getattr(fi, "description", None) is not None:
        schema["description"] = fi.description
    examples = getattr(fi, "examples", None)
    if examples is not None:
        schema["examples"] = b.json_value(list(examples))
    if getattr(fi, "deprecated", None):
        schema["deprecated"] = True
    extra = getattr(fi, "json_schema_extra", None)
    if isinstance(extra, dict):
        schema.update(b.json_value(extra))


def explicit_description(ann: Any) -> str | None:
    """Field(description)/Annotated string of a top-level ``Annotated`` annotation."""
    if hasattr(ann, "__metadata__") and hasattr(ann, "__origin__"):
        return metadata_description(ann.__metadata__)
    return None


def wrapper_schema(b: Builder, tp: Any) -> Schema:
    args = typing.get_args(tp)
    return b.schema(args[0]) if args else any_schema(b, typing.Any)


def newtype_schema(b: Builder, tp: Any) -> Schema:
    return b.schema(tp.__supertype__)


def forward_schema(b: Builder, tp: Any) -> Schema:
    name = tp if isinstance(tp, str) else tp.__forward_arg__
    raise b.ctx.error(
        "PS605", f"cannot resolve annotation '{name}'; import or define it in the module"
    )


def typevar_schema(b: Builder, tp: Any) -> Schema:
    for mapping in reversed(b.typevars):
        if tp in mapping:
            return b.schema(mapping[tp])
    if tp.__bound__ is not None:
        return b.schema(tp.__bound__)
    if tp.__constraints__:
        return union_schema(b, typing.Union.__getitem__(tp.__constraints__))
    raise b.ctx.error(
        "PS606",
        f"cannot map the unbound type variable '{tp.__name__}' to JSON Schema; "
        "give it a bound or use a concrete type",
    )


def generic_class_schema(b: Builder, tp: Any) -> Schema:
    """``Box[int]``: the class's schema with its type variables bound to the arguments."""
    origin = typing.get_origin(tp)
    params = getattr(origin, "__parameters__", ())
    b.typevars.append(dict(zip(params, typing.get_args(tp), strict=False)))
    try:
        return b.dispatch(class_kind(origin), origin)
    finally:
        b.typevars.pop()
