"""Python annotations → JSON Schema 2020-12 (``python-schema.md`` §2-§3).

Owns: :class:`SchemaBuilder`, one method per kind of annotation, chosen from one dispatch
table (:data:`HANDLERS`, in the style of pydantic's ``GenerateJsonSchema``): primitives,
unions, ``Literal``, ``Enum``, containers, tuples, ``TypedDict``, dataclasses, pydantic models,
``NamedTuple``, formats, ``Annotated`` constraints; defaults made JSON; recursion kept as
``$defs`` + ``$ref`` only for types on a cycle (everything else inlined); clear errors that name
the function, the parameter and the annotation. pydantic is never imported here: its objects
are recognised by duck typing (and used only when the user's code already imported it).
"""

from __future__ import annotations

import collections.abc as cabc
import enum
import sys
import types
import typing
from typing import Any

from plistspec.pyfunc.constraints import (
    UNSET,
    apply_constraints,
    constraints_of,
    field_default,
    is_doc,
    is_field_info,
    metadata_description,
)
from plistspec.pyfunc.errors import Context, type_name

__all__ = ["SchemaBuilder", "own_doc", "resolve_hints", "HANDLERS", "is_pydantic_model"]

NoneType = type(None)
_NO_JSON_HINT = "use a dataclass, TypedDict, pydantic model or a JSON type"


# --- class helpers ---------------------------------------------------------------------


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


def own_doc(cls: Any) -> str | None:
    """The class's own, explicitly written docstring (never an inherited or invented one)."""
    doc = getattr(cls, "__dict__", {}).get("__doc__")
    if not isinstance(doc, str) or not doc.strip():
        return None
    name = getattr(cls, "__name__", "")
    if is_dataclass_type(cls) and doc.startswith(name + "("):
        try:
            import inspect

            if doc == name + str(inspect.signature(cls)).replace(" -> None", ""):
                return None
        except (TypeError, ValueError):
            return None
    if is_namedtuple(cls) and doc.startswith(name + "(") and doc.endswith(")"):
        inner = doc[len(name) + 1 : -1].rstrip(",").strip()
        if inner == ", ".join(cls._fields):
            return None
    import inspect

    return inspect.cleandoc(doc)


def resolve_hints(obj: Any, ctx: Context, what: str = "parameter") -> dict[str, Any]:
    """``typing.get_type_hints(obj, include_extras=True)``; an unresolvable name is an error
    naming the member whose annotation failed."""
    try:
        return typing.get_type_hints(obj, include_extras=True)
    except Exception as e:  # NameError, TypeError, SyntaxError in a string annotation...
        raw = getattr(obj, "__annotations__", {}) or {}
        culprit = None
        resolved: dict[str, Any] = {}
        for k, v in raw.items():
            try:
                resolved.update(typing.get_type_hints(_Probe(obj, {k: v}), include_extras=True))
            except Exception:
                if k == "return":  # never reaches parameters: a TYPE_CHECKING-only name is fine
                    continue
                culprit = (k, v)
                break
        if culprit is None and "return" in raw and not isinstance(obj, type):
            return resolved
        msg = _unresolved_message(e)
        if culprit is None:
            raise ctx.error("PS605", f"cannot resolve annotations: {msg}") from None
        k, v = culprit
        ann = v if isinstance(v, str) else type_name(v)
        who = "return annotation" if k == "return" else f"{what} '{k}'"
        raise ctx.error(
            "PS605",
            f"{who}: cannot resolve annotation '{ann}': {msg}; import or define it in the module",
        ) from None


def _unresolved_message(e: Exception) -> str:
    if isinstance(e, NameError):
        name = getattr(e, "name", None)
        return f"name '{name}' is not defined" if name else str(e)
    return f"{type(e).__name__}: {e}"


class _Probe:
    """Something with one annotation and the globals of ``obj``, for :func:`resolve_hints`."""

    def __init__(self, obj: Any, ann: dict[str, Any]) -> None:
        self.__annotations__ = ann
        self.__globals__ = getattr(obj, "__globals__", None) or vars(
            sys.modules.get(getattr(obj, "__module__", ""), types.ModuleType("x"))
        )

    def __call__(self) -> None:  # get_type_hints treats callables like functions
        pass


