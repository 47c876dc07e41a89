"""What kind of annotation is this? — the dispatch key of :data:`plistspec.pyfunc.schema.HANDLERS`.

Owns :func:`kind_of` (an annotation → one key such as ``"list"``, ``"union"``, ``"dataclass"``)
and :func:`class_kind` (the same for a plain class), the class predicates they rest on
(:func:`is_typeddict`, :func:`is_namedtuple`, :func:`is_dataclass_type`,
:func:`is_pydantic_model`, :func:`init_fields`), the origin sets that sort generic aliases, and
the :data:`MISSING` stand-in for "no annotation at all". :mod:`.convert` dispatches its
JSON → Python converters on the same keys. pydantic is never imported here: its classes are
recognised by duck typing, and only when the user's code already imported it.
"""

from __future__ import annotations

import collections.abc as cabc
import enum
import sys
import types
import typing
from typing import Any

__all__ = [
    "MISSING",
    "NoneType",
    "REFUSED_ORIGINS",
    "class_kind",
    "init_fields",
    "is_dataclass_type",
    "is_namedtuple",
    "is_pydantic_model",
    "is_typeddict",
    "kind_of",
    "special_forms",
]

NoneType = type(None)


class _Missing:
    def __repr__(self) -> str:
        return "<no annotation>"


MISSING: Any = _Missing()
"""The annotation of a parameter/field that has none (maps like ``Any``, with its own warning)."""


# --- class predicates ------------------------------------------------------------------


def is_pydantic_model(tp: Any) -> bool:
    if not isinstance(tp, type) or "pydantic" not in sys.modules:
        return False
    return any(
        c.__name__ == "BaseModel" and c.__module__.startswith("pydantic") for c in tp.__mro__
    ) and hasattr(tp, "model_fields")


