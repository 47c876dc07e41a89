"""Schemas of classes with fields: ``TypedDict``, dataclasses, ``NamedTuple`` and pydantic
models (objects, or for a NamedTuple argument a fixed-length array), other pydantic types via
pydantic's own schema — and the schema of one field or parameter (annotation, ``Field``,
description, JSON default) (``python-schema.md`` §2-§3).

Owns the ``typeddict``, ``dataclass``, ``namedtuple``, ``pydantic`` and ``pydantic_type``
handlers of :data:`plistspec.pyfunc.schema.HANDLERS`, :func:`namedtuple_fields` (a NamedTuple
as a tool: keyword fields) and :func:`field_schema`. Field descriptions come from the class's
comments and docstring (:mod:`.docs`). Every class goes through
:meth:`plistspec.pyfunc.schema_defs.Definitions.named`, so a recursive one becomes ``$defs``.
pydantic is imported only for ``pydantic_type`` (the user's code imported it already).
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any

from plistspec.pyfunc.constraints import UNSET, field_default, is_field_info
from plistspec.pyfunc.schema_forms import explicit_description
from plistspec.pyfunc.schema_hints import own_doc, resolve_hints
from plistspec.pyfunc.schema_kinds import MISSING, init_fields, special_forms
from plistspec.pyfunc.schema_refusals import unknown_schema
from plistspec.pyfunc.schema_values import short_repr

if TYPE_CHECKING:
    from plistspec.pyfunc.schema_builder import Builder

Schema = dict[str, Any]
Field = tuple[str, Any, Any, bool, "str | None"]
"""``(name, annotation, default, required, description from elsewhere)``."""


# --- classes ---------------------------------------------------------------------------


def typeddict_schema(b: Builder, tp: Any) -> Schema:
    def build(tp: Any) -> Schema:
        hints = _hints(b, tp)
        req_keys = set(getattr(tp, "__required_keys__", ()))
        fields: list[Field] = []
        for name, ann in hints.items():
            fields.append((name, ann, UNSET, _td_required(ann, name in req_keys), None))
        return object_schema(b, tp, fields, closed=False)

    return b.refs.named(tp, build)


def _td_required(ann: Any, req: bool) -> bool:
    """Whether a TypedDict key is required: ``Required``/``NotRequired`` (possibly inside
    other wrappers or an ``Annotated``) override the class's ``total``."""
    inner = ann
    while True:
        origin = typing.get_origin(inner)
        kind = special_forms().get(origin) if origin is not None else None
        if kind == "wrapper":
            oname = getattr(origin, "_name", None) or repr(origin)
            if "NotRequired" in oname:
                req = False
            elif "Required" in oname and "Not" not in oname:
                req = True
            inner = typing.get_args(inner)[0]
        elif kind == "annotated":
            # Annotated[Required[X], ...] is legal too
            base = inner.__origin__
            bo = typing.get_origin(base)
            if bo is not None and special_forms().get(bo) == "wrapper":
                oname = getattr(bo, "_name", None) or repr(bo)
                req = "NotRequired" not in oname
            return req
        else:
            return req


def dataclass_schema(b: Builder, tp: Any, closed: bool = False) -> Schema:
    def build(tp: Any) -> Schema:
        import dataclasses

        hints = _hints(b, tp)
        fields: list[Field] = []
        for f in init_fields(tp):
            default = f.default
            has_factory = f.default_factory is not dataclasses.MISSING
            if default is dataclasses.MISSING:
                default = UNSET
            req = default is UNSET and not has_factory
            if is_field_info(default):
                req = field_default(default) == (UNSET, False)
            desc = f.metadata.get("description") if f.metadata else None
            ann = hints.get(f.name, MISSING)
            if isinstance(ann, dataclasses.InitVar):
                ann = ann.type
            fields.append((f.name, ann, default, req, desc))
        return object_schema(b, tp, fields, closed=closed)

    return b.refs.named(tp, build)


def namedtuple_schema(b: Builder, tp: Any) -> Schema:
    """A NamedTuple argument: a fixed-length array (optional trailing fields may be left out)."""

    def build(tp: Any) -> Schema:
        hints = _hints(b, tp)
        items = []
        for name in tp._fields:
            b.ctx.where.append(f"field '{name}' of {tp.__name__}")
            try:
                items.append(b.schema(hints.get(name, MISSING)))
            finally:
                b.ctx.where.pop()
        out: Schema = {
            "type": "array",
            "prefixItems": items,
            "minItems": len(items) - len(getattr(tp, "_field_defaults", {})),
            "maxItems": len(items),
        }
        doc = own_doc(tp)
        if doc:
            out["description"] = doc
        return out

    return b.refs.named(tp, build)


