"""Lowered IR tools → the target's final JSON (the ``tools`` value of the request), and
tools read from Elisp → what their library sends the target, where lowering starts.

Owns: :func:`sent_tools` (for a tool of a dialect, gptel's or llm's own JSON for the
target's wire format: ``to-json -t T --lower`` rewrites what the library sends ``T``,
not the IR, so the output is that JSON plus only the rewrites the diagnostics name) and
:func:`to_target_json`: choosing the envelope (the existing emitters of
:mod:`plistspec.emit_json`: :mod:`~plistspec.emit_json.plain` for provider envelopes,
:mod:`~plistspec.emit_json.mcp` for MCP entries) and what lowering adds to it: the
``strict`` flag (OpenAI Chat and Anthropic: ``true`` only when the tool qualified, else
absent; Responses: always explicit), ``parametersJsonSchema`` for the Gemini JSON Schema
variant, no ``parameters``/``parametersJsonSchema`` for a Gemini tool without arguments
(gptel's ``parameters: null`` left out too: ``parametersJsonSchema: null`` would be the
schema ``null``, and the JSON read back must lower to the same JSON), and llm's ``function_declarations`` wrapper when every tool is llm's.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.lowering.rules import rules

__all__ = ["to_target_json", "sent_tools"]


def sent_tools(
    tools: list[dict[str, Any]], target: str
) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """``tools`` with ``name``, ``description`` and ``parameters`` replaced, for each tool
    of a dialect (``metadata.dialect``: read from Elisp), by what gptel 0.9.9.5 / llm
    0.31.1 send ``target`` (its wire format); tools without a dialect are returned as
    they are. A tool its library would refuse on that backend gives the emitter's error
    (PS203) and is left out. ``metadata.sent_null_parameters`` marks a tool the library
    sends with ``parameters: null`` (gptel's Gemini zero-argument tool)."""
    from plistspec.emit_json import emit

    wire = rules(target)["wire"]
    out: list[dict[str, Any]] = []
    diags: list[Diagnostic] = []
    for tool in tools:
        meta = tool.get("metadata") or {}
        if meta.get("dialect") not in ("gptel", "llm") or wire == "mcp":
            out.append(tool)
            continue
        value, more = emit([tool], wire)
        diags.extend(more)
        if not value:
            continue
        head, params, null = _parts(value[0], wire)
        new_meta = {k: v for k, v in meta.items() if k != "gptel_parameters"}
        new_meta["args"] = "list"
        if null:
            new_meta["sent_null_parameters"] = True
        out.append(
            {
                **tool,
                "name": head.get("name"),
                "description": head.get("description"),
                "parameters": params,
                "metadata": new_meta,
            }
        )
    return out, diags


def _parts(entry: dict[str, Any], wire: str) -> tuple[dict[str, Any], Any, bool]:
    """``(object holding name and description, parameters, sent as null)`` of one entry."""
    if wire == "gemini":
        decls = next(iter(entry.values()))
        decl = decls[0]
        params = decl.get("parameters")
        return decl, params, "parameters" in decl and params is None
    if wire in ("openai", "ollama"):
        f = entry["function"]
        return f, f.get("parameters"), False
    if wire == "openai-responses":
        return entry, entry.get("parameters"), False
    if wire == "anthropic":
        return entry, entry.get("input_schema"), False
    if wire == "bedrock":
        spec = entry["toolSpec"]
        return spec, spec.get("inputSchema", {}).get("json"), False
    raise ValueError(wire)


def to_target_json(tools: list[dict[str, Any]], target: str, *, owned: bool = False) -> Any:
    """The JSON ``target`` receives for ``tools`` (already lowered by ``lower_tools``).
    It shares nothing mutable with ``tools``, unless ``owned``: the caller hands the
    lowered tools over and never looks at them again (as ``to-json --lower`` does), so
    their parameters go into the envelopes as they are, without a copy (the
    emitters' convention, :func:`plistspec.core.jsoncopy.copier`). The cyclic collector
    is paused meanwhile (:func:`plistspec.core.gcpause.paused`): the values are acyclic."""
    from plistspec.core.gcpause import paused

    with paused():
        return _target_json(tools, target, owned)


def _target_json(tools: list[dict[str, Any]], target: str, owned: bool) -> Any:
    from plistspec.core.jsoncopy import copier
    from plistspec.emit_json import mcp

    copy_json = copier(owned)

    r = rules(target)
    wire = r["wire"]
    field = r["field"]
    flag = r.strict_flag
    explicit = flag == "explicit"
    entries = []
    for tool in tools:
        meta = tool.get("metadata") or {}
        low = meta.get("lowered") or {}
        if wire == "mcp":
            entries.append(mcp.tool_entry(tool, owned=owned))
            continue
        head: dict[str, Any] = {"name": tool.get("name")}
        if tool.get("description") is not None:
            head["description"] = tool["description"]
        params = tool.get("parameters")
        if wire == "gemini":
            if not low.get("no_parameters"):  # (gptel's null is left out too: PS435)
                head[field] = copy_json(params)
            entries.append(head)
            continue
        params = copy_json(params) if params else {"type": "object", "properties": {}}
        if wire == "openai" or wire == "ollama":
            head["parameters"] = params
            entry: dict[str, Any] = {"type": "function", "function": head}
        elif wire == "openai-responses":
            entry = {"type": "function", **head, "parameters": params}
        elif wire == "anthropic":
            head["input_schema"] = params
            entry = head
        elif wire == "bedrock":
            head["inputSchema"] = {"json": params}
            entry = {"toolSpec": head}
        else:  # pragma: no cover - a wire the table added without an envelope here
            raise ValueError(wire)
        if flag is not None:
            strict = bool(low.get("strict"))
            if strict or explicit:
                (head if "function" in entry else entry)["strict"] = strict
        entries.append(entry)
    if wire == "gemini":
        all_llm = bool(tools) and all(
            (t.get("metadata") or {}).get("dialect") == "llm" for t in tools
        )
        return [{"function_declarations" if all_llm else "functionDeclarations": entries}]
    return entries
