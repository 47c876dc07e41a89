"""The per-tool envelopes gptel and llm put around a parameters object.

Owns: the one table of envelope shapes (semantics.md §4 and §7.4 agree on them): Chat
Completions (``openai``, ``ollama``), Responses (flat), Anthropic, Bedrock and a Gemini
declaration (the wrapper around all declarations is the caller's: its key differs).
"""

from __future__ import annotations

from typing import Any

__all__ = ["envelope"]


def envelope(name: Any, desc: Any, params: Any, fmt: str) -> dict[str, Any]:
    """One tool's entry for provider ``fmt``, keys in the order the libraries emit them."""
    if fmt in ("openai", "ollama"):
        return {
            "type": "function",
            "function": {"name": name, "description": desc, "parameters": params},
        }
    if fmt == "openai-responses":
        return {"type": "function", "name": name, "description": desc, "parameters": params}
    if fmt == "anthropic":
        return {"name": name, "description": desc, "input_schema": params}
    if fmt == "bedrock":
        return {"toolSpec": {"name": name, "description": desc, "inputSchema": {"json": params}}}
    if fmt in ("gemini", "vertex"):
        return {"name": name, "description": desc, "parameters": params}
    raise ValueError(fmt)
