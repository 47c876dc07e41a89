"""``plistspec call``: JSON arguments → a validated Python call → the text the tool returns.

Owns: :func:`call`, the other half of the ``:function`` lambdas ``from-py`` writes. It
imports the target, rebuilds the very schema the model saw (:mod:`plistspec.pyfunc.build`),
repairs what Elisp's ``nil`` did to the arguments (``--from gptel``/``llm``, see
:func:`plistspec.pyfunc.convert.repair`), validates them with ``jsonschema`` (Draft 2020-12),
converts them to the annotated types, calls the function (awaiting a coroutine) and returns
``(exit_code, text)``.

Error text convention (what the Elisp lambda hands back to the model as the tool result):
one line starting with ``Error:`` that names the function and the argument and says what was
wrong, e.g. ``Error: invalid arguments for greet(): 'name': 3 is not of type 'string'`` or
``Error: greet() raised ValueError: no such city``. Exit codes: 0 success, 1 the function
raised, 2 invalid arguments, 3 the tool could not be loaded.
"""

from __future__ import annotations

import inspect
import json
import re
from typing import Any

__all__ = [
    "call",
    "run",
    "load_tool",
    "Loaded",
    "CallResult",
    "OK",
    "RAISED",
    "INVALID",
    "UNLOADABLE",
]

OK, RAISED, INVALID, UNLOADABLE = 0, 1, 2, 3

_SURROGATE = re.compile("[\ud800-\udfff]")
_NEWLINES = re.compile(r"\s*[\r\n\u2028\u2029]+\s*")


class CallResult:
    __slots__ = ("code", "text")

    def __init__(self, code: int, text: str) -> None:
        self.code = code
        self.text = text

    def __iter__(self):
        return iter((self.code, self.text))


# what call needs after the user's module is imported (see pyfunc.target.import_module)
CALL_PRELOAD = (
    "jsonschema",
    "plistspec.pyfunc.build",
    "plistspec.pyfunc.convert",
    "plistspec.pyfunc.schema",
)


def _load(target_text: str, cwd: str | None) -> tuple[Any, Any, str]:
    from plistspec.pyfunc.errors import PyFuncError
    from plistspec.pyfunc.target import load, parse_target

    t = parse_target(target_text)
    if t.qualname is None:
        raise PyFuncError("PS603", f"'{target_text}' names a module; call needs module:function")
    _module, found = load(t, cwd, preload=CALL_PRELOAD)
    qualname, obj, owner = found[0]
    return obj, owner, qualname.rsplit(".", 1)[-1]


def _bound(obj: Any, owner: Any) -> Any:
    """An instance method named as ``Class.method`` is called on ``Class()``."""
    if isinstance(owner, type) and inspect.isfunction(obj):
        for klass in owner.__mro__:
            if obj.__name__ in klass.__dict__:
                raw = klass.__dict__[obj.__name__]
                if isinstance(raw, (staticmethod, classmethod)):
                    return obj
                return getattr(owner(), obj.__name__)
    return obj


def _describe_error(err: Any) -> str:
    path = list(err.absolute_path)
    where = ""
    if path:
        where = f"'{path[0]}'" + "".join(
            f"[{p}]" if isinstance(p, int) else f".{p}" for p in path[1:]
        )
    v = err.validator
    if v == "required":
        return (
            err.message.replace(" is a required property", "")
            + " is required but missing"
            + (f" in {where}" if where else "")
        )
    if v in ("additionalProperties", "unevaluatedProperties") and not path:
        return err.message.replace("Additional properties are not allowed", "unknown argument(s)")
    return f"{where}: {err.message}" if where else err.message


def _validate(args: Any, validator: Any) -> list[str]:
    errors = sorted(
        validator.iter_errors(args), key=lambda e: (len(e.absolute_path), str(e.absolute_path))
    )
    return [_describe_error(e) for e in errors[:3]]


