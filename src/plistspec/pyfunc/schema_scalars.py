"""Schemas of the leaf annotations: ``Any``, ``None``, ``bool``/``int``/``float``/``str``/``bytes``,
the string formats (``datetime``, ``date``, ``time``, ``timedelta``, ``UUID``, ``Path``) and
``Decimal`` (``python-schema.md`` §2).

Each handler is ``(builder, annotation) → schema``, listed in
:data:`plistspec.pyfunc.schema.HANDLERS`. ``Any`` (and a missing annotation) accepts every
JSON value: a PS610 warning, an error under ``--strict-types``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from plistspec.pyfunc.errors import type_name
from plistspec.pyfunc.schema_kinds import MISSING

if TYPE_CHECKING:
    from plistspec.pyfunc.schema_builder import Builder

Schema = dict[str, Any]


def any_schema(b: Builder, tp: Any) -> Schema:
    what = "has no annotation" if tp is MISSING else f"is annotated '{type_name(tp)}'"
    msg = f"{what}: any JSON value is accepted; annotate it with a precise type"
    if b.strict_types:
        raise b.ctx.error("PS610", msg)
    b.ctx.warn("PS610", msg)
    return {}


def none_schema(b: Builder, tp: Any) -> Schema:
    return {"type": "null"}


def bool_schema(b: Builder, tp: Any) -> Schema:
    return {"type": "boolean"}


def int_schema(b: Builder, tp: Any) -> Schema:
    return {"type": "integer"}


def float_schema(b: Builder, tp: Any) -> Schema:
    return {"type": "number"}


def str_schema(b: Builder, tp: Any) -> Schema:
    return {"type": "string"}


def bytes_schema(b: Builder, tp: Any) -> Schema:
    return {"type": "string", "format": "binary"}


def _format(fmt: str) -> Any:
    def handler(b: Builder, tp: Any) -> Schema:
        return {"type": "string", "format": fmt}

    handler.__name__ = handler.__qualname__ = f"{fmt.replace('-', '_')}_schema"
    return handler


datetime_schema = _format("date-time")
date_schema = _format("date")
time_schema = _format("time")
timedelta_schema = _format("duration")
uuid_schema = _format("uuid")
path_schema = _format("path")


def decimal_schema(b: Builder, tp: Any) -> Schema:
    return {"anyOf": [{"type": "number"}, {"type": "string"}]}
