"""The IR: the one hub every input is turned into and every output is made from.

Owns: the shape of a tool definition (described for machines in
``grammars/ir.schema.json``) and the few helpers that build or inspect one.

A tool is the JSON object of the seed's ``ToolDefinition``::

    {"type": "function", "name": ..., "description": ..., "parameters": {...}, "metadata": {...}}

``parameters`` is JSON Schema: ``{"type": "object", "properties": {...}, "required": [...]}``.
For tools read from Emacs Lisp it is built with the rules of the library named in
``metadata["dialect"]`` (gptel or llm): each property is the arg plist minus ``:name``
and ``:optional``, serialized as that library serializes it, ``required`` lists the
non-optional args in order and is left out when empty, and nothing is added that the
user did not write (gptel's per-backend additions are made by the provider emitters).
``name`` and ``description`` hold whatever JSON the library would send (normally
strings; gptel sends ``{}`` for a missing description).

``metadata`` keeps what JSON Schema has no place for (all keys optional):

``dialect``      ``"gptel"`` or ``"llm"``: the rules ``parameters`` was built with.
``head``         the form that defined the tool (``gptel-make-tool``, ``llm-make-tool``...).
``args``         how ``:args`` was written: ``"nil"`` (absent or nil: a zero-arg tool),
                 ``"list"`` or ``"vector"`` (gptel treats ``[]`` unlike ``nil``).
``function``     the ``:function`` value exactly as written in the source (text).
``async``        the ``:async`` flag (bool) when it is a literal.
``category``, ``confirm``, ``include``: gptel's slots, as JSON, when literals.
``slots``        every slot other than ``:name``/``:description``/``:args``, in source
                 order, as ``{"key": ":function", "text": "#'identity", "column": 12}``
                 (text verbatim, column of its first character, 0-based), so an
                 emitter can write them back exactly.
``source``       ``{"path", "line", "column", "end_line", "end_column"}`` of the form
                 (1-based lines and columns, as in diagnostics).
``gptel_parameters``  gptel tools only, and only when the exact per-backend parameters
                 cannot be derived from ``parameters`` (a Gemini removal exposing a
                 later duplicate key, alist-shaped plists, a failure on some backends
                 only): ``{family: {"parameters": JSON} | {"error": msg, "start", "end",
                 "line", "column"}}`` for the families ``openai`` (openai,
                 openai-responses, ollama, bedrock), ``anthropic`` and ``gemini``.
``title``, ``annotations``, ``output_schema``: MCP's, kept from JSON input.
``python``       ``{"target": "module:qualname", ...}`` for tools made by ``from-py``.
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

__all__ = ["Tool", "Metadata", "Slot", "SourceLocation", "make_tool", "is_zero_arg", "DIALECTS"]

DIALECTS = ("gptel", "llm")


class SourceLocation(TypedDict, total=False):
    path: str | None
    line: int
    column: int
    end_line: int
    end_column: int


class Slot(TypedDict):
    key: str
    text: str
    column: int


Metadata = TypedDict(
    "Metadata",
    {
        "dialect": Literal["gptel", "llm"],
        "head": str,
        "args": Literal["nil", "list", "vector"],
        "function": "str | None",
        "async": bool,
        "category": Any,
        "confirm": Any,
        "include": Any,
        "slots": "list[Slot]",
        "source": SourceLocation,
        "gptel_parameters": "dict[str, Any]",
        "title": str,
        "annotations": "dict[str, Any]",
        "output_schema": "dict[str, Any]",
        "python": "dict[str, Any]",
    },
    total=False,
)


class Tool(TypedDict):
    type: Literal["function"]
    name: Any
    description: Any
    parameters: dict[str, Any]
    metadata: Metadata


def make_tool(
    name: Any,
    description: Any,
    parameters: dict[str, Any] | None = None,
    metadata: Metadata | None = None,
) -> Tool:
    """A tool in IR shape; ``parameters`` defaults to the zero-arg object schema."""
    if parameters is None:
        parameters = {"type": "object", "properties": {}}
    return {
        "type": "function",
        "name": name,
        "description": description,
        "parameters": parameters,
        "metadata": metadata if metadata is not None else {},
    }


def is_zero_arg(tool: Tool) -> bool:
    """True when the tool takes no arguments (gptel: ``:args`` nil or absent)."""
    args = tool.get("metadata", {}).get("args")
    if args is not None:
        return args == "nil"
    params = tool.get("parameters") or {}
    return not params.get("properties") and "required" not in params
