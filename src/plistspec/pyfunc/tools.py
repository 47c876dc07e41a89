"""Targets → IR tools (the work behind :func:`plistspec.pyfunc.from_python`).

Owns: turning each resolved callable into an IR tool (``name``, ``description``, the JSON
Schema ``parameters`` of ``python-schema.md``) with ``metadata``: ``python`` (the target the
bridge calls, the directory it is imported from, the interpreter), ``function`` (the Elisp
lambda text, or ``#'SYMBOL``), ``async``, ``slots``, and ``elisp`` (the schema a gptel/llm user
would write plus notes for comments; see :mod:`.elisp_bridge`). Errors and warnings come back
as diagnostics; nothing here raises for a user mistake.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.ir import Tool, make_tool

__all__ = ["tools_from_targets", "tool_from_object"]


def _instance_method_problem(obj: Any, owner: Any) -> str | None:
    """For ``Class.method`` naming a plain instance method: the class must build without args."""
    import inspect

    if not isinstance(owner, type) or not inspect.isfunction(obj):
        return None
    raw = None
    for klass in owner.__mro__:
        if obj.__name__ in klass.__dict__:
            raw = klass.__dict__[obj.__name__]
            break
    if isinstance(raw, (staticmethod, classmethod)):
        return None
    try:
        sig = inspect.signature(owner)
    except (TypeError, ValueError):
        return None
    needed = [
        p.name
        for p in sig.parameters.values()
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if needed:
        return (
            f"{owner.__name__}.{obj.__name__} is an instance method and {owner.__name__}() needs "
            f"{', '.join(needed)}; name a module-level instance (module:obj.{obj.__name__}), "
            "a staticmethod or a classmethod"
        )
    return None


def _internal(target: str, what: str) -> Diagnostic:
    return Diagnostic(
        "PS613",
        "error",
        f"{target}: plistspec could not describe it ({what}); please report this",
        path=target,
    )


def tool_from_object(
    obj: Any,
    qualname: str,
    call_target: str,
    *,
    owner: Any = None,
    python: str | None = None,
    async_: bool = False,
    function: str | None = None,
    dialect: str = "gptel",
    cwd: str | None = None,
    strict_types: bool = False,
    lenient_defaults: bool = False,
    skip: Any = (),
    bridge: str = "worker",
    timeout: float | None = None,
    module_file: str | None = None,
    root: str | None = None,
) -> tuple[Tool | None, list[Diagnostic]]:
    from plistspec.pyfunc.build import build
    from plistspec.pyfunc.elisp_bridge import DEFAULT_ROOT_VARIABLE, elisp_parameters, lambda_text
    from plistspec.pyfunc.errors import PyFuncError

    name = qualname.rsplit(".", 1)[-1]
    try:
        if getattr(obj, "__name__", None) == "<lambda>":
            raise PyFuncError(
                "PS604",
                f"{call_target} is a lambda, which cannot annotate its parameters; define the "
                "tool with def and annotate each parameter",
            )
        problem = _instance_method_problem(obj, owner)
        if problem:
            raise PyFuncError("PS612", problem)
        b = build(
            obj, name, strict_types=strict_types, lenient_defaults=lenient_defaults, skip=skip
        )
    except PyFuncError as e:
        return None, [e.diagnostic()]
    except RecursionError:
        return None, [_internal(call_target, "annotations nested too deeply to map")]
    except Exception as e:  # a bug of ours or a very unusual object: one line, no traceback
        return None, [_internal(call_target, f"{type(e).__name__}: {e}")]
    cwd = os.path.abspath(cwd or os.getcwd())
    eparams, notes = elisp_parameters(b.parameters, dialect)
    notes.update(_nil_notes(b.parameters, dialect, notes))
    props = eparams.get("properties", {})
    req = set(eparams.get("required", []))
    arg_list = [(n, n not in req) for n in props]
    if function:
        from plistspec.elisp.printer import print_symbol

        fn_text = "#'" + print_symbol(function.removeprefix("#'"))
        is_async = async_
    else:
        fn_text = lambda_text(
            arg_list,
            call_target,
            root=root or DEFAULT_ROOT_VARIABLE,
            python=python,
            dialect=dialect,
            async_=async_,
            mode=bridge,
            module_file=_relative(module_file, cwd),
            timeout=timeout,
        )
        is_async = async_
    slots = [{"key": ":function", "text": fn_text, "column": 0}]
    if is_async:
        slots.append({"key": ":async", "text": "t", "column": 0})
    metadata: dict[str, Any] = {
        "dialect": dialect,
        "head": "gptel-make-tool" if dialect == "gptel" else "llm-make-tool",
        "args": "list" if props else "nil",
        "function": fn_text,
        "async": is_async,
        "slots": slots,
        "python": {
            "target": call_target,
            "qualname": qualname,
            "cwd": cwd,
            "python": python or sys.executable,
            "kind": b.kind,
            "async_def": b.is_async,
        },
        "elisp": {"parameters": eparams, "notes": notes},
    }
    if b.returns:
        metadata["python"]["returns"] = b.returns
    if b.path:
        metadata["python"]["file"], metadata["python"]["line"] = b.path, b.line
    tool = make_tool(b.name, b.description, b.parameters, metadata)  # type: ignore[arg-type]
    diags = list(b.warnings) + nil_diagnostics(b.name, b.parameters, dialect, call_target)
    diags += closed_object_diagnostics(b.name, eparams, dialect, call_target)
    if b.path:  # a finding about the function is at the function (never "<input>")
        for d in diags:
            if d.path is None or d.path == call_target:
                d.path, d.line, d.column = b.path, b.line, 1 if b.line else 0
    return tool, diags


def _relative(path: str | None, cwd: str) -> str | None:
    """``path`` relative to ``cwd`` when it lies inside it (what a generated file may
    hold: its modules move with it); None otherwise (an installed module: not watched)."""
    if path is None:
        return None
    rel = os.path.relpath(path, cwd)
    return None if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel


def _module_file(module: Any) -> str | None:
    f = getattr(module, "__file__", None)
    return os.path.abspath(f) if isinstance(f, str) else None


def _nil_notes(parameters: Any, dialect: str, notes: dict[str, str]) -> dict[str, str]:
    """A comment per argument whose nil :mod:`.nilvalue` had to decide (PS614/PS615)."""
    from plistspec.pyfunc.nilvalue import decisions, describe

    out = {}
    for arg, d in decisions(parameters, dialect).items():
        said = []
        if d.made_required:
            said.append(
                "required here: nil stands for "
                + " and ".join([*d.readings, "a missing argument"])
                + " alike (PS614)"
            )
        if d.lossy:
            said.append(f"nil reads as {describe(d.value)}, a {' or '.join(d.lossy)} too (PS615)")
        if said:
            out[arg] = "; ".join([*([notes[arg]] if arg in notes else []), *said])
    return out


def nil_diagnostics(name: str, parameters: Any, dialect: str, target: str) -> list[Diagnostic]:
    """What :mod:`.nilvalue` decided where a ``nil`` could have meant two things."""
    from plistspec.pyfunc.nilvalue import decisions, describe, nested_ambiguities

    lib = "gptel" if dialect == "gptel" else "llm"

    def say(labels: list[str]) -> list[str]:  # llm: a null is nil only on Claude non-streaming
        return [
            f"{x} (on Claude non-streaming)" if lib == "llm" and x == "null" else x for x in labels
        ]

    out = []
    for arg, d in decisions(parameters, dialect).items():
        if d.made_required:
            out.append(
                Diagnostic(
                    "PS614",
                    "info",
                    f"{name}: argument '{arg}' is required in the {lib} schema: {lib} hands the "
                    f"tool nil for {' and '.join([*d.readings, 'absent'])} alike, and leaving '{arg}' out "
                    "would give a different value than sending it, so the model must always send it",
                    path=target,
                )
            )
        if d.lossy:
            out.append(
                Diagnostic(
                    "PS615",
                    "warning",
                    f"{name}: argument '{arg}': {lib} hands the tool nil for "
                    f"{' and '.join(say(d.readings))} alike; nil is read as {describe(d.value)}, so a "
                    f"{' or '.join(say(d.lossy))} sent by the model arrives as {describe(d.value)}",
                    path=target,
                )
            )
    for path, readings in nested_ambiguities(parameters, dialect):
        out.append(
            Diagnostic(
                "PS615",
                "warning",
                f"{name}: '{path}': {lib} hands the tool nil for {' and '.join(say(readings))} "
                f"alike; nil is read as {readings[0]}, so a {' or '.join(say(readings[1:]))} sent by the "
                f"model arrives as {readings[0]}",
                path=target,
            )
        )
    return out


def closed_object_diagnostics(
    name: str, eparams: Any, dialect: str, target: str
) -> list[Diagnostic]:
    """PS324 for an argument that takes keys of its own choosing (``dict[str, V]``, bare
    ``dict``): gptel closes every top-level object argument (``additionalProperties``
    false) for the OpenAI family, Ollama and Bedrock, where the model can then send none of
    them. ``check`` says the same of the written file; ``from-py`` says it at the function."""
    if dialect != "gptel":
        return []
    out = []
    for arg, s in (eparams.get("properties") or {}).items():
        if not isinstance(s, dict) or s.get("type") != "object":
            continue
        extra = s.get("additionalProperties", False)
        if extra is False or extra is None:
            continue
        named = "its listed keys" if s.get("properties") else "no key at all ({} only)"
        out.append(
            Diagnostic(
                "PS324",
                "warning",
                f"{name}: argument '{arg}' takes keys of its own choosing, but gptel sends "
                "object arguments with additionalProperties false to openai/openai-responses/"
                f"ollama/bedrock (and drops it for gemini): there the model can send {named}; "
                "take a TypedDict or model with named fields, or a list of key/value objects",
                path=target,
            )
        )
    return out


def tools_from_targets(
    targets: list[str],
    *,
    python: str | None = None,
    async_: bool = False,
    function: str | None = None,
    dialect: str = "gptel",
    cwd: str | None = None,
    strict_types: bool = False,
    lenient_defaults: bool = False,
    skip: Any = (),
    bridge: str = "worker",
    timeout: float | None = None,
    root: str | None = None,
) -> tuple[list[Tool], list[Diagnostic]]:
    from plistspec.pyfunc.errors import PyFuncError
    from plistspec.pyfunc.target import load, parse_target

    tools: list[Tool] = []
    diags: list[Diagnostic] = []
    cwd = os.path.abspath(cwd or os.getcwd())
    for text in targets:
        try:
            t = parse_target(text)
            _module, found = load(t, cwd)
        except PyFuncError as e:
            d = e.diagnostic()
            d.path = d.path or text
            diags.append(d)
            continue
        except Exception as e:  # e.g. a property of the user's object that raised
            diags.append(_internal(text, f"{type(e).__name__}: {e}"))
            continue
        if not found:
            diags.append(
                Diagnostic(
                    "PS603",
                    "error",
                    f"{t.module} defines no public function (and no __all__)",
                    path=_module_file(_module) or text,
                )
            )
        module_text = t.module
        if t.is_path:  # relative to the directory the bridge imports from, when inside it
            path = os.path.abspath(os.path.join(cwd, t.module))
            module_text = _relative(path, cwd) or path
        for qualname, obj, owner in found:
            tool, ds = tool_from_object(
                obj,
                qualname,
                f"{module_text}:{qualname}",
                owner=owner,
                python=python,
                async_=async_,
                function=function,
                dialect=dialect,
                cwd=cwd,
                strict_types=strict_types,
                lenient_defaults=lenient_defaults,
                skip=skip,
                bridge=bridge,
                timeout=timeout,
                module_file=_module_file(_module),
                root=root,
            )
            for d in ds:
                if d.path is None:
                    d.path = f"{module_text}:{qualname}"
            diags.extend(ds)
            if tool is not None:
                tools.append(tool)
    return tools, diags