# --- dispatch --------------------------------------------------------------------------

# Iterable[T] is data a model can send (a list is one); Iterator/Generator are not (below)
_ARRAY_ORIGINS = {list, cabc.Sequence, cabc.MutableSequence, cabc.Collection, cabc.Iterable}
_SET_ORIGINS = {set, frozenset, cabc.Set, cabc.MutableSet}
_MAP_ORIGINS = {dict, cabc.Mapping, cabc.MutableMapping}
_REFUSED_ORIGINS = {
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


_FORMS_CACHE: dict[bool, dict[Any, str]] = {}


def _special_forms() -> dict[Any, str]:
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


def kind_of(tp: Any) -> str:
    """The dispatch key of an annotation (a key of :data:`HANDLERS`)."""
    if tp is typing.Any or tp is object or tp is _MISSING:
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
        special = _special_forms().get(origin)
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
        if origin in _REFUSED_ORIGINS or origin is type:
            return "refused"
        if isinstance(origin, type):
            ck = _class_kind(origin)
            return ck if ck in ("list", "set", "dict", "tuple", "refused") else "generic_class"
        return "unknown"
    if getattr(tp, "__name__", None) == "LiteralString":
        return "str"
    if not isinstance(tp, type):
        return "unknown"
    return _class_kind(tp)


def _class_kind(tp: type) -> str:
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
    if tp in _REFUSED_ORIGINS or issubclass(tp, (cabc.Iterator, cabc.Callable)):
        return "refused"
    if "pydantic" in sys.modules and (
        hasattr(tp, "__get_pydantic_core_schema__") or mod.startswith("pydantic")
    ):
        return "pydantic_type"
    return "unknown"


# --- the builder -----------------------------------------------------------------------


class SchemaBuilder:
    """Turns annotations into schemas for one tool; ``defs`` collects recursive definitions."""

    def __init__(self, ctx: Context, *, strict_types: bool = False, lenient_defaults: bool = False):
        self.ctx = ctx
        self.strict_types = strict_types
        self.lenient_defaults = lenient_defaults
        self.defs: dict[str, dict[str, Any]] = {}
        self._stack: list[Any] = []
        self._recursive: set[Any] = set()
        self._names: dict[Any, str] = {}
        self._typevars: list[dict[Any, Any]] = []

    # entry point
    def schema(self, tp: Any) -> dict[str, Any]:
        try:
            return HANDLERS[kind_of(tp)](self, tp)
        except RecursionError:
            raise self.ctx.error(
                "PS606", f"annotation '{type_name(tp)}' is nested too deeply to map"
            ) from None

    # --- scalars
    def any_(self, tp: Any) -> dict[str, Any]:
        what = "has no annotation" if tp is _MISSING else f"is annotated '{type_name(tp)}'"
        msg = f"{what}: any JSON value is accepted; annotate it with a precise type"
        if self.strict_types:
            raise self.ctx.error("PS610", msg)
        self.ctx.warn("PS610", msg)
        return {}

    def none(self, tp: Any) -> dict[str, Any]:
        return {"type": "null"}

    def bool_(self, tp: Any) -> dict[str, Any]:
        return {"type": "boolean"}

    def int_(self, tp: Any) -> dict[str, Any]:
        return {"type": "integer"}

    def float_(self, tp: Any) -> dict[str, Any]:
        return {"type": "number"}

    def str_(self, tp: Any) -> dict[str, Any]:
        return {"type": "string"}

    def bytes_(self, tp: Any) -> dict[str, Any]:
        return {"type": "string", "format": "binary"}

    def _format(fmt: str):  # type: ignore[misc]
        def handler(self: SchemaBuilder, tp: Any) -> dict[str, Any]:
            return {"type": "string", "format": fmt}

        return handler

    datetime_ = _format("date-time")
    date_ = _format("date")
    time_ = _format("time")
    timedelta_ = _format("duration")
    uuid_ = _format("uuid")
    path_ = _format("path")

    def decimal_(self, tp: Any) -> dict[str, Any]:
        return {"anyOf": [{"type": "number"}, {"type": "string"}]}

    # --- typing forms
    def union(self, tp: Any) -> dict[str, Any]:
        members: list[dict[str, Any]] = []
        for arg in typing.get_args(tp):
            s = self.schema(arg)
            if s not in members:
                members.append(s)
        if len(members) == 1:
            return members[0]
        return {"anyOf": members}

    def literal(self, tp: Any) -> dict[str, Any]:
        values = []
        for v in _flatten_literal(tp):
            if isinstance(v, enum.Enum):
                v = v.value
            if not _is_json_scalar(v):
                raise self.ctx.error(
                    "PS609",
                    f"Literal value {v!r} is not a JSON scalar; use strings, numbers, booleans or None",
                )
            if not any(v == w and type(v) is type(w) for w in values):
                values.append(v)
        return _enum_schema(values)

    def annotated(self, tp: Any) -> dict[str, Any]:
        base = tp.__origin__
        meta = tp.__metadata__
        schema = dict(self.schema(base))
        desc = metadata_description(meta)
        cons: dict[str, Any] = {}
        for m in meta:
            cons.update(constraints_of(m))
        apply_constraints(schema, cons, self.json_value)
        for m in meta:
            if is_field_info(m):
                self._apply_field_info(schema, m)
            elif isinstance(m, dict) and m.get("__plistspec__") == "json_schema":
                schema.update({k: v for k, v in m.items() if k != "__plistspec__"})
        if desc is not None:
            schema["description"] = desc
        return schema

    def _apply_field_info(self, schema: dict[str, Any], fi: Any) -> None:
        if getattr(fi, "title", None) is not None:
            schema["title"] = fi.title
        if getattr(fi, "description", None) is not None:
            schema["description"] = fi.description
        examples = getattr(fi, "examples", None)
        if examples is not None:
            schema["examples"] = self.json_value(list(examples))
        if getattr(fi, "deprecated", None):
            schema["deprecated"] = True
        extra = getattr(fi, "json_schema_extra", None)
        if isinstance(extra, dict):
            schema.update(self.json_value(extra))

    def wrapper(self, tp: Any) -> dict[str, Any]:
        args = typing.get_args(tp)
        return self.schema(args[0]) if args else self.any_(typing.Any)

    def newtype(self, tp: Any) -> dict[str, Any]:
        return self.schema(tp.__supertype__)

    def forward(self, tp: Any) -> dict[str, Any]:
        name = tp if isinstance(tp, str) else tp.__forward_arg__
        raise self.ctx.error(
            "PS605", f"cannot resolve annotation '{name}'; import or define it in the module"
        )

    def typevar(self, tp: Any) -> dict[str, Any]:
        for mapping in reversed(self._typevars):
            if tp in mapping:
                return self.schema(mapping[tp])
        if tp.__bound__ is not None:
            return self.schema(tp.__bound__)
        if tp.__constraints__:
            return self.union(typing.Union.__getitem__(tp.__constraints__))
        raise self.ctx.error(
            "PS606",
            f"cannot map the unbound type variable '{tp.__name__}' to JSON Schema; "
            "give it a bound or use a concrete type",
        )

    # --- containers
    def list_(self, tp: Any) -> dict[str, Any]:
        args = typing.get_args(tp)
        return {"type": "array", "items": self.schema(args[0]) if args else {}}

    def set_(self, tp: Any) -> dict[str, Any]:
        args = typing.get_args(tp)
        return {"type": "array", "items": self.schema(args[0]) if args else {}, "uniqueItems": True}

    def tuple_(self, tp: Any) -> dict[str, Any]:
        args = typing.get_args(tp)
        if tp is tuple or (not args and getattr(tp, "_name", None) == "Tuple"):
            return {"type": "array", "items": {}}
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": self.schema(args[0])}
        if args == ((),):
            args = ()
        items = [self.schema(a) for a in args]
        if not items:  # tuple[()]: prefixItems must not be empty
            return {"type": "array", "minItems": 0, "maxItems": 0}
        return {
            "type": "array",
            "prefixItems": items,
            "minItems": len(items),
            "maxItems": len(items),
        }

    def dict_(self, tp: Any) -> dict[str, Any]:
        args = typing.get_args(tp)
        if not args:
            return {"type": "object", "additionalProperties": True}
        key, value = args[0], args[1] if len(args) > 1 else typing.Any
        if len(args) == 1 and getattr(typing.get_origin(tp), "__name__", "") == "Counter":
            value = int
        out: dict[str, Any] = {"type": "object"}
        names = self._key_schema(key)
        out["additionalProperties"] = self.schema(value)
        if names is not None:
            out["propertyNames"] = names
        return out

    def _key_schema(self, key: Any) -> dict[str, Any] | None:
        """``propertyNames`` for a dict key type: None for ``str``; the key type's own schema
        for a str ``Enum``/``Literal`` (so the allowed keys reach the model); else an error."""
        k = kind_of(key)
        if k in ("str", "any"):
            return None
        if k == "annotated":
            return self._key_schema(key.__origin__)
        if k == "newtype":
            return self._key_schema(key.__supertype__)
        if k == "enum" and all(isinstance(m.value, str) for m in key):
            return self.schema(key)
        if k == "literal":
            vals = [v.value if isinstance(v, enum.Enum) else v for v in _flatten_literal(key)]
            if all(isinstance(v, str) for v in vals):
                return self.schema(key)
        raise self.ctx.error(
            "PS607",
            f"dict key type '{type_name(key)}' is not str: JSON object keys are strings; "
            "use dict[str, ...] (or a str Enum/Literal key)",
        )

    # --- classes
    def enum_(self, tp: Any) -> dict[str, Any]:
        values = []
        for member in tp:
            v = member.value
            if not _is_json_scalar(v):
                raise self.ctx.error(
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

    def generic_class(self, tp: Any) -> dict[str, Any]:
        origin = typing.get_origin(tp)
        params = getattr(origin, "__parameters__", ())
        self._typevars.append(dict(zip(params, typing.get_args(tp), strict=False)))
        try:
            return HANDLERS[_class_kind(origin)](self, origin)
        finally:
            self._typevars.pop()

    def _named(self, tp: Any, build: Any) -> dict[str, Any]:
        """Inline ``build(tp)`` unless ``tp`` sits on a cycle: then ``$defs`` + ``$ref``."""
        if tp in self._names and tp in self._recursive and tp not in self._stack:
            return {"$ref": "#/$defs/" + self._names[tp]}
        if tp in self._stack:
            i = self._stack.index(tp)
            self._recursive.update(self._stack[i:])
            return {"$ref": "#/$defs/" + self._def_name(tp)}
        self._stack.append(tp)
        try:
            schema = build(tp)
        finally:
            self._stack.pop()
        if tp in self._recursive:
            name = self._def_name(tp)
            self.defs[name] = schema
            return {"$ref": "#/$defs/" + name}
        return schema

    def ordered_defs(self) -> dict[str, dict[str, Any]]:
        """``defs`` in the order their names were first needed (the outermost first)."""
        order = {name: i for i, name in enumerate(self._names.values())}
        return {k: self.defs[k] for k in sorted(self.defs, key=lambda k: order.get(k, len(order)))}

    def _def_name(self, tp: Any) -> str:
        name = self._names.get(tp)
        if name is None:
            base = getattr(tp, "__name__", "Def")
            name, n = base, 2
            taken = set(self._names.values())
            while name in taken:
                name, n = f"{base}{n}", n + 1
            self._names[tp] = name
        return name

    def _hints(self, tp: Any) -> dict[str, Any]:
        self.ctx.where.append(f"class {tp.__name__}")
        try:
            return resolve_hints(tp, self.ctx, "field")
        finally:
            self.ctx.where.pop()

    def _object(
        self,
        tp: Any,
        fields: list[tuple[str, Any, Any, bool, str | None]],
        closed: bool,
    ) -> dict[str, Any]:
        """An object schema from ``(name, annotation, default, required, comment)`` fields."""
        from plistspec.pyfunc.docs import class_comments, split_docstring

        comments = class_comments(tp)
        doc = split_docstring(own_doc(tp), {f[0] for f in fields})
        props: dict[str, Any] = {}
        required: list[str] = []
        for name, ann, default, req, extra_desc in fields:
            self.ctx.where.append(f"field '{name}' of {tp.__name__}")
            try:
                fallback = extra_desc or comments.get(name) or doc.params.get(name)
                s = self.field_schema(ann, default, fallback)
            finally:
                self.ctx.where.pop()
            props[name] = s
            if req:
                required.append(name)
        out: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            out["required"] = required
        if closed:
            out["additionalProperties"] = False
        if doc.description:
            out["description"] = doc.description
        return out

    def field_schema(self, ann: Any, default: Any, fallback_desc: str | None) -> dict[str, Any]:
        """Schema of one parameter/field: annotation, ``Field`` default, description, default."""
        has_factory = False
        if is_field_info(default):
            fi = default
            default, has_factory = field_default(fi)
            ann = (
                typing.Annotated[ann, fi]
                if ann is not _MISSING
                else typing.Annotated[typing.Any, fi]
            )
        schema = dict(self.schema(ann))
        explicit = _explicit_description(ann)
        desc = explicit if explicit is not None else fallback_desc
        if desc is not None:
            schema["description"] = desc
        if default is not UNSET and not has_factory:
            ok, value = self.try_json_value(default)
            if ok:
                schema["default"] = value
            elif self.lenient_defaults:
                self.ctx.warn("PS608", f"default {_short_repr(default)} is not JSON; not published")
            else:
                raise self.ctx.error(
                    "PS608",
                    f"default value {_short_repr(default)} cannot be written as JSON; use a JSON "
                    "value (or None) as the default, or --lenient-defaults to leave it out",
                )
        return schema

    def typeddict_(self, tp: Any) -> dict[str, Any]:
        def build(tp: Any) -> dict[str, Any]:
            hints = self._hints(tp)
            req_keys = set(getattr(tp, "__required_keys__", ()))
            fields = []
            for name, ann in hints.items():
                req = name in req_keys
                inner = ann
                while True:
                    origin = typing.get_origin(inner)
                    kind = _special_forms().get(origin) if origin is not None else None
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
                        if bo is not None and _special_forms().get(bo) == "wrapper":
                            oname = getattr(bo, "_name", None) or repr(bo)
                            req = "NotRequired" not in oname
                        break
                    else:
                        break
                fields.append((name, ann, UNSET, req, None))
            return self._object(tp, fields, closed=False)

        return self._named(tp, build)

    def dataclass_(self, tp: Any, closed: bool = False) -> dict[str, Any]:
        def build(tp: Any) -> dict[str, Any]:
            import dataclasses

            hints = self._hints(tp)
            fields = []
            for f in init_fields(tp):
                default = f.default
                has_factory = f.default_factory is not dataclasses.MISSING
                if default is dataclasses.MISSING:
                    default = UNSET
                req = default is UNSET and not has_factory
                if is_field_info(default):
                    req = field_default(default) == (UNSET, False)
                desc = f.metadata.get("description") if f.metadata else None
                ann = hints.get(f.name, _MISSING)
                if isinstance(ann, dataclasses.InitVar):
                    ann = ann.type
                fields.append((f.name, ann, default, req, desc))
            return self._object(tp, fields, closed=closed)

        return self._named(tp, build)

    def namedtuple_(self, tp: Any) -> dict[str, Any]:
        def build(tp: Any) -> dict[str, Any]:
            hints = self._hints(tp)
            items = []
            for name in tp._fields:
                self.ctx.where.append(f"field '{name}' of {tp.__name__}")
                try:
                    items.append(self.schema(hints.get(name, _MISSING)))
                finally:
                    self.ctx.where.pop()
            out: dict[str, Any] = {
                "type": "array",
                "prefixItems": items,
                "minItems": len(items) - len(getattr(tp, "_field_defaults", {})),
                "maxItems": len(items),
            }
            doc = own_doc(tp)
            if doc:
                out["description"] = doc
            return out

        return self._named(tp, build)

    def namedtuple_fields(self, tp: Any) -> dict[str, Any]:
        """A NamedTuple class as a tool: its fields as an object (it is called with keywords)."""
        hints = self._hints(tp)
        defaults = getattr(tp, "_field_defaults", {})
        fields = [
            (n, hints.get(n, _MISSING), defaults.get(n, UNSET), n not in defaults, None)
            for n in tp._fields
        ]
        return self._object(tp, fields, closed=True)

    def pydantic_(self, tp: Any, root: bool = False) -> dict[str, Any]:
        def build(tp: Any) -> dict[str, Any]:
            fields = []
            for name, fi in tp.model_fields.items():
                alias = fi.validation_alias if isinstance(fi.validation_alias, str) else fi.alias
                default, has_factory = field_default(fi)
                ann = fi.annotation
                if fi.metadata or fi.description is not None or fi.title is not None:
                    ann = typing.Annotated[ann, fi]
                req = fi.is_required()
                fields.append(
                    (alias or name, ann, default if not has_factory else UNSET, req, None)
                )
            closed = tp.model_config.get("extra") == "forbid"
            return self._object(tp, fields, closed=closed)

        return self._named(tp, build)

    def pydantic_type(self, tp: Any) -> dict[str, Any]:
        try:
            from pydantic import TypeAdapter

            raw = TypeAdapter(tp).json_schema()
        except Exception:
            return self.unknown(tp)
        return _normalise_pydantic(raw)

    # --- refusals
    def refused(self, tp: Any) -> dict[str, Any]:
        origin = typing.get_origin(tp) or tp
        what = _REFUSED_ORIGINS.get(origin)
        if what is None and isinstance(origin, type):
            what = next((w for o, w in _REFUSED_ORIGINS.items() if _subclass(origin, o)), None)
        what, hint = _refusal(origin, what)
        raise self.ctx.error(
            "PS606", f"cannot map annotation '{type_name(tp)}' ({what}) to JSON Schema; {hint}"
        )

    def unknown(self, tp: Any) -> dict[str, Any]:
        what, hint = _refusal(typing.get_origin(tp) or tp, None)
        kind = f" ({what})" if what else ""
        raise self.ctx.error(
            "PS606", f"cannot map annotation '{type_name(tp)}'{kind} to JSON Schema; {hint}"
        )

    # --- values
    def try_json_value(self, v: Any) -> tuple[bool, Any]:
        try:
            return True, self.json_value(v)
        except _NotJson:
            return False, None

    def json_value(self, v: Any) -> Any:
        return to_json_value(v)


class _Missing:
    def __repr__(self) -> str:
        return "<no annotation>"


_MISSING: Any = _Missing()


class _NotJson(Exception):
    pass


def to_json_value(v: Any) -> Any:
    """A Python default/constant as JSON (raises :class:`_NotJson` when it has no JSON form)."""
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
        raise _NotJson(v)
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
                raise _NotJson(v)
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
            raise _NotJson(v) from None
    t = type(v)
    if t.__module__ in ("uuid", "decimal") or t.__module__.startswith("pathlib"):
        return str(v)
    if is_dataclass_type(t):
        import dataclasses

        return {f.name: to_json_value(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if is_pydantic_model(t):
        return v.model_dump(mode="json", by_alias=True)
    raise _NotJson(v)


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


def _subclass(a: Any, b: Any) -> bool:
    try:
        return isinstance(b, type) and issubclass(a, b)
    except TypeError:
        return False


def _refusal(origin: Any, what: str | None) -> tuple[str | None, str]:
    """``(what the annotation is, what to write instead)`` for an annotation with no JSON form."""
    import io

    name = getattr(origin, "__name__", "")
    mod = getattr(origin, "__module__", "") or ""
    if name in ("IO", "TextIO", "BinaryIO") or _subclass(origin, io.IOBase):
        return "a file handle", "a model can only send data: take a path (str or Path) and open it"
    if what == "a callable" or origin is cabc.Callable:
        return (
            "a callable",
            "a model can only send data: take a name (str, Literal or Enum) and look the "
            "function up",
        )
    if name == "Pattern" and mod in ("re", "typing"):
        return "a compiled regex", "take the pattern as a str and compile it"
    if what and what.startswith("a class object"):
        return what, "take the class name as a str, Literal or Enum"
    if what and ("iter" in what or "generator" in what):
        return what, "take a list[...] instead"
    return what, _NO_JSON_HINT


def _short_repr(v: Any) -> str:
    import inspect

    if inspect.isroutine(v) or isinstance(v, type):
        name = getattr(v, "__qualname__", None) or getattr(v, "__name__", "?")
        return f"{name} (a {'class' if isinstance(v, type) else 'function'})"
    r = repr(v)
    if " at 0x" in r and r.startswith("<"):
        r = "object()" if type(v) is object else f"an instance of {type(v).__name__}"
    return r if len(r) <= 60 else r[:57] + "..."


def _is_json_scalar(v: Any) -> bool:
    import math

    if isinstance(v, float):
        return math.isfinite(v)
    return v is None or isinstance(v, (bool, int, str))


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    return "string"


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    kinds = {_json_type(v) for v in values}
    if len(kinds) == 1:
        return {"type": kinds.pop(), "enum": values}
    return {"enum": values}


def _flatten_literal(tp: Any) -> list[Any]:
    out = []
    for a in typing.get_args(tp):
        if (
            typing.get_origin(a) is not None
            and _special_forms().get(typing.get_origin(a)) == "literal"
        ):
            out.extend(_flatten_literal(a))
        else:
            out.append(a)
    return out


def _explicit_description(ann: Any) -> str | None:
    """Field(description)/Annotated string of a top-level ``Annotated`` annotation."""
    if hasattr(ann, "__metadata__") and hasattr(ann, "__origin__"):
        return metadata_description(ann.__metadata__)
    return None


def _normalise_pydantic(raw: dict[str, Any]) -> dict[str, Any]:
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


HANDLERS: dict[str, Any] = {
    "any": SchemaBuilder.any_,
    "none": SchemaBuilder.none,
    "bool": SchemaBuilder.bool_,
    "int": SchemaBuilder.int_,
    "float": SchemaBuilder.float_,
    "str": SchemaBuilder.str_,
    "bytes": SchemaBuilder.bytes_,
    "datetime": SchemaBuilder.datetime_,
    "date": SchemaBuilder.date_,
    "time": SchemaBuilder.time_,
    "timedelta": SchemaBuilder.timedelta_,
    "uuid": SchemaBuilder.uuid_,
    "path": SchemaBuilder.path_,
    "decimal": SchemaBuilder.decimal_,
    "union": SchemaBuilder.union,
    "literal": SchemaBuilder.literal,
    "annotated": SchemaBuilder.annotated,
    "wrapper": SchemaBuilder.wrapper,
    "newtype": SchemaBuilder.newtype,
    "forward": SchemaBuilder.forward,
    "typevar": SchemaBuilder.typevar,
    "list": SchemaBuilder.list_,
    "set": SchemaBuilder.set_,
    "tuple": SchemaBuilder.tuple_,
    "dict": SchemaBuilder.dict_,
    "enum": SchemaBuilder.enum_,
    "typeddict": SchemaBuilder.typeddict_,
    "dataclass": SchemaBuilder.dataclass_,
    "namedtuple": SchemaBuilder.namedtuple_,
    "pydantic": SchemaBuilder.pydantic_,
    "pydantic_type": SchemaBuilder.pydantic_type,
    "generic_class": SchemaBuilder.generic_class,
    "refused": SchemaBuilder.refused,
    "unknown": SchemaBuilder.unknown,
}

# used by other modules of the package
MISSING = _MISSING
NotJson = _NotJson
_ = is_doc
