"""Parameters a tool framework fills in itself, never the model (python-schema.md §4).

Owns: :func:`framework_injected`, which recognises them by their annotation without importing
any framework: the MCP SDK's and FastMCP's ``Context``, pydantic-ai's ``RunContext[...]``,
LangChain's ``ToolRuntime`` and the ``Annotated`` markers ``InjectedToolArg``,
``InjectedState``, ``InjectedStore``, ``InjectedToolCallId`` (LangChain, LangGraph). Such a
parameter never belongs in the schema: the model cannot send a server's request context.
"""

from __future__ import annotations

import types
import typing
from typing import Any

__all__ = ["framework_injected"]

# (module prefix, class name) -> what the parameter is, for the messages
_TYPES = (
    ("mcp.", "Context", "the MCP server's Context"),
    ("fastmcp", "Context", "FastMCP's Context"),
    ("pydantic_ai", "RunContext", "pydantic-ai's RunContext"),
    ("langchain", "ToolRuntime", "LangChain's ToolRuntime"),
)
_MARKERS = ("InjectedToolArg", "InjectedState", "InjectedStore", "InjectedToolCallId")


def _marker(m: Any) -> str | None:
    cls = m if isinstance(m, type) else type(m)
    for c in getattr(cls, "__mro__", ()):
        mod = getattr(c, "__module__", "") or ""
        if c.__name__ in _MARKERS and mod.startswith(("langchain", "langgraph")):
            return f"an argument LangChain injects ({c.__name__})"
    return None


def framework_injected(ann: Any, depth: int = 0) -> str | None:
    """What framework object ``ann`` is (for a message), or ``None`` for an ordinary one."""
    if depth > 10:
        return None
    meta = getattr(ann, "__metadata__", None)
    if meta is not None and hasattr(ann, "__origin__"):
        for m in meta:
            found = _marker(m)
            if found:
                return found
        return framework_injected(ann.__origin__, depth + 1)
    origin = typing.get_origin(ann)
    if origin is typing.Union or isinstance(ann, types.UnionType):
        for a in typing.get_args(ann):
            found = framework_injected(a, depth + 1)
            if found:
                return found
        return None
    if origin is not None:
        ann = origin
    if not isinstance(ann, type):
        return None
    for c in ann.__mro__:
        mod = getattr(c, "__module__", "") or ""
        for prefix, name, what in _TYPES:
            if c.__name__ == name and (mod + ".").startswith(prefix):
                return what
    return None
