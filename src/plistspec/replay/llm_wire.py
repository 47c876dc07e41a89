"""llm 0.31.1's per-provider tool shapes, made from IR tools of dialect ``llm``.

Owns: the envelopes of semantics.md §7.4. llm builds one parameters object for every
provider (the IR's ``parameters`` are exactly it), so only the wrapping differs:
``openai`` = ``llm-openai-compatible`` (Chat Completions), ``openai-responses`` =
``llm-openai`` (Responses, flat), ``anthropic`` = ``llm-claude``, ``gemini``/``vertex``
= one ``function_declarations`` wrapper, ``ollama`` = Chat Completions shape.
llm has no Bedrock provider: ``bedrock`` wraps llm's parameters in Bedrock's envelope.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsoncopy import copier
from plistspec.replay.envelope import envelope

__all__ = ["tool_entry"]


def tool_entry(tool: dict[str, Any], fmt: str, *, owned: bool = False) -> dict[str, Any]:
    """One llm tool's entry for provider ``fmt`` (Gemini/Vertex: one declaration);
    ``owned``: see :func:`plistspec.emit_json.emit`."""
    params = copier(owned)(tool.get("parameters") or {"type": "object", "properties": {}})
    return envelope(tool.get("name"), tool.get("description"), params, fmt)
