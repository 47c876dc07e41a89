"""Lowered IR tools → the target's final JSON (the ``tools`` value of the request).

Owns: choosing the envelope (the existing emitters of :mod:`plistspec.emit_json`:
:mod:`~plistspec.emit_json.plain` for provider envelopes, :mod:`~plistspec.emit_json.mcp`
for MCP entries) and what lowering adds to it: the ``strict`` flag (OpenAI Chat and
Anthropic: ``true`` only when the tool qualified, else absent; Responses: always
explicit), ``parametersJsonSchema`` for the Gemini JSON Schema variant, and no
``parameters`` for a Gemini tool without arguments.
"""

from __future__ import annotations

from typing import Any

from plistspec.lowering.rules import rules

__all__ = ["to_target_json"]


def to_target_json(tools: list[dict[str, Any]], target: str) -> Any:
    """The JSON ``target`` receives for ``tools`` (already lowered by ``lower_tools``)."""
    from plistspec.emit_json import mcp, plain

    r = rules(target)
    wire = r["wire"]
    entries = []
    for tool in tools:
        meta = tool.get("metadata") or {}
        strict = bool((meta.get("lowered") or {}).get("strict"))
        if wire == "mcp":
            entries.append(mcp.tool_entry(tool))
            continue
        plain_tool = {**tool, "metadata": {"args": "list"}}
        entry = plain.tool_entry(plain_tool, wire)
        if wire == "gemini":
            params = entry.pop("parameters", None)
            if isinstance(params, dict) and (params.get("properties") or params.get("required")):
                entry[r["field"]] = params
        if r.strict_flag is not None:
            flag = r.strict_flag == "explicit"
            home = entry["function"] if "function" in entry else entry
            if strict or flag:
                home["strict"] = strict
        entries.append(entry)
    if wire == "gemini":
        return [{"functionDeclarations": entries}]
    return entries
