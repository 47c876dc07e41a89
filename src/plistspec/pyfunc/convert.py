"""JSON arguments → the Python values the annotations ask for, and results → text.

Owns: :func:`to_python` (one function per kind of annotation, the same dispatch keys as
:mod:`.schema`: Enum members, ``Path``, ``datetime``/``date``/``time``/``timedelta``, ``UUID``,
``Decimal``, ``bytes``, dataclass / ``TypedDict`` / ``NamedTuple`` / pydantic values, tuples,
sets; unions pick the first member whose schema the value satisfies), :func:`repair` (undoing
what Elisp's ``nil`` did to null / ``{}`` / missing arguments, guided by the schema) and
:func:`format_result` (a string as it is, anything else as JSON).
"""

from __future__ import annotations

import copy
import enum
import inspect
import re
import typing
from typing import Any

from plistspec.pyfunc.nilvalue import ABSENT, ORDER, _resolve, accepts, decisions, is_any
from plistspec.pyfunc.schema import HANDLERS as _SCHEMA_HANDLERS  # noqa: F401 (same keys)
from plistspec.pyfunc.schema import kind_of

__all__ = ["ConvertError", "to_python", "repair", "format_result", "accepts"]


class ConvertError(Exception):
    """A value that passed the schema but cannot become the annotated type."""


# --- repair: Elisp nil back to JSON ------------------------------------------------------


def _empty_for(schema: Any, defs: dict[str, Any], dialect: str) -> tuple[bool, Any]:
    """What a nested Elisp ``nil`` most likely was, for a value that must match ``schema``
    (the library's readings of nil in :data:`.nilvalue.ORDER`, then ``[]``)."""
    for label, value in ORDER.get(dialect, ORDER["gptel"]):
        if accepts(schema, {"null": "null", "{}": "object", "false": "boolean"}[label], defs):
            return True, value
    if accepts(schema, "array", defs):
        return True, []
    return False, None


def repair(
    args: dict[str, Any], parameters: dict[str, Any], dialect: str = "gptel"
) -> dict[str, Any]:
    """Undo Elisp's ``nil`` (sent as ``{}``) and a null the schema has no place for.

    Top level: each argument's ``nil`` becomes what :func:`.nilvalue.decisions` decided
    (``from-py`` wrote the Elisp schema from the same decisions); a missing argument counts as
    ``nil``. Nested (iterative, any depth): ``{}`` where the schema wants no object becomes the
    library's likeliest reading; a null where the schema wants none is dropped when the key is
    optional, as gptel's ``nil`` for the same null would be."""
    defs = parameters.get("$defs", {})
    props = parameters.get("properties", {})
    required = set(parameters.get("required", []))
    for name, d in decisions(parameters, dialect).items():
        v = args.get(name, _MISSING)
        if v is _MISSING or v == {}:
            if d.value is ABSENT:
                args.pop(name, None)
            else:
                args[name] = copy.deepcopy(d.value)
        elif v is None and name not in required and not accepts(props[name], "null", defs):
            del args[name]
    stack: list[tuple[Any, Any]] = [(args, parameters)]
    while stack:
        value, schema = stack.pop()
        schema = _resolve(schema, defs)
        if not isinstance(schema, dict):
            continue
        if isinstance(value, dict):
            sprops = schema.get("properties", {})
            sreq = set(schema.get("required", []))
            extra = schema.get("additionalProperties")
            top = value is args
            for k in list(value):
                sub = sprops.get(k, extra if isinstance(extra, dict) else None)
                if sub is None:
                    continue
                v = value[k]
                if v == {} and not top and _reread(sub, defs):
                    ok, new = _empty_for(sub, defs, dialect)
                    if ok:
                        value[k] = new
                    elif k not in sreq:
                        del value[k]
                elif v is None and not top and k not in sreq and not accepts(sub, "null", defs):
                    del value[k]
                elif isinstance(v, (dict, list)):
                    for m in _members(sub, defs):
                        stack.append((v, m))
        elif isinstance(value, list):
            items = schema.get("items")
            prefix = schema.get("prefixItems", [])
            for i, v in enumerate(value):
                sub = prefix[i] if i < len(prefix) else items
                if sub is None:
                    continue
                if v == {} and _reread(sub, defs):
                    ok, new = _empty_for(sub, defs, dialect)
                    if ok:
                        value[i] = new
                elif isinstance(v, (dict, list)):
                    for m in _members(sub, defs):
                        stack.append((v, m))
    return args


