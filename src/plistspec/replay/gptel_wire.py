"""gptel 0.9.9.5's per-backend tool shapes, made from IR tools of dialect ``gptel``.

Owns: the backend additions of semantics.md §3.3-§3.4 and §5 applied to the IR's
``parameters`` (which hold gptel's schema without them), and the envelopes of §4:

* OpenAI family (``openai``, ``openai-responses``, ``ollama``, ``bedrock``): object-typed
  top-level args get ``required: []`` when they have no ``required`` key and
  ``additionalProperties: false`` (overwritten in place or appended); the parameters end
  with ``required`` and ``additionalProperties: false``; zero-arg → ``{type, properties}``;
* ``anthropic``: only the ``required: []`` addition; zero-arg adds ``required: []``;
* ``gemini``: the ``required: []`` addition, top-level string ``format`` removed, the
  ``additionalProperties`` filter; zero-arg → ``null``; one ``functionDeclarations``
  wrapper for all tools.

When the IR's JSON cannot carry what gptel sees (duplicate keys that a removal exposes,
alist-shaped plists, a per-backend failure), the lowerer stores the exact result in
``metadata["gptel_parameters"]`` (see :mod:`plistspec.core.ir`), which wins here.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsoncopy import copier
from plistspec.replay.envelope import envelope

__all__ = ["derive_parameters", "parameters_for", "tool_entry", "FAMILY_OF"]

#: provider format → gptel schema family
FAMILY_OF = {
    "openai": "openai",
    "openai-responses": "openai",
    "ollama": "openai",
    "bedrock": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "vertex": "gemini",
}


def _gemini_filter(schema: Any) -> Any:
    stack = [schema]
    while stack:
        s = stack.pop()
        if not isinstance(s, dict):
            continue
        s.pop("additionalProperties", None)
        for k, v in s.items():
            if k in ("anyOf", "allOf") and isinstance(v, list):
                stack.extend(v)
            elif isinstance(v, dict):
                stack.append(v)
    return schema


def derive_parameters(tool: dict[str, Any], family: str, *, owned: bool = False) -> Any:
    """gptel's parameters for ``family`` (``openai``/``anthropic``/``gemini``), from the IR
    alone; ``owned``: the IR's parts may be reused and changed (see
    :func:`plistspec.emit_json.emit`)."""
    copy_json = copier(owned)
    meta = tool.get("metadata") or {}
    params = tool.get("parameters") or {}
    if meta.get("args", "list") == "nil":
        if family == "gemini":
            return None
        if family == "anthropic":
            return {"type": "object", "properties": {}, "required": []}
        return {"type": "object", "properties": {}}
    props = copy_json(params.get("properties", {}))
    for schema in props.values():
        if not isinstance(schema, dict):
            continue
        if schema.get("type") == "object":
            if "required" not in schema:
                schema["required"] = []
            if family == "openai":
                schema["additionalProperties"] = False
        if family == "gemini":
            if schema.get("type") == "string":
                schema.pop("format", None)
            _gemini_filter(schema)
    out: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "required": copy_json(params.get("required", [])),
    }
    if family == "openai":
        out["additionalProperties"] = False
    return out


def parameters_for(tool: dict[str, Any], family: str, *, owned: bool = False) -> tuple[bool, Any]:
    """``(True, parameters)`` or ``(False, error message)`` for one tool and family."""
    over = ((tool.get("metadata") or {}).get("gptel_parameters") or {}).get(family)
    if over is not None:
        if "error" in over:
            return False, over["error"]
        return True, copier(owned)(over["parameters"])
    return True, derive_parameters(tool, family, owned=owned)


def tool_entry(tool: dict[str, Any], fmt: str, params: Any) -> dict[str, Any]:
    """One tool's entry in gptel's tools array for provider ``fmt`` (Gemini: one declaration)."""
    return envelope(tool.get("name"), tool.get("description"), params, fmt)