def _matcher(builder: Any) -> Any:
    from jsonschema import Draft202012Validator

    cache: dict[int, Any] = {}

    def matches(value: Any, tp: Any) -> bool:
        key = id(tp)
        v = cache.get(key)
        if v is None:
            try:
                schema = dict(builder.schema(tp))
            except Exception:
                return True
            if builder.defs:
                schema["$defs"] = builder.defs
            v = cache[key] = Draft202012Validator(schema)
        return v.is_valid(value)

    return matches


MODEL_KINDS = ("dataclass", "pydantic", "typeddict", "namedtuple")  # as in pyfunc.build


class Loaded:
    """A tool ready to be called: the object, its owner, its name and its schema."""

    __slots__ = ("obj", "owner", "name", "build", "validator", "matcher")

    def __init__(self, obj: Any, owner: Any, name: str, b: Any) -> None:
        self.obj, self.owner, self.name, self.build = obj, owner, name, b
        self.validator: Any = None
        self.matcher: Any = None


def load_tool(target: str, cwd: str | None = None) -> Loaded | CallResult:
    """Import ``target`` and rebuild its schema, or the ``Error:`` result saying why not."""
    from plistspec.pyfunc.build import build
    from plistspec.pyfunc.errors import PyFuncError

    try:
        obj, owner, name = _load(target, cwd)
        return Loaded(obj, owner, name, build(obj, name))
    except PyFuncError as e:
        return CallResult(UNLOADABLE, f"Error: the tool {target} cannot be loaded: {e.message}")
    except (Exception, SystemExit) as e:
        return CallResult(
            UNLOADABLE, f"Error: the tool {target} cannot be loaded: {type(e).__name__}: {e}"
        )


def call(
    target: str, args_text: str, *, from_elisp: str | None = None, cwd: str | None = None
) -> CallResult:
    """Run the tool ``target`` with the JSON object ``args_text``; never raises."""
    tool = load_tool(target, cwd)
    if isinstance(tool, CallResult):
        return _clean(tool)
    return run(tool, args_text, from_elisp=from_elisp)


def run(tool: Loaded, args_text: str, *, from_elisp: str | None = None) -> CallResult:
    """Call a loaded tool with the JSON object ``args_text``; never raises."""
    try:
        return _clean(_run(tool, args_text, from_elisp))
    except RecursionError:
        return _clean(
            CallResult(INVALID, f"Error: invalid arguments for {tool.name}(): nested too deeply")
        )


def _clean(r: CallResult) -> CallResult:
    """One line for an error; lone surrogates (which no UTF-8 can hold) as U+FFFD."""
    text = _SURROGATE.sub("\ufffd", r.text)
    if r.code != OK:
        text = _NEWLINES.sub(" ", text).strip()
    return CallResult(r.code, text)


def _run(tool: Loaded, args_text: str, from_elisp: str | None) -> CallResult:
    b = tool.build
    label = f"{tool.name}()"
    try:
        args = json.loads(args_text) if args_text.strip() else {}
    except RecursionError:
        return CallResult(INVALID, f"Error: invalid arguments for {label}: nested too deeply")
    except ValueError as e:
        return CallResult(INVALID, f"Error: invalid arguments for {label}: not JSON ({e})")
    if not isinstance(args, dict):
        return CallResult(INVALID, f"Error: invalid arguments for {label}: expected a JSON object")
    if from_elisp:
        from plistspec.pyfunc.convert import repair

        args = repair(args, b.parameters, from_elisp)
    if tool.validator is None:
        from jsonschema import Draft202012Validator

        tool.validator = Draft202012Validator(b.parameters)
    problems = _validate(args, tool.validator)
    if problems:
        return CallResult(INVALID, f"Error: invalid arguments for {label}: " + "; ".join(problems))
    try:
        fn = _bound(tool.obj, tool.owner)
        posargs, kwargs = _arguments(fn, tool, args)
        if b.kind in MODEL_KINDS:
            fn = _identity
    except _ArgError as e:
        return CallResult(INVALID, f"Error: invalid arguments for {label}: {e}")
    except Exception as e:  # building the instance for a method
        return CallResult(RAISED, f"Error: {label} could not be prepared: {type(e).__name__}: {e}")
    try:
        result = fn(*posargs, **kwargs)
        if inspect.isawaitable(result):
            import asyncio

            result = asyncio.run(_await(result))
    except SystemExit as e:
        return CallResult(RAISED, f"Error: {label} exited (sys.exit({e.code!r}))")
    except Exception as e:
        return CallResult(RAISED, f"Error: {label} raised {type(e).__name__}: {e}")
    from plistspec.pyfunc.convert import format_result

    try:
        return CallResult(OK, format_result(result))
    except Exception as e:
        return CallResult(RAISED, f"Error: the result of {label} cannot be written: {e}")