_MISSING = object()


def _reread(schema: Any, defs: dict[str, Any]) -> bool:
    """Whether a nested ``{}`` (a ``nil``) is read again by the library's order of readings:
    where the schema wants no object, or wants one but also another reading (``null`` for
    gptel, ``false`` for llm) that :func:`.nilvalue.nested_ambiguities` reports first (PS615).
    A free-form value (``Any``) keeps ``{}``: from-py cannot warn about every one of those."""
    return not accepts(schema, "object", defs) or not is_any(_resolve(schema, defs))


def _members(schema: Any, defs: dict[str, Any]) -> list[Any]:
    schema = _resolve(schema, defs)
    if isinstance(schema, dict) and "anyOf" in schema:
        return [m for m in schema["anyOf"] if isinstance(m, dict) and m.get("type") != "null"]
    return [schema]


# --- to Python ----------------------------------------------------------------------------


class Converter:
    """Converts validated JSON to annotated Python values; ``matches`` decides union members."""

    def __init__(self, matches: Any) -> None:
        self.matches = matches  # (value, annotation) -> bool

    def convert(self, value: Any, tp: Any, where: str) -> Any:
        return _CONVERTERS.get(kind_of(tp), _same)(self, value, tp, where)


def _same(self: Converter, value: Any, tp: Any, where: str) -> Any:
    return value


def _annotated(self: Converter, value: Any, tp: Any, where: str) -> Any:
    return self.convert(value, tp.__origin__, where)


def _wrapper(self: Converter, value: Any, tp: Any, where: str) -> Any:
    args = typing.get_args(tp)
    return self.convert(value, args[0], where) if args else value


def _newtype(self: Converter, value: Any, tp: Any, where: str) -> Any:
    return self.convert(value, tp.__supertype__, where)


def _union(self: Converter, value: Any, tp: Any, where: str) -> Any:
    members = typing.get_args(tp)
    if value is None and type(None) in members:
        return None
    if isinstance(value, float):
        # JSON Schema's "integer" accepts 2.0 and 1e300, but a float the model sent stays a
        # float when the union has a float member (pydantic's smart mode does the same).
        members = sorted(members, key=lambda m: _is_int(m))
    for m in members:
        if m is type(None):
            continue
        if self.matches(value, m):
            return self.convert(value, m, where)
    return value


def _is_int(tp: Any) -> bool:
    while kind_of(tp) == "annotated":
        tp = tp.__origin__
    return kind_of(tp) == "int"


def _literal(self: Converter, value: Any, tp: Any, where: str) -> Any:
    for v in typing.get_args(tp):
        if isinstance(v, enum.Enum) and v.value == value:
            return v
    return value


def _enum(self: Converter, value: Any, tp: Any, where: str) -> Any:
    try:
        return tp(value)
    except ValueError:
        raise ConvertError(f"{where}: {value!r} is not one of {[m.value for m in tp]}") from None


