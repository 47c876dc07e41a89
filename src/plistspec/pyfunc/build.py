"""One Python callable → name, description and the root ``parameters`` schema (§1, §4, §5).

Owns: walking a signature (``self``/``cls`` dropped, ``*args`` as an optional array,
``**kwargs`` as root ``additionalProperties``, positional-only and keyword-only parameters as
ordinary properties, injected parameters skipped), class targets (``__init__`` minus ``self``;
dataclass fields with a closed root; pydantic model fields with an open root unless
``extra="forbid"``), description precedence (``Field`` > ``Annotated`` text > docments comment >
docstring) and the tool description (docstring without its sections).
"""

from __future__ import annotations

import inspect
import typing
from typing import Any

from plistspec.pyfunc.constraints import UNSET, field_default, is_field_info
from plistspec.pyfunc.docs import param_comments, split_docstring
from plistspec.pyfunc.errors import Context, PyFuncError
from plistspec.pyfunc.injected import framework_injected
from plistspec.pyfunc.schema import (
    MISSING,
    SchemaBuilder,
    is_dataclass_type,
    is_namedtuple,
    is_pydantic_model,
    is_typeddict,
    own_doc,
    resolve_hints,
)

__all__ = ["Built", "build", "INJECTED", "callable_parts"]

INJECTED = "plistspec:injected"
"""Put this string in ``Annotated[T, INJECTED]`` to keep a parameter out of the schema
(a framework object the caller supplies; the parameter needs a default)."""


class Built:
    """The result of :func:`build`."""

    __slots__ = (
        "name",
        "description",
        "parameters",
        "warnings",
        "is_async",
        "kind",
        "returns",
        "path",
        "line",
    )

    def __init__(self, name, description, parameters, warnings, is_async, kind, returns=None):
        self.name = name
        self.description = description
        self.parameters = parameters
        self.warnings = warnings
        self.is_async = is_async
        self.kind = kind
        self.returns = returns
        self.path: str | None = None  # the source file and line of the callable
        self.line = 0


def _location(obj: Any) -> tuple[str | None, int]:
    try:
        target = inspect.unwrap(obj)
        code = getattr(target, "__code__", None)
        if code is not None:
            return code.co_filename, code.co_firstlineno
        return inspect.getsourcefile(target), inspect.getsourcelines(target)[1]
    except (TypeError, OSError, ValueError):
        return None, 0


def callable_parts(obj: Any) -> tuple[str, Any]:
    """``(kind, function whose signature/annotations describe the call)``."""
    if isinstance(obj, type):
        if is_pydantic_model(obj):
            return "pydantic", obj
        if is_dataclass_type(obj):
            return "dataclass", obj
        if is_typeddict(obj):
            return "typeddict", obj
        if is_namedtuple(obj):
            return "namedtuple", obj
        init = obj.__init__ if obj.__init__ is not object.__init__ else obj.__new__
        return "class", init
    if inspect.isfunction(obj) or inspect.ismethod(obj) or inspect.isbuiltin(obj):
        return "function", obj
    func = getattr(obj, "func", None)
    if type(obj).__name__ == "partial" and callable(func):  # functools.partial
        return "partial", func
    if callable(obj):
        return "callable", type(obj).__call__.__get__(obj)
    return "none", obj


def build(
    obj: Any,
    name: str | None = None,
    *,
    strict_types: bool = False,
    lenient_defaults: bool = False,
    skip: typing.Iterable[str] = (),
) -> Built:
    """Describe ``obj`` as a tool; raises :class:`PyFuncError` for user mistakes."""
    kind, fn = callable_parts(obj)
    label = name or getattr(obj, "__name__", None) or "?"
    path, line = _location(fn if kind not in MODEL_KINDS else obj)
    ctx = Context(label, path, line)
    if kind == "none":
        raise ctx.error("PS604", "is not callable; name a function, class or method")
    if name is None:
        name = getattr(obj, "__name__", None)
        if not isinstance(name, str) or not name.isidentifier():
            raise ctx.error("PS604", "has no usable name (a lambda?); give the tool a name")
    builder = SchemaBuilder(ctx, strict_types=strict_types, lenient_defaults=lenient_defaults)
    if kind in MODEL_KINDS:
        built = _build_model(obj, name, kind, builder, ctx)
    else:
        built = _build_callable(obj, fn, name, kind, builder, ctx, set(skip))
    built.path, built.line = path, line
    return built


MODEL_KINDS = ("dataclass", "pydantic", "typeddict", "namedtuple")
"""Classes whose fields are the tool's parameters (called with keyword arguments)."""


def _build_model(obj: type, name: str, kind: str, builder: SchemaBuilder, ctx: Context) -> Built:
    if kind == "dataclass":
        schema = builder.dataclass_(obj, closed=True)
    elif kind == "typeddict":
        schema = builder.typeddict_(obj)
    elif kind == "namedtuple":
        schema = builder.namedtuple_fields(obj)
    else:
        schema = builder.pydantic_(obj)
    if "$ref" in schema:  # the tool's own class is recursive: its definition is the root
        schema = dict(builder.defs[schema["$ref"].rsplit("/", 1)[1]])
    if kind != "pydantic":  # like a constructor, these reject unknown keyword arguments
        schema["additionalProperties"] = False
    schema = dict(schema)
    desc = schema.pop("description", None) or ""
    root = _root(
        schema.get("properties", {}), schema.get("required", []), schema.get("additionalProperties")
    )
    if builder.defs:
        root["$defs"] = builder.ordered_defs()
    return Built(name, desc, root, ctx.warnings, False, kind)


