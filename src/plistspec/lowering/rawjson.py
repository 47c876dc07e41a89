"""Tool JSON → IR tools with the schemas exactly as written, for lowering.

Owns: :func:`raw_tools`. ``from-json`` reads JSON for Elisp (:mod:`plistspec.providers.detect`
inlines ``$ref``, refuses recursion and drops what a gptel/llm spec cannot carry); lowering
wants the schema untouched, since rewriting it for the target is its job and every change
must be reported by it. Accepted: a JSON-RPC response, a ``tools/list`` result, an array
or a single tool, each an MCP ``Tool``, an OpenAI Chat or Responses tool, an Anthropic
tool, a Bedrock ``toolSpec``, a Gemini wrapper of ``functionDeclarations`` (either
spelling; ``parameters`` or ``parametersJsonSchema``) or plistspec's IR.
"""

from __future__ import annotations

from typing import Any

from plistspec.diagnostics import Diagnostic
from plistspec.lowering.jsonutil import jcopy

__all__ = ["raw_tools"]


def _elements(value: Any) -> list[Any]:
    if isinstance(value, dict) and isinstance(value.get("result"), dict):
        value = value["result"]
    if isinstance(value, dict) and isinstance(value.get("toolConfig"), dict):
        value = value["toolConfig"]
    if isinstance(value, dict) and isinstance(value.get("tools"), list):
        value = value["tools"]
    items = value if isinstance(value, list) else [value]
    out: list[Any] = []
    for v in items:
        decls = None
        if isinstance(v, dict):
            decls = v.get("functionDeclarations", v.get("function_declarations"))
        if isinstance(decls, list):
            out.extend(decls)
        else:
            out.append(v)
    return out


def _one(v: Any) -> tuple[dict[str, Any], Any, dict[str, Any]] | None:
    """(object with name/description, parameters, metadata) or None."""
    if not isinstance(v, dict):
        return None
    if isinstance(v.get("function"), dict):
        f = v["function"]
        return f, f.get("parameters"), {}
    if isinstance(v.get("toolSpec"), dict):
        spec = v["toolSpec"]
        schema = spec.get("inputSchema")
        return spec, schema.get("json") if isinstance(schema, dict) else None, {}
    if "inputSchema" in v:
        meta = {}
        for src, dst in (("title", "title"), ("annotations", "annotations")):
            if src in v:
                meta[dst] = v[src]
        if "outputSchema" in v:
            meta["output_schema"] = v["outputSchema"]
        return v, v["inputSchema"], meta
    if "input_schema" in v:
        return v, v["input_schema"], {}
    if "parametersJsonSchema" in v:
        return v, v["parametersJsonSchema"], {}
    if "name" in v:
        meta = dict(v["metadata"]) if isinstance(v.get("metadata"), dict) else {}
        return v, v.get("parameters"), meta
    return None


def raw_tools(value: Any) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """IR tools whose ``parameters`` are the input's schemas, unchanged (deep copies)."""
    tools: list[dict[str, Any]] = []
    diags: list[Diagnostic] = []
    for i, v in enumerate(_elements(value)):
        got = _one(v)
        if got is None and isinstance(v, dict):
            what = v.get("type") or next(iter(v), "{}")
            diags.append(
                Diagnostic(
                    "PS429", "info", f"element {i + 1} ({what}) is not a function tool: skipped"
                )
            )
            continue
        if got is None or not isinstance(got[0].get("name"), str):
            diags.append(
                Diagnostic("PS500", "error", f"element {i + 1} is not a tool with a string name")
            )
            continue
        obj, params, meta = got
        meta.setdefault("args", "list")
        tools.append(
            {
                "type": "function",
                "name": obj["name"],
                "description": obj.get("description"),
                "parameters": jcopy(params) if params is not None else None,
                "metadata": jcopy(meta),
            }
        )
    return tools, diags
