"""Provider envelopes for tools without a dialect (read from JSON or Python).

Owns: wrapping an IR tool's JSON Schema in each provider's tool envelope
(providers.md §1), with no library quirks: ``description`` only when present;
Gemini/Vertex declarations inside one ``functionDeclarations`` wrapper and without
``parameters`` for a tool that takes no arguments.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsoncopy import copier

__all__ = ["tool_entry"]


def tool_entry(tool: dict[str, Any], fmt: str, *, owned: bool = False) -> dict[str, Any]:
    params = copier(owned)(tool.get("parameters") or {"type": "object", "properties": {}})
    head: dict[str, Any] = {"name": tool.get("name")}
    if tool.get("description") is not None:
        head["description"] = tool["description"]
    if fmt in ("openai", "ollama"):
        return {"type": "function", "function": {**head, "parameters": params}}
    if fmt == "openai-responses":
        return {"type": "function", **head, "parameters": params}
    if fmt == "anthropic":
        return {**head, "input_schema": params}
    if fmt == "bedrock":
        return {"toolSpec": {**head, "inputSchema": {"json": params}}}
    if fmt in ("gemini", "vertex"):
        from plistspec.core.ir import is_zero_arg

        if is_zero_arg(tool):  # type: ignore[arg-type]
            return head
        return {**head, "parameters": params}
    raise ValueError(fmt)
