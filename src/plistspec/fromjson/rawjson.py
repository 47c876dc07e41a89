"""Tool JSON → IR tools with the schemas exactly as written, for lowering.

Owns: :func:`raw_tools`. ``from-json`` reads JSON for Elisp (:mod:`plistspec.fromjson.detect`
inlines ``$ref``, refuses recursion and drops what a gptel/llm spec cannot carry); lowering
wants the schema untouched, since rewriting it for the target is its job and every change
must be reported by it. Accepted: a JSON-RPC response, a ``tools/list`` result, an array
or a single tool, each an MCP ``Tool``, an OpenAI Chat or Responses tool, an Anthropic
tool, a Bedrock ``toolSpec``, a Gemini wrapper of ``functionDeclarations`` (either
spelling; ``parameters`` or ``parametersJsonSchema``) or plistspec's IR.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.jsonutil import jcopy

__all__ = ["raw_tools", "tool_places"]


def _elements(value: Any) -> list[tuple[str, Any]]:
    """Each element that may be a tool, with its JSON pointer in ``value``."""
    from plistspec.fromjson.common import jptr

    ptr = ""
    if isinstance(value, dict) and isinstance(value.get("result"), dict):
        value, ptr = value["result"], jptr(ptr, "result")
    if isinstance(value, dict) and isinstance(value.get("toolConfig"), dict):
        value, ptr = value["toolConfig"], jptr(ptr, "toolConfig")
    if isinstance(value, dict) and isinstance(value.get("tools"), list):
        value, ptr = value["tools"], jptr(ptr, "tools")
    items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
    out: list[tuple[str, Any]] = []
    for i, v in items:
        at = ptr if i is None else jptr(ptr, i)
        decls, key = None, None
        if isinstance(v, dict):
            key = "functionDeclarations" if "functionDeclarations" in v else "function_declarations"
            decls = v.get(key)
        if isinstance(decls, list):
            out.extend((jptr(at, key, k), d) for k, d in enumerate(decls))
        else:
            out.append((at, v))
    return out


def _one(v: Any) -> tuple[dict[str, Any], Any, dict[str, Any], str, str] | None:
    """(object with name/description, parameters, metadata, the object's and the
    parameters' pointers relative to ``v``) or None."""
    if not isinstance(v, dict):
        return None
    if isinstance(v.get("function"), dict):
        f = v["function"]
        return f, f.get("parameters"), {}, "/function", "/function/parameters"
    if isinstance(v.get("toolSpec"), dict):
        spec = v["toolSpec"]
        schema = spec.get("inputSchema")
        json_schema = schema.get("json") if isinstance(schema, dict) else None
        return spec, json_schema, {}, "/toolSpec", "/toolSpec/inputSchema/json"
    if "inputSchema" in v:
        meta = {}
        for src, dst in (("title", "title"), ("annotations", "annotations")):
            if src in v:
                meta[dst] = v[src]
        if "outputSchema" in v:
            meta["output_schema"] = v["outputSchema"]
        return v, v["inputSchema"], meta, "", "/inputSchema"
    if "input_schema" in v:
        return v, v["input_schema"], {}, "", "/input_schema"
    if "parametersJsonSchema" in v:
        return v, v["parametersJsonSchema"], {}, "", "/parametersJsonSchema"
    if "name" in v:
        meta = dict(v["metadata"]) if isinstance(v.get("metadata"), dict) else {}
        return v, v.get("parameters"), meta, "", "/parameters"
    return None


def tool_places(v: Any) -> tuple[str, str] | None:
    """The pointers, relative to the tool element ``v``, of the object holding its name
    and of its parameter schema; None when ``v`` is no tool."""
    got = _one(v)
    return None if got is None else (got[3], got[4])


def raw_tools(
    value: Any, places: list[tuple[str, str]] | None = None
) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """IR tools whose ``parameters`` are the input's schemas, unchanged (deep copies).
    ``places``, when given, gets per tool the JSON pointers in ``value`` of the object
    holding its name and of its parameter schema (what the IR's ``/name`` and
    ``/parameters`` came from)."""
    from plistspec.fromjson.detect import not_tool_json

    bad = not_tool_json(value)  # what from-json refuses is refused here too
    if bad is not None:
        return [], [bad]
    tools: list[dict[str, Any]] = []
    diags: list[Diagnostic] = []
    for i, (at, v) in enumerate(_elements(value)):
        got = _one(v)
        if got is None and isinstance(v, dict):
            what = v.get("type") or next(iter(v), "{}")
            diags.append(
                Diagnostic(
                    "PS429",
                    "info",
                    f"element {i + 1} ({what}) at {at or '/'} is not a function tool: skipped",
                )
            )
            continue
        if got is None or not isinstance(got[0].get("name"), str):
            diags.append(
                Diagnostic(
                    "PS500",
                    "error",
                    f"element {i + 1} at {at or '/'} is not a tool with a string name",
                )
            )
            continue
        obj, params, meta, obj_at, params_at = got
        meta.setdefault("args", "list")
        if places is not None:
            places.append((at + obj_at, at + params_at))
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