def is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def is_namedtuple(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def is_dataclass_type(tp: Any) -> bool:
    return isinstance(tp, type) and "__dataclass_fields__" in getattr(tp, "__dict__", {})


def init_fields(tp: Any) -> list[Any]:
    """A dataclass's ``__init__`` parameters as ``Field`` objects, in order (``InitVar``
    pseudo-fields included, ``ClassVar`` and ``init=False`` fields left out)."""
    import dataclasses

    classvar = getattr(dataclasses, "_FIELD_CLASSVAR", None)
    return [
        f
        for f in tp.__dataclass_fields__.values()
        if f.init and (classvar is None or getattr(f, "_field_type", None) is not classvar)
    ]


# --- origins and special forms ---------------------------------------------------------

# Iterable[T] is data a model can send (a list is one); Iterator/Generator are not (below)
_ARRAY_ORIGINS = {list, cabc.Sequence, cabc.MutableSequence, cabc.Collection, cabc.Iterable}
_SET_ORIGINS = {set, frozenset, cabc.Set, cabc.MutableSet}
_MAP_ORIGINS = {dict, cabc.Mapping, cabc.MutableMapping}
REFUSED_ORIGINS = {
    cabc.Callable: "a callable",
    cabc.Iterator: "an iterator",
    cabc.Generator: "a generator",
    cabc.AsyncIterator: "an async iterator",
    cabc.AsyncIterable: "an async iterable",
    cabc.AsyncGenerator: "an async generator",
    cabc.Awaitable: "an awaitable",
    cabc.Coroutine: "a coroutine",
    type: "a class object (type[...])",
}
"""Origins with no JSON form → what they are (for the PS606 message)."""


_FORMS_CACHE: dict[bool, dict[Any, str]] = {}


def special_forms() -> dict[Any, str]:
    """``typing``/``typing_extensions`` special forms → their kind (``wrapper``, ``literal``,
    ``union``, ``annotated``); typing_extensions counts only once the user imported it."""
    key = "typing_extensions" in sys.modules
    cached = _FORMS_CACHE.get(key)
    if cached is not None:
        return cached
    out: dict[Any, str] = {}
    for mod_name in ("typing", "typing_extensions"):
        mod = sys.modules.get(mod_name)
        if mod is None:
            continue
        for name, kind in (
            ("Required", "wrapper"),
            ("NotRequired", "wrapper"),
            ("ReadOnly", "wrapper"),
            ("Final", "wrapper"),
            ("ClassVar", "wrapper"),
            ("Literal", "literal"),
            ("Union", "union"),
            ("Optional", "union"),
            ("Annotated", "annotated"),
        ):
            obj = getattr(mod, name, None)
            if obj is not None:
                out[obj] = kind
    _FORMS_CACHE[key] = out
    return out


# --- the dispatch key ------------------------------------------------------------------


def kind_of(tp: Any) -> str:
    """The dispatch key of an annotation (a key of :data:`plistspec.pyfunc.schema.HANDLERS`)."""
    if tp is typing.Any or tp is object or tp is MISSING:
        return "any"
    if tp is None or tp is NoneType:
        return "none"
    if isinstance(tp, (str, typing.ForwardRef)):
        return "forward"
    if isinstance(tp, typing.TypeVar):
        return "typevar"
    if isinstance(tp, types.UnionType):
        return "union"
    if type(tp).__name__ == "NewType" or (callable(tp) and hasattr(tp, "__supertype__")):
        return "newtype"
    if hasattr(tp, "__metadata__") and hasattr(tp, "__origin__"):
        return "annotated"
    origin = typing.get_origin(tp)
    if origin is not None:
        special = special_forms().get(origin)
        if special:
            return special
        if origin is tuple:
            return "tuple"
        if origin in _SET_ORIGINS:
            return "set"
        if origin in _MAP_ORIGINS or (isinstance(origin, type) and issubclass(origin, dict)):
            return "dict"
        if origin in _ARRAY_ORIGINS or origin is list:
            return "list"
        if origin in REFUSED_ORIGINS or origin is type:
            return "refused"
        if isinstance(origin, type):
            ck = class_kind(origin)
            return ck if ck in ("list", "set", "dict", "tuple", "refused") else "generic_class"
        return "unknown"
    if getattr(tp, "__name__", None) == "LiteralString":
        return "str"
    if not isinstance(tp, type):
        return "unknown"
    return class_kind(tp)


def class_kind(tp: type) -> str:
    """The dispatch key of a plain (unsubscripted) class."""
    import datetime as dt
    import uuid

    if issubclass(tp, enum.Enum):
        return "enum"
    if tp is bool:
        return "bool"
    if is_typeddict(tp):
        return "typeddict"
    if is_namedtuple(tp):
        return "namedtuple"
    if is_dataclass_type(tp):
        return "dataclass"
    if is_pydantic_model(tp):
        return "pydantic"
    if issubclass(tp, dt.datetime):
        return "datetime"
    if issubclass(tp, dt.date):
        return "date"
    if issubclass(tp, dt.time):
        return "time"
    if issubclass(tp, dt.timedelta):
        return "timedelta"
    if issubclass(tp, uuid.UUID):
        return "uuid"
    if issubclass(tp, int):
        return "int"
    if issubclass(tp, float):
        return "float"
    if issubclass(tp, str):
        return "str"
    if issubclass(tp, (bytes, bytearray)):
        return "bytes"
    mod = tp.__module__
    if mod.startswith("pathlib") or tp.__name__ in ("Path", "PurePath", "PosixPath", "WindowsPath"):
        return "path"
    if mod == "decimal" and tp.__name__ == "Decimal":
        return "decimal"
    if tp in (list, tuple, set, frozenset, dict):
        return {list: "list", tuple: "tuple", set: "set", frozenset: "set", dict: "dict"}[tp]
    if issubclass(tp, dict):
        return "dict"
    if issubclass(tp, (list, cabc.Sequence)) and not issubclass(tp, (str, bytes)):
        return "list"
    if tp in REFUSED_ORIGINS or issubclass(tp, (cabc.Iterator, cabc.Callable)):
        return "refused"
    if "pydantic" in sys.modules and (
        hasattr(tp, "__get_pydantic_core_schema__") or mod.startswith("pydantic")
    ):
        return "pydantic_type"
    return "unknown"