def _identity(value: Any) -> Any:
    return value


async def _await(aw: Any) -> Any:
    return await aw


class _ArgError(Exception):
    pass


def _arguments(fn: Any, tool: Loaded, args: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Positional and keyword arguments for ``fn`` from validated JSON ``args``."""
    import typing

    from plistspec.pyfunc.build import callable_parts
    from plistspec.pyfunc.constraints import UNSET, field_default, is_field_info
    from plistspec.pyfunc.convert import ConvertError, to_python
    from plistspec.pyfunc.errors import Context
    from plistspec.pyfunc.schema import SchemaBuilder

    obj, b = tool.obj, tool.build
    kind, hint_fn = callable_parts(obj)
    if tool.matcher is None:
        tool.matcher = _matcher(SchemaBuilder(Context(b.name)))
    matches = tool.matcher
    if kind in MODEL_KINDS:  # the tool builds the instance; fn is identity
        try:
            if kind == "namedtuple":
                hints = typing.get_type_hints(obj, include_extras=True)
                kw = {
                    k: to_python(v, hints.get(k, typing.Any), f"'{k}'", matches)
                    for k, v in args.items()
                }
                return [obj(**kw)], {}
            return [to_python(args, obj, "arguments", matches)], {}
        except ConvertError as e:
            raise _ArgError(str(e)) from None
    try:
        hints = typing.get_type_hints(inspect.unwrap(hint_fn), include_extras=True)
    except Exception:
        hints = {}
    sig = inspect.signature(fn)
    pos: list[Any] = []
    kw: dict[str, Any] = {}
    rest = dict(args)
    pending_positional: list[Any] = []
    for p in sig.parameters.values():
        ann = hints.get(p.name, typing.Any)
        if p.kind is p.VAR_KEYWORD:
            vt = ann
            for k, v in list(rest.items()):
                try:
                    kw[k] = to_python(v, vt, f"'{k}'", matches)
                except ConvertError as e:
                    raise _ArgError(str(e)) from None
            rest.clear()
            continue
        if p.kind is p.VAR_POSITIONAL:
            values = rest.pop(p.name, [])
            try:
                conv = [
                    to_python(v, ann, f"'{p.name}'[{i}]", matches) for i, v in enumerate(values)
                ]
            except ConvertError as e:
                raise _ArgError(str(e)) from None
            pos.extend(pending_positional)
            pending_positional = []
            pos.extend(conv)
            continue
        if p.name in rest:
            try:
                value = to_python(rest.pop(p.name), ann, f"'{p.name}'", matches)
            except ConvertError as e:
                raise _ArgError(str(e)) from None
        elif is_field_info(p.default):
            d, factory = field_default(p.default)
            value = p.default.default_factory() if factory else d
            if value is UNSET:
                raise _ArgError(f"'{p.name}' is required but missing")
        elif p.default is not p.empty:
            value = p.default
        else:
            continue  # injected or not in the schema; Python reports it if really needed
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            pending_positional.append(value)
        else:
            kw[p.name] = value
    # positional-only values must go by position; others too when *args follows them
    has_var = any(p.kind is p.VAR_POSITIONAL for p in sig.parameters.values())
    if pos or has_var:
        return pos + pending_positional if not pos else pos, kw
    names = [
        p for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    posonly = [p for p in names if p.kind is p.POSITIONAL_ONLY]
    vals = pending_positional
    out_pos = vals[: len(posonly)]
    for p, v in zip(names[len(posonly) :], vals[len(posonly) :], strict=False):
        kw[p.name] = v
    return out_pos, kw
