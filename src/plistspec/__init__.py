"""plistspec: a compiler between Emacs Lisp LLM tool specs (gptel, llm) and provider JSON.

The public API (see :mod:`plistspec.api`)::

    import plistspec
    tools, diags = plistspec.read_tools(open("tools.el").read(), path="tools.el")
    openai_json, diags = plistspec.to_provider(tools, "openai")
    text, diags = plistspec.to_elisp(tools, dialect="llm")
    diags = plistspec.check(text, path="tools.el", target="gemini")
"""

from plistspec.api import (
    JsonResult,
    TextResult,
    ToolsResult,
    check,
    format_elisp,
    from_provider,
    from_python,
    read_elisp,
    read_tools,
    to_elisp,
    to_json,
    to_provider,
)
from plistspec.diagnostics import Diagnostic, Fix, ReadError

__version__ = "0.1.0"


def __getattr__(name: str):  # Tool is a TypedDict: imported only when asked for
    if name == "Tool":
        from plistspec.ir import Tool

        return Tool
    raise AttributeError(f"module 'plistspec' has no attribute {name!r}")


__all__ = [
    "Diagnostic",
    "Fix",
    "JsonResult",
    "ReadError",
    "TextResult",
    "Tool",
    "ToolsResult",
    "check",
    "format_elisp",
    "from_provider",
    "from_python",
    "read_elisp",
    "read_tools",
    "to_elisp",
    "to_json",
    "to_provider",
]
