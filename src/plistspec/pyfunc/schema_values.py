"""Python values as JSON: defaults, ``Literal``/``Enum`` constants, ``json_schema_extra``.

Owns :func:`to_json_value` (a value → its JSON form, or :class:`NotJson` when it has none:
``NaN``, a function, an arbitrary object...), :func:`is_json_scalar` (may this be an ``enum``
value?) and :func:`short_repr` (how a value is named in an error message). :mod:`.convert`
uses :func:`to_json_value` for return values, so defaults and results agree.
"""

from __future__ import annotations

import enum
from typing import Any

from plistspec.pyfunc.schema_kinds import is_dataclass_type, is_namedtuple, is_pydantic_model

__all__ = ["NotJson", "is_json_scalar", "short_repr", "to_json_value"]


class NotJson(Exception):
    """Raised by :func:`to_json_value` for a value with no JSON form."""


def to_json_value(v: Any) -> Any:
    """A Python default/constant as JSON (raises :class:`NotJson` when it has no JSON form)."""
    import math

    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, enum.Enum):
        return to_json_value(v.value)
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if math.isfinite(v):
            return float(v)
        raise NotJson(v)
    if isinstance(v, (list, tuple)):
        if is_namedtuple(type(v)) or not hasattr(v, "_asdict"):
            return [to_json_value(x) for x in v]
    if isinstance(v, (set, frozenset)):
        items = [to_json_value(x) for x in v]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if isinstance(k, enum.Enum):
                k = k.value
            if not isinstance(k, str):
                raise NotJson(v)
            out[k] = to_json_value(x)
        return out
    import datetime as dt

    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, dt.timedelta):
        return _iso_duration(v)
    if isinstance(v, (bytes, bytearray)):
        try:
            return bytes(v).decode("utf-8")
        except UnicodeDecodeError:
            raise NotJson(v) from None
    t = type(v)
    if t.__module__ in ("uuid", "decimal") or t.__module__.startswith("pathlib"):
        return str(v)
    if is_dataclass_type(t):
        import dataclasses

        return {f.name: to_json_value(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if is_pydantic_model(t):
        return v.model_dump(mode="json", by_alias=True)
    raise NotJson(v)


def _iso_duration(td: Any) -> str:
    total = td.total_seconds()
    sign = "-" if total < 0 else ""
    total = abs(total)
    days, rem = divmod(total, 86400)
    hours, rem = divmod(rem, 3600)
    minutes, seconds = divmod(rem, 60)
    out = f"{sign}P"
    if days:
        out += f"{int(days)}D"
    out += "T"
    if hours:
        out += f"{int(hours)}H"
    if minutes:
        out += f"{int(minutes)}M"
    secs = f"{seconds:.6f}".rstrip("0").rstrip(".")
    out += f"{secs}S"
    return out


def is_json_scalar(v: Any) -> bool:
    import math

    if isinstance(v, float):
        return math.isfinite(v)
    return v is None or isinstance(v, (bool, int, str))


def short_repr(v: Any) -> str:
    """A value as an error message names it: short, and never ``<... at 0x...>``."""
    import inspect

    if inspect.isroutine(v) or isinstance(v, type):
        name = getattr(v, "__qualname__", None) or getattr(v, "__name__", "?")
        return f"{name} (a {'class' if isinstance(v, type) else 'function'})"
    r = repr(v)
    if " at 0x" in r and r.startswith("<"):
        r = "object()" if type(v) is object else f"an instance of {type(v).__name__}"
    return r if len(r) <= 60 else r[:57] + "..."