def _float(self: Converter, value: Any, tp: Any, where: str) -> Any:
    return tp(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def _scalar(self: Converter, value: Any, tp: Any, where: str) -> Any:
    if not isinstance(tp, type) or type(value) is tp or isinstance(value, bool):
        return value
    if isinstance(value, float) and issubclass(tp, int) and value.is_integer():
        value = int(value)
    try:
        return tp(value) if type(value) is not tp and tp not in (int, str) else value
    except Exception:
        return value


def _parse(fn: Any, what: str) -> Any:
    def conv(self: Converter, value: Any, tp: Any, where: str) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return fn(tp, value)
        except (ValueError, TypeError, ArithmeticError):
            raise ConvertError(f"{where}: {value!r} is not {what}") from None

    return conv


def _iso_timedelta(tp: Any, text: str) -> Any:
    import datetime as dt
    import re

    m = re.fullmatch(
        r"(-)?P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?"
        r"(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?",
        text.strip(),
    )
    if not m or text.strip() in ("P", "-P", "PT", "-PT"):
        raise ValueError(text)
    sign, w, d, h, mi, s = m.groups()
    td = dt.timedelta(
        weeks=float(w or 0),
        days=float(d or 0),
        hours=float(h or 0),
        minutes=float(mi or 0),
        seconds=float(s or 0),
    )
    return -td if sign else td


def _timedelta(self: Converter, value: Any, tp: Any, where: str) -> Any:
    import datetime as dt

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return dt.timedelta(seconds=value)
    return _parse(_iso_timedelta, "an ISO 8601 duration (like PT1H30M)")(self, value, tp, where)


def _decimal(self: Converter, value: Any, tp: Any, where: str) -> Any:
    import decimal

    try:
        return tp(str(value))
    except decimal.InvalidOperation:
        raise ConvertError(f"{where}: {value!r} is not a decimal number") from None


def _bytes(self: Converter, value: Any, tp: Any, where: str) -> Any:
    return tp(value.encode("utf-8")) if isinstance(value, str) else value


def _list(self: Converter, value: Any, tp: Any, where: str) -> Any:
    if not isinstance(value, list):
        return value
    args = typing.get_args(tp)
    item = args[0] if args else typing.Any
    out = [self.convert(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
    origin = typing.get_origin(tp) or tp
    if (
        isinstance(origin, type)
        and origin is not list
        and not origin.__module__.startswith("collections.abc")
    ):
        try:
            return origin(out)
        except Exception:
            return out
    return out


def _set(self: Converter, value: Any, tp: Any, where: str) -> Any:
    if not isinstance(value, list):
        return value
    args = typing.get_args(tp)
    item = args[0] if args else typing.Any
    items = [self.convert(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
    origin = typing.get_origin(tp) or tp
    try:
        return frozenset(items) if origin is frozenset else set(items)
    except TypeError:
        raise ConvertError(f"{where}: the items cannot be put in a set (unhashable)") from None


def _tuple(self: Converter, value: Any, tp: Any, where: str) -> Any:
    if not isinstance(value, list):
        return value
    args = typing.get_args(tp)
    if not args or (len(args) == 2 and args[1] is Ellipsis):
        item = args[0] if args else typing.Any
        return tuple(self.convert(v, item, f"{where}[{i}]") for i, v in enumerate(value))
    return tuple(
        self.convert(v, a, f"{where}[{i}]")
        for i, (v, a) in enumerate(zip(value, args, strict=False))
    )


def _dict(self: Converter, value: Any, tp: Any, where: str) -> Any:
    if not isinstance(value, dict):
        return value
    args = typing.get_args(tp)
    if not args:
        return value
    kt, vt = args[0], args[1] if len(args) > 1 else typing.Any
    return {
        self.convert(k, kt, where): self.convert(v, vt, f"{where}.{k}") for k, v in value.items()
    }


def _hints(tp: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(tp, include_extras=True)
    except Exception:
        return {}


def _typeddict(self: Converter, value: Any, tp: Any, where: str) -> Any:
    if not isinstance(value, dict):
        return value
    hints = _hints(tp)
    return {k: self.convert(v, hints.get(k, typing.Any), f"{where}.{k}") for k, v in value.items()}


def _dataclass(self: Converter, value: Any, tp: Any, where: str) -> Any:
    if not isinstance(value, dict):
        return value
    import dataclasses

    from plistspec.pyfunc.schema import init_fields

    hints = _hints(tp)
    kwargs = {}
    for f in init_fields(tp):
        if f.name in value:
            ann = hints.get(f.name, typing.Any)
            if isinstance(ann, dataclasses.InitVar):
                ann = ann.type
            kwargs[f.name] = self.convert(value[f.name], ann, f"{where}.{f.name}")
    try:
        return tp(**kwargs)
    except Exception as e:
        raise ConvertError(f"{where}: cannot build {tp.__name__}: {e}") from None


def _namedtuple(self: Converter, value: Any, tp: Any, where: str) -> Any:
    if not isinstance(value, list):
        return value
    hints = _hints(tp)
    items = [
        self.convert(v, hints.get(n, typing.Any), f"{where}[{i}]")
        for i, (v, n) in enumerate(zip(value, tp._fields, strict=False))
    ]
    return tp(*items)


def _pydantic(self: Converter, value: Any, tp: Any, where: str) -> Any:
    try:
        return tp.model_validate(value)
    except Exception as e:
        first = str(e).split("\n")
        raise ConvertError(
            f"{where}: not a valid {tp.__name__}: {' '.join(first[1:3]).strip()}"
        ) from None


def _pydantic_type(self: Converter, value: Any, tp: Any, where: str) -> Any:
    try:
        from pydantic import TypeAdapter

        return TypeAdapter(tp).validate_python(value)
    except Exception as e:
        raise ConvertError(f"{where}: {e}") from None


def _generic_class(self: Converter, value: Any, tp: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    from plistspec.pyfunc.schema_kinds import class_kind

    return _CONVERTERS.get(class_kind(origin), _same)(self, value, origin, where)


def _iso(cls_name: str) -> Any:
    def fn(tp: Any, text: str) -> Any:
        if text.endswith("Z") and cls_name != "date":
            text = text[:-1] + "+00:00"
        return tp.fromisoformat(text)

    return fn


_CONVERTERS: dict[str, Any] = {
    "annotated": _annotated,
    "wrapper": _wrapper,
    "newtype": _newtype,
    "union": _union,
    "literal": _literal,
    "enum": _enum,
    "float": _float,
    "int": _scalar,
    "str": _scalar,
    "bytes": _bytes,
    "datetime": _parse(_iso("datetime"), "an ISO 8601 date-time"),
    "date": _parse(_iso("date"), "an ISO 8601 date (YYYY-MM-DD)"),
    "time": _parse(_iso("time"), "an ISO 8601 time (HH:MM[:SS])"),
    "timedelta": _timedelta,
    "uuid": _parse(lambda tp, t: tp(t), "a UUID"),
    "path": _parse(lambda tp, t: tp(t), "a path"),
    "decimal": _decimal,
    "list": _list,
    "set": _set,
    "tuple": _tuple,
    "dict": _dict,
    "typeddict": _typeddict,
    "dataclass": _dataclass,
    "namedtuple": _namedtuple,
    "pydantic": _pydantic,
    "pydantic_type": _pydantic_type,
    "generic_class": _generic_class,
}


def to_python(value: Any, tp: Any, where: str, matches: Any) -> Any:
    return Converter(matches).convert(value, tp, where)


# --- results -------------------------------------------------------------------------------


def _default(o: Any) -> Any:
    from plistspec.pyfunc.schema import is_dataclass_type, is_pydantic_model, to_json_value

    if isinstance(o, enum.Enum):
        return o.value
    if isinstance(o, (set, frozenset)):
        return list(o)
    if isinstance(o, (bytes, bytearray)):  # as a returned bytes is: never its repr b'...'
        return bytes(o).decode("utf-8", "replace")
    if inspect.isgenerator(o):  # a tool that yields its results: the list of them
        return list(o)
    if is_pydantic_model(type(o)):
        return o.model_dump(mode="json")
    if is_dataclass_type(type(o)):
        import dataclasses

        return dataclasses.asdict(o)
    try:
        return to_json_value(o)
    except Exception:
        return str(o)


def format_result(value: Any) -> str:
    """What the tool returns to the model: a string as it is, anything else as JSON.

    JSON has no NaN or infinity: those floats are written as the strings ``"NaN"``,
    ``"Infinity"`` and ``"-Infinity"``, so the text is always valid JSON and says what it was."""
    import json

    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    text = json.dumps(value, ensure_ascii=False, default=_default)
    if "NaN" in text or "Infinity" in text:
        text = _NONFINITE.sub(lambda m: m.group(1) or f'"{m.group(2)}"', text)
    return text


# a JSON string (kept as is) or a bare non-finite number token (quoted)
_NONFINITE = re.compile(r'("(?:[^"\\]|\\.)*")|(-?Infinity|NaN)')