def namedtuple_fields(b: Builder, tp: Any) -> Schema:
    """A NamedTuple class as a tool: its fields as an object (it is called with keywords)."""
    hints = _hints(b, tp)
    defaults = getattr(tp, "_field_defaults", {})
    fields: list[Field] = [
        (n, hints.get(n, MISSING), defaults.get(n, UNSET), n not in defaults, None)
        for n in tp._fields
    ]
    return object_schema(b, tp, fields, closed=True)


def pydantic_schema(b: Builder, tp: Any) -> Schema:
    """A pydantic model: its ``model_fields`` (by alias), closed when ``extra="forbid"``."""

    def build(tp: Any) -> Schema:
        fields: list[Field] = []
        for name, fi in tp.model_fields.items():
            alias = fi.validation_alias if isinstance(fi.validation_alias, str) else fi.alias
            default, has_factory = field_default(fi)
            ann = fi.annotation
            if fi.metadata or fi.description is not None or fi.title is not None:
                ann = typing.Annotated[ann, fi]
            req = fi.is_required()
            fields.append((alias or name, ann, default if not has_factory else UNSET, req, None))
        closed = tp.model_config.get("extra") == "forbid"
        return object_schema(b, tp, fields, closed=closed)

    return b.refs.named(tp, build)


def pydantic_type_schema(b: Builder, tp: Any) -> Schema:
    """Another pydantic type (``EmailStr``, ``HttpUrl``...): pydantic's own schema, tidied."""
    try:
        from pydantic import TypeAdapter

        raw = TypeAdapter(tp).json_schema()
    except ImportError as e:  # EmailStr without email-validator: say what pydantic said
        from plistspec.pyfunc.errors import type_name

        raise b.ctx.error(
            "PS606", f"cannot map annotation '{type_name(tp)}' to JSON Schema: pydantic says: {e}"
        ) from None
    except Exception:
        return unknown_schema(b, tp)
    return _normalise_pydantic(raw)


def _normalise_pydantic(raw: Schema) -> Schema:
    """pydantic's JSON schema without titles, with its ``$defs`` inlined."""
    defs = raw.pop("$defs", {})

    def walk(node: Any, depth: int = 0) -> Any:
        if depth > 50:
            return {}
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
                rest = {
                    k: walk(v, depth + 1) for k, v in node.items() if k not in ("$ref", "title")
                }
                base = walk(defs[ref[8:]], depth + 1)
                base.update(rest)
                return base
            return {k: walk(v, depth + 1) for k, v in node.items() if k != "title"}
        if isinstance(node, list):
            return [walk(x, depth + 1) for x in node]
        return node

    return walk(raw)


# --- objects and fields ----------------------------------------------------------------


def _hints(b: Builder, tp: Any) -> dict[str, Any]:
    b.ctx.where.append(f"class {tp.__name__}")
    try:
        return resolve_hints(tp, b.ctx, "field")
    finally:
        b.ctx.where.pop()


def object_schema(b: Builder, tp: Any, fields: list[Field], closed: bool) -> Schema:
    """An object schema from ``(name, annotation, default, required, comment)`` fields."""
    from plistspec.pyfunc.docs import class_comments, split_docstring

    comments = class_comments(tp)
    doc = split_docstring(own_doc(tp), {f[0] for f in fields})
    props: Schema = {}
    required: list[str] = []
    for name, ann, default, req, extra_desc in fields:
        b.ctx.where.append(f"field '{name}' of {tp.__name__}")
        try:
            fallback = extra_desc or comments.get(name) or doc.params.get(name)
            s = field_schema(b, ann, default, fallback)
        finally:
            b.ctx.where.pop()
        props[name] = s
        if req:
            required.append(name)
    out: Schema = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    if closed:
        out["additionalProperties"] = False
    if doc.description:
        out["description"] = doc.description
    return out


def field_schema(b: Builder, ann: Any, default: Any, fallback_desc: str | None) -> Schema:
    """Schema of one parameter/field: annotation, ``Field`` default, description, default."""
    has_factory = False
    if is_field_info(default):
        fi = default
        default, has_factory = field_default(fi)
        ann = typing.Annotated[ann, fi] if ann is not MISSING else typing.Annotated[typing.Any, fi]
    schema = dict(b.schema(ann))
    explicit = explicit_description(ann)
    desc = explicit if explicit is not None else fallback_desc
    if desc is not None:
        schema["description"] = desc
    if default is not UNSET and not has_factory:
        ok, value = b.try_json_value(default)
        if ok:
            schema["default"] = value
        elif b.lenient_defaults:
            b.ctx.warn("PS608", f"default {short_repr(default)} is not JSON; not published")
        else:
            raise b.ctx.error(
                "PS608",
                f"default value {short_repr(default)} cannot be written as JSON; use a JSON "
                "value (or None) as the default, or --lenient-defaults to leave it out",
            )
    return schema
