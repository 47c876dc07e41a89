"""plistspec: a compiler between Emacs Lisp LLM tool specs (gptel, llm) and provider JSON.

The public API (see :mod:`plistspec.api`)::

    import plistspec
    tools, diags = plistspec.read_tools(open("tools.el").read(), path="tools.el")
    openai_json, diags = plistspec.to_provider(tools, "openai")
    text, diags = plistspec.to_elisp(tools, dialect="llm")
    diags = plistspec.check(text, path="tools.el", target="gemini")
    gemini_json, rewrites = plistspec.lower(tools, "gemini")
    ok, arguments, problems, message = plistspec.check_call(tools[0], "gemini", model_args)
"""


def _forget_the_current_directory() -> None:
    """`python -m plistspec` puts the current directory first on sys.path, and this
    package is imported before its __main__ runs: a typing.py or json.py there would be
    imported in place of the real one (the Emacs package runs `python3 -m plistspec` in
    the visited file's directory). Nothing of that directory may be imported."""
    import os
    import sys

    if sys.argv[:1] != ["-m"] or not sys.path or sys.path[0] not in ("", os.getcwd()):
        return  # not being located by `python -m` (a library import leaves sys.path alone)
    argv = getattr(sys, "orig_argv", [])
    for i, a in enumerate(argv):
        if a in ("-mplistspec", "-mplistspec.__main__") or (
            a == "-m" and argv[i + 1 : i + 2] in (["plistspec"], ["plistspec.__main__"])
        ):
            del sys.path[0]
            return


_forget_the_current_directory()
del _forget_the_current_directory

from typing import TYPE_CHECKING  # noqa: E402

from plistspec.core.diagnostics import Diagnostic, Fix, ReadError  # noqa: E402

if TYPE_CHECKING:
    from plistspec.api import (
        BytesResult,
        CallCheck,
        JsonResult,
        LowerResult,
        Problem,
        TextResult,
        ToolsResult,
        check,
        check_call,
        format_elisp,
        from_provider,
        from_python,
        lower,
        read_elisp,
        read_tools,
        to_elisp,
        to_json,
        to_provider,
    )
    from plistspec.core.ir import Tool

__version__ = "0.1.0"

__all__ = [
    "BytesResult",
    "CallCheck",
    "Diagnostic",
    "Fix",
    "JsonResult",
    "LowerResult",
    "Problem",
    "ReadError",
    "TextResult",
    "Tool",
    "ToolsResult",
    "check",
    "check_call",
    "format_elisp",
    "from_provider",
    "from_python",
    "lower",
    "read_elisp",
    "read_tools",
    "to_elisp",
    "to_json",
    "to_provider",
]

# imported from plistspec.api on first use (the names above that are not bound here)
_API = frozenset(__all__) - {"Diagnostic", "Fix", "ReadError", "Tool"}


def __getattr__(name: str):  # noqa: ANN202 - PEP 562
    """The API is imported on first use: the command line, which imports this package on
    every run, needs none of it (a few milliseconds of start-up)."""
    if name in _API or name == "api":
        from importlib import import_module

        api = import_module("plistspec.api")  # not `from plistspec import api`: that asks here
        value = api if name == "api" else getattr(api, name)
    elif name == "Tool":  # a TypedDict
        from plistspec.core.ir import Tool as value
    else:
        raise AttributeError(f"module 'plistspec' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
