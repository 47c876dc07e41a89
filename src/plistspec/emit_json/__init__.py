"""IR tools → provider JSON: the registry of output formats and :func:`emit`.

Owns: which formats exist (:data:`SUPPORTED_FORMATS`) and dispatching each tool to
the shapes of its dialect (``metadata["dialect"]``): gptel tools get gptel 0.9.9.5's
shapes (:mod:`plistspec.replay.gptel_wire`), llm tools llm 0.31.1's (:mod:`plistspec.replay.llm_wire`), tools without a dialect
a plain envelope (:mod:`.plain`); ``mcp`` gives MCP entries (:mod:`.mcp`), ``ir`` the
IR list itself.

Gemini/Vertex put every tool in one wrapper. Its key is llm's ``function_declarations``
when every tool is an llm tool, otherwise ``functionDeclarations`` (gptel's, and the
Gemini API's own spelling); each declaration is still built by its own dialect. With
zero tools the result is ``[]`` (Gemini/Vertex: the wrapper holding ``[]``).

A gptel tool that gptel itself would refuse on this backend only (recorded by the
lowerer in ``metadata["gptel_parameters"]``) gives a ``PS203`` error and no output.

Also here: :func:`parameters_sent` (the parameters object one tool is sent with) and
the lowered tools' final JSON (:mod:`.target`).

Layer 5 (emitters) of docs/architecture.md: may import replay, lowering, the sources,
:mod:`plistspec.elisp` and :mod:`plistspec.core`; independent of
:mod:`plistspec.emit_elisp`. Public: the names of ``__all__`` below.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.formats import FORMATS as SUPPORTED_FORMATS
from plistspec.core.jsoncopy import copy_json

__all__ = [
    "emit",
    "parameters_sent",
    "SUPPORTED_FORMATS",
]


def _diag(tool: dict[str, Any], rec: dict[str, Any], fmt: str) -> Diagnostic:
    src = (tool.get("metadata") or {}).get("source") or {}
    line = rec.get("line", 0)
    col = rec.get("column", 0)
    return Diagnostic(
        "PS203",
        "error",
        rec["error"] + f" (backend {fmt})",
        rec.get("start", -1),
        rec.get("end", -1),
        path=src.get("path"),
        line=line,
        column=col,
        end_line=line,
        end_column=col,
    )


def emit(tools: list[Any], fmt: str, *, owned: bool = False) -> tuple[Any, list[Diagnostic]]:
    """The provider JSON for ``tools`` in format ``fmt`` (see :data:`SUPPORTED_FORMATS`).

    The result shares no mutable object with ``tools``, unless ``owned``: the caller
    hands the tools over (it never looks at them again, as :mod:`plistspec.pipeline.stream`
    with each fresh tool), and the result may then reuse and change their parts instead
    of deep-copying them (the same JSON, without the copy)."""
    from plistspec.emit_json import mcp, plain
    from plistspec.replay import gptel_wire as gptel
    from plistspec.replay import llm_wire as llm

    if fmt not in SUPPORTED_FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    if fmt == "ir":
        return (list(tools) if owned else copy_json(list(tools))), []
    if fmt == "mcp":
        return [mcp.tool_entry(t, owned=owned) for t in tools], []
    diags: list[Diagnostic] = []
    entries: list[Any] = []
    for tool in tools:
        dialect = (tool.get("metadata") or {}).get("dialect")
        if dialect == "gptel":
            family = gptel.FAMILY_OF[fmt]
            ok, params = gptel.parameters_for(tool, family, owned=owned)
            if not ok:
                rec = tool["metadata"]["gptel_parameters"][family]
                diags.append(_diag(tool, rec, fmt))
                continue
            entries.append(gptel.tool_entry(tool, fmt, params))
        elif dialect == "llm":
            entries.append(llm.tool_entry(tool, fmt, owned=owned))
        else:
            entries.append(plain.tool_entry(tool, fmt, owned=owned))
    if diags:
        return None, diags
    if fmt in ("gemini", "vertex"):
        all_llm = bool(tools) and all(
            (t.get("metadata") or {}).get("dialect") == "llm" for t in tools
        )
        key = "function_declarations" if all_llm else "functionDeclarations"
        return [{key: entries}], diags
    return entries, diags


#: check target -> the emitter's wire format whose JSON it judges
_WIRE = {"openai-strict": "openai"}


def parameters_sent(tool: Any, target: str) -> Any:
    """The parameters object the emitter sends ``target`` for ``tool`` (None if none)."""
    if not isinstance(tool, dict):
        return None
    try:
        value, diags = emit([tool], _WIRE.get(target, target))
    except Exception:  # noqa: BLE001 - a tool the emitter cannot take has no JSON to judge
        return None
    if not value:
        return None
    entry = value[0]
    if target in ("gemini", "vertex"):
        decls = next(iter(entry.values()), [])
        return decls[0].get("parameters") if decls else None
    if target == "mcp":
        return entry.get("inputSchema")
    if target == "bedrock":
        return entry.get("toolSpec", {}).get("inputSchema", {}).get("json")
    if target == "anthropic":
        return entry.get("input_schema")
    if "function" in entry:
        return entry["function"].get("parameters")
    return entry.get("parameters")