def _root(props: dict[str, Any], required: list[str], additional: Any) -> dict[str, Any]:
    root: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        root["required"] = list(required)
    if additional is not None:
        root["additionalProperties"] = additional
    return root


def _is_injected(ann: Any, pname: str, skip: set[str]) -> bool:
    if pname in skip:
        return True
    meta = getattr(ann, "__metadata__", None)
    if meta and any(m == INJECTED for m in meta if isinstance(m, str)):
        return True
    t = ann if isinstance(ann, type) else None
    return t is not None and (t.__name__ in skip or f"{t.__module__}.{t.__qualname__}" in skip)


def _build_callable(
    obj: Any, fn: Any, name: str, kind: str, builder: SchemaBuilder, ctx: Context, skip: set[str]
) -> Built:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError) as e:
        raise ctx.error("PS604", f"has no inspectable signature ({e}); wrap it in a def") from None
    hint_source = inspect.unwrap(fn) if kind != "callable" else fn
    if kind == "partial":
        hint_source = _partial_target(fn)
    hints = resolve_hints(hint_source, ctx) if hasattr(hint_source, "__annotations__") else {}
    names = set(sig.parameters)
    if kind == "class":
        doc_text = own_doc(obj)
        fn_doc = None
        if fn is not object.__new__ and fn is not object.__init__:
            fn_doc = split_docstring(getattr(fn, "__doc__", None), names)
        doc = split_docstring(doc_text, names)
        if fn_doc is not None:
            doc.params = {**fn_doc.params, **doc.params}
            # a class with no docstring of its own: its __init__'s (written for this class)
            if not doc.description and doc_text is None:
                doc.description = fn_doc.description
    else:
        raw_doc = (
            obj.__call__.__doc__
            if kind == "callable"
            else getattr(hint_source if kind == "partial" else obj, "__doc__", None)
        )
        doc = split_docstring(raw_doc, names)
    comments = param_comments(hint_source) if kind != "callable" else param_comments(fn)
    params = list(sig.parameters.values())
    if (
        params
        and params[0].name in ("self", "cls")
        and params[0].annotation is inspect.Parameter.empty
        and params[0].kind in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD)
    ):
        params = params[1:]
    props: dict[str, Any] = {}
    required: list[str] = []
    additional: Any = False
    for p in params:
        ann = hints.get(p.name, MISSING)
        if p.annotation is inspect.Parameter.empty and p.name not in hints:
            ann = MISSING
        framework = framework_injected(ann) if ann is not MISSING else None
        if framework or _is_injected(ann, p.name, skip):
            if p.default is inspect.Parameter.empty and p.kind not in (
                p.VAR_POSITIONAL,
                p.VAR_KEYWORD,
            ):
                if framework:
                    raise ctx.error(
                        "PS612",
                        f"parameter '{p.name}' is {framework}, which its framework passes and "
                        "the model cannot: plistspec's bridge has none to give; make it optional "
                        f"(`{p.name}: ... | None = None`) to call the tool without it",
                    )
                raise ctx.error(
                    "PS612",
                    f"parameter '{p.name}' is injected (kept out of the schema) but has no default; "
                    "give it one so the tool can be called without it",
                )
            if framework and p.name not in skip:
                ctx.note(
                    "PS619",
                    f"parameter '{p.name}' is {framework}: kept out of the schema (the model "
                    "cannot send it); the call leaves it at its default",
                )
            continue
        ctx.where.append(f"parameter '{p.name}'")
        try:
            fallback = comments.get(p.name) or doc.params.get(p.name)
            if p.kind is p.VAR_KEYWORD:
                additional = _kwargs_schema(ann, builder, props, required)
                continue
            if p.kind is p.VAR_POSITIONAL:
                items = builder.schema(ann)
                s: dict[str, Any] = {"type": "array", "items": items}
                if fallback:
                    s["description"] = fallback
                props[p.name] = s
                continue
            default = UNSET if p.default is inspect.Parameter.empty else p.default
            s = builder.field_schema(ann, default, fallback)
            props[p.name] = s
            if default is UNSET or (
                is_field_info(default) and field_default(default) == (UNSET, False)
            ):
                required.append(p.name)
        finally:
            ctx.where.pop()
    names = {p.name for p in params}
    for documented in doc.params:
        if documented not in names:
            ctx.warn("PS611", f"the docstring documents '{documented}', which is not a parameter")
    root = _root(props, required, additional)
    if builder.defs:
        root["$defs"] = builder.ordered_defs()
    is_async = inspect.iscoroutinefunction(inspect.unwrap(fn)) if kind != "class" else False
    return Built(name, doc.description or "", root, ctx.warnings, is_async, kind, doc.returns)


def _partial_target(fn: Any) -> Any:
    """The function under (possibly nested) ``functools.partial`` objects."""
    while type(fn).__name__ == "partial" and callable(getattr(fn, "func", None)):
        fn = fn.func
    if inspect.ismethod(fn):
        fn = fn.__func__
    return inspect.unwrap(fn)


def _kwargs_schema(
    ann: Any, builder: SchemaBuilder, props: dict[str, Any], required: list[str]
) -> Any:
    """``**kwargs: V`` → ``additionalProperties: V``; ``**kwargs: Unpack[TD]`` → TD's keys."""
    if ann is MISSING:
        return True
    origin = typing.get_origin(ann)
    if origin is not None and getattr(origin, "_name", None) == "Unpack":
        td = typing.get_args(ann)[0]
        s = builder.schema(td)
        for k, v in s.get("properties", {}).items():
            props[k] = v
        required.extend(s.get("required", []))
        return False
    return builder.schema(ann)


def _unused() -> None:  # keep linters quiet about re-exported names
    _ = PyFuncError
