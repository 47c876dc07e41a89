"""What a provider would reject in the tools of a request body gptel sent.

The judge of the gptel-mode tests: each tool of a recorded request is checked against the
target's rules (grammars/providers/rules.json, through plistspec's own checker
:func:`plistspec.lowering.validate.schema_violations` and ``tool_violations``), plus what
the envelope must say (OpenAI Responses: an explicit ``strict``; strict mode's own rules
when ``strict`` is true). For Gemini, google-genai's ``FunctionDeclaration`` model (when it
is installed) judges each declaration too.
"""

from __future__ import annotations

from typing import Any

from plistspec.lowering.rules import rules
from plistspec.lowering.validate import schema_violations, tool_violations


def tools_of(body: dict[str, Any], target: str) -> list[dict[str, Any]]:
    """The tool entries of a request body, one per tool (Gemini: the declarations)."""
    if target == "bedrock":
        tools = (body.get("toolConfig") or {}).get("tools") or []
        return [t for t in tools if "toolSpec" in t]
    tools = body.get("tools") or []
    if target == "gemini":
        out = []
        for t in tools:
            out.extend(t.get("functionDeclarations") or t.get("function_declarations") or [])
        return out
    return list(tools)


def _parts(entry: dict[str, Any], target: str) -> tuple[Any, Any, Any, Any]:
    """(name, description, parameters, strict) of one tool entry."""
    if target in ("openai", "ollama"):
        f = entry.get("function") or {}
        return f.get("name"), f.get("description"), f.get("parameters"), f.get("strict")
    if target == "openai-responses":
        return (
            entry.get("name"),
            entry.get("description"),
            entry.get("parameters"),
            entry.get("strict", "absent"),
        )
    if target == "anthropic":
        return (
            entry.get("name"),
            entry.get("description"),
            entry.get("input_schema"),
            entry.get("strict"),
        )
    if target == "bedrock":
        s = entry.get("toolSpec") or {}
        return (
            s.get("name"),
            s.get("description"),
            (s.get("inputSchema") or {}).get("json"),
            s.get("strict"),
        )
    if target == "gemini":
        return entry.get("name"), entry.get("description"), entry.get("parameters", "absent"), None
    raise ValueError(target)


def violations(body: dict[str, Any], target: str) -> list[tuple[str, str, str]]:
    """``(tool name, pointer, message)`` for everything ``target`` would reject."""
    r = rules(target)
    out: list[tuple[str, str, str]] = []
    tools = body.get("tools")
    if target != "bedrock" and isinstance(tools, list) and not tools_of(body, target):
        out.append(("", "/tools", "an empty tools array"))
    for entry in tools_of(body, target):
        name, desc, params, strict = _parts(entry, target)
        label = str(name)
        if target == "openai-responses" and strict == "absent":
            out.append(
                (label, "/strict", "Responses needs an explicit strict (omitted: strict mode)")
            )
            strict = None
        if target == "gemini":
            if params == "absent":
                continue  # a tool without arguments: no parameters at all
            if params is None:
                out.append((label, "/parameters", "parameters: null"))
                continue
        is_strict = strict is True
        for p, msg in schema_violations(params, r, strict=is_strict, wire=True):
            out.append((label, p or "/", msg))
        for p, msg in tool_violations(name, desc, r):
            out.append((label, p, msg))
    if target == "gemini":
        out.extend(genai_violations(body))
    return out


def genai_available() -> bool:
    try:
        import google.genai.types  # noqa: F401
    except ImportError:
        return False
    return True


def genai_violations(body: dict[str, Any]) -> list[tuple[str, str, str]]:
    """What google-genai's own ``FunctionDeclaration`` model refuses (nothing when absent)."""
    if not genai_available():
        return []
    from google.genai import types

    out = []
    for d in tools_of(body, "gemini"):
        try:
            types.FunctionDeclaration.model_validate(d)
        except Exception as e:  # noqa: BLE001 - the SDK also raises AttributeError, ValueError
            errors = getattr(e, "errors", None)
            if callable(errors):
                first = errors()[0]
                where, what = "/" + "/".join(map(str, first["loc"])), first["msg"]
            else:
                where, what = "/", f"{type(e).__name__}: {e}"
            out.append((str(d.get("name")), where, f"google-genai: {what}"))
    return out
