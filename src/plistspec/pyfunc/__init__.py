"""Python callables → IR tools whose ``:function`` calls back into Python.

Owns the public entry points of the Python side:

* :func:`schema_for` — ``(name, description, parameters)`` of one callable;
* :func:`from_python` — IR tools (with the Elisp ``:function`` text in ``metadata``) for a
  ``module:qualname`` target, plus diagnostics.

The pieces: :mod:`.target` (import and resolve), :mod:`.build` (signature walk),
:mod:`.schema` (annotation → schema: the dispatch table; one ``schema_*`` module per kind
of annotation), :mod:`.docs` (comments and docstrings),
:mod:`.constraints` (``Annotated`` metadata), :mod:`.elisp_bridge` (the generated lambdas and
the Elisp-facing form of a tool), :mod:`.errors`.

Layer 3 (sources) of docs/architecture.md: may import :mod:`plistspec.core` and
:mod:`plistspec.elisp`; the Python end of the bridge (:mod:`.bridge`, :mod:`.worker`:
``plistspec call``/``worker``) lives here too. Public: the names of ``__all__`` below.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.ir import Tool

__all__ = ["from_python", "schema_for", "INJECTED", "PyFuncError"]

INJECTED = "plistspec:injected"


def __getattr__(name: str) -> Any:
    if name == "PyFuncError":
        from plistspec.pyfunc.errors import PyFuncError

        return PyFuncError
    raise AttributeError(name)


def schema_for(
    obj: Any,
    name: str | None = None,
    *,
    strict_types: bool = False,
    lenient_defaults: bool = False,
    skip: Any = (),
) -> tuple[str, str, dict[str, Any]]:
    """``(name, description, parameters)`` of a function, class or method.

    Raises :class:`plistspec.pyfunc.errors.PyFuncError` (with ``.code`` and a message naming
    the function and parameter) for annotations that have no JSON form.
    """
    from plistspec.pyfunc.build import build

    b = build(obj, name, strict_types=strict_types, lenient_defaults=lenient_defaults, skip=skip)
    return b.name, b.description, b.parameters


def from_python(
    target: str | list[str],
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
    """IR tools for ``target`` (or several); never raises for a user mistake.

    ``python`` is the interpreter the generated ``:function`` runs (default: the one
    ``plistspec-bridge.el`` finds when the tool is called: nothing absolute is written),
    ``root`` the variable the lambdas read the modules' directory from (default
    ``tools-python-directory``; the file defines it, :func:`.elisp_bridge.with_bridge`),
    ``async_`` writes the non-blocking ``make-process`` form, ``function`` writes
    ``#'FUNCTION`` instead of a lambda, ``dialect`` is ``gptel`` or ``llm``, ``cwd`` is the
    directory the module is imported from (default: the current one), ``bridge`` is
    ``worker`` (one persistent Python per module) or ``process`` (one per call), ``timeout``
    the seconds a call may take (default: ``plistspec-bridge-timeout`` in Emacs).
    """
    from plistspec.pyfunc.tools import tools_from_targets

    if function is not None:
        name = function.removeprefix("#'")
        if not name or name in ("nil", "t") or name.startswith(":"):
            why = "a keyword" if name.startswith(":") else repr(name)
            return [], [
                Diagnostic(
                    "PS525",
                    "error",
                    f"function={function!r} names no function ({why} cannot be called)",
                )
            ]
    targets = [target] if isinstance(target, str) else list(target)
    return tools_from_targets(
        targets,
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
        root=root,
    )
