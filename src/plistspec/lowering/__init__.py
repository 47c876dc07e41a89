"""Lowering: IR tools → IR tools that one provider accepts (``to-json --lower``).

Owns: the public entry points. :func:`lower_tools` rewrites each tool's parameters
(and name/description where needed) to what ``target`` accepts, by the rules in
``grammars/providers/rules.json`` (:mod:`.rules`), reporting every rewrite as a
diagnostic (info: lossless; warning: the schema accepts more or less; error: the target
cannot express the tool, and nothing should be emitted); :data:`TARGETS` names the
targets. The final JSON with the target's envelope is the emitters' job
(:func:`plistspec.emit_json.target.to_target_json`).

Modules: :mod:`.rules` (the table), :mod:`.schema` (the walk and per-node rewrites;
:mod:`.fastpath` and :mod:`.leaves`, its short cuts for the commonest object node and
the leaves),
:mod:`.merge` (``allOf`` and root unions), :mod:`.names` (tool names),
:mod:`.validate` (the checks), :mod:`.tools` (whole tools, strict mode; :mod:`.refusal`,
strict mode's refusal of a long tool found before its strict walk),
:mod:`.grammar` (the JSON Schemas written from the table).

Layer 4 of docs/architecture.md: may import the sources, :mod:`plistspec.elisp` and
:mod:`plistspec.core`; independent of :mod:`plistspec.replay`. Public: the names of
``__all__`` below, :func:`plistspec.lowering.tools.lower_tools_detailed`.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.formats import LOWER_TARGETS as TARGETS

__all__ = ["lower_tools", "TARGETS", "diagnostics_of"]


def lower_tools(
    tools: list[dict[str, Any]], target: str
) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """``tools`` lowered for ``target`` and one diagnostic per rewrite (see module doc).

    The cyclic garbage collector is paused meanwhile (:func:`plistspec.core.gcpause.paused`,
    as every pipeline run is): lowering makes many small acyclic values, which the
    collector would walk again and again without ever finding one to free."""
    from plistspec.core.gcpause import paused
    from plistspec.lowering.tools import lowered_parts

    with paused():
        out, parts = lowered_parts(tools, target)
        diags: list[Diagnostic] = []
        make = Diagnostic.rewrite_at
        for i, name, recs, changes, at in parts:
            if not changes:
                if recs:
                    diags.extend(diagnostics_of(recs, target))
                continue
            # the tool's records around its parameters' changes, as lower_tools_detailed
            # places them; a change's pointer is in the parameters
            if at:
                diags.extend(diagnostics_of(recs[:at], target))
            # (each message written when read: Diagnostic.rewrite_at)
            quoted = _quoted(target, i, name) + "/parameters"
            append = diags.append
            for pointer, code, severity, text, effect in changes:
                append(make(code, severity, quoted, pointer, text, effect))
            if len(recs) > at:
                diags.extend(diagnostics_of(recs[at:], target))
        return out, diags


def _quoted(target: str, tool: int, name: object) -> str:
    """How each diagnostic of a tool starts: the target, the tool's name (its place for a
    tool without one)."""
    name = name if isinstance(name, str) else f"#{tool + 1}"
    return f"{target}: tool {name!r}, "


def diagnostics_of(records: list, target: str) -> list[Diagnostic]:
    """Diagnostics (no span) for :class:`plistspec.lowering.tools.Rewrite` records. A
    rewrite's effect on the values the schema accepts ends its message in brackets
    (``[lossless]``, ``[widens]``, ``[narrows]``, ``[widens+narrows]``) and is the
    diagnostic's ``effect`` (in ``--diagnostics-format json`` too)."""
    out = []
    make = Diagnostic.rewrite_at  # (each message written when read)
    names: dict[int, str] = {}  # the quoted name of each tool, made once
    for x in records:
        if len(x) == 7:
            tool, name, pointer, code, severity, text, effect = x
        else:
            (tool, name, pointer, code, severity, text), effect = x, None
        quoted = names.get(tool)
        if quoted is None:
            quoted = names[tool] = _quoted(target, tool, name)
        out.append(make(code, severity, quoted, pointer, text, effect))
    return out
