"""Tool-slot lints: the slots of ``(gptel-make-tool ...)`` / ``(llm-make-tool ...)`` themselves.

Owns: what is wrong with the tool form's own keyword slots, not its ``:args`` --
unknown or misspelt slots with a did-you-mean (PS301), slots the library ignores
(PS302), duplicate slots (PS312), a missing, nil or non-string ``:name`` or
``:description`` (PS304, PS305, PS308), a tool name every provider rejects (PS307) or
only some do (PS339: a dot, which MCP and Gemini take; ``-t`` then decides), an empty
description (PS306) and a tool without ``:function`` (PS331). Also the slot tables other
modules import (:data:`GPTEL_SLOTS`, :data:`LLM_SLOTS`, :data:`TOOL_NAME_RE`).
"""

from __future__ import annotations

import re

from plistspec.elisp.datum import String, Symbol, is_nil
from plistspec.extract import Slot, ToolForm
from plistspec.lint._util import Sink, brief, elisp_string, suggest

__all__ = ["tool_slots", "TOOL_NAME_RE", "GPTEL_SLOTS", "LLM_SLOTS"]

TOOL_NAME_RE = re.compile(r"[a-zA-Z0-9_-]{1,64}")
LLM_SLOTS = (":function", ":name", ":description", ":args", ":async")
GPTEL_SLOTS = LLM_SLOTS + (":category", ":confirm", ":include")
_SLOT_WORDS = tuple(s[1:] for s in GPTEL_SLOTS)
_GPTEL_SLOTS = frozenset(GPTEL_SLOTS)
#: slots of a known convention the libraries ignore, never taken for a misspelling:
#: llm-tool-collection's :tags (its specs are handed to gptel-make-tool/llm-make-tool)
_CONVENTION_SLOTS = frozenset({":tags"})


def _head(form: ToolForm) -> Symbol:
    """A pseudo-datum spanning ``(head`` of the form, to anchor 'missing slot' findings."""
    t = form.text
    end = form.start + 1
    if 0 <= form.start < len(t) and t[form.start] == "(":
        j = end
        while j < len(t) and j < form.end and not t[j].isspace() and t[j] not in "()":
            j += 1
        end = j
    return Symbol(form.head, form.start, max(end, form.start + 1))


def tool_slots(sink: Sink, form: ToolForm, dialect: str) -> dict[str, Slot]:
    """Every tool-level finding of ``form`` under ``dialect``, in slot order. Returns the
    first slot of each name (what :meth:`ToolForm.slot` finds), for the other lints."""
    seen: dict[str, Slot] = {}
    present: set[str] | None = None  # every slot name, made for the first unknown slot
    for s in form.slots:
        n = s.key.name
        if n in seen:
            sink.add(
                "PS312",
                "warning",
                f"duplicate slot {n}: gptel and llm use the first one "
                f"(line {sink.line(seen[n].key)}); this one is ignored",
                s.key,
            )
            continue
        seen[n] = s
        if n not in _GPTEL_SLOTS:
            if present is None:
                present = {s.key.name for s in form.slots}
            sug = None if n in _CONVENTION_SLOTS else suggest(n, _SLOT_WORDS)
            if (
                sug is None
                and n not in _CONVENTION_SLOTS
                and isinstance(s.value, String)
                and ":description" not in present
            ):
                sug = "description"
            if sug is not None and ":" + sug not in present:
                sink.add(
                    "PS301",
                    "warning",
                    f"unknown slot {n} (did you mean :{sug}?); gptel and llm ignore it",
                    s.key,
                    fix=sink.replace(s.key, ":" + sug, n),
                )
            else:
                lib = "gptel" if dialect == "gptel" else "llm"
                sink.add("PS302", "info", f"{lib} ignores the slot {n}", s.key)
        elif dialect == "llm" and n not in LLM_SLOTS:
            sink.add("PS302", "info", f"llm ignores the slot {n} (a gptel slot)", s.key)
    _tool_name(sink, form, seen.get(":name"))
    _tool_description(sink, form, seen.get(":description"))
    if ":function" not in seen and form.head != "llm-tool-collection-deftool":
        sink.add(
            "PS331",
            "warning",
            "tool without :function: nothing runs when it is called",
            _head(form),
        )
    return seen


def _not_a_string(sink: Sink, s, what: str) -> None:
    """PS308 at the value as written (``'read_file``, not the symbol inside the quote)."""
    v = s.value
    at = s.form if sink.written(s.form) else v
    fix = None
    if isinstance(v, Symbol):
        fix = sink.replace(at, elisp_string(v.name))
        why = "a symbol: gptel and llm fail to send it"
    else:
        why = "not a string"
    sink.add("PS308", "error", f"tool :{what} {brief(at, sink.text)} is {why}", at, fix=fix)


def _tool_name(sink: Sink, form: ToolForm, s: Slot | None) -> None:
    if s is None:
        sink.add("PS304", "error", 'tool without :name: it is sent as "name": {}', _head(form))
        return
    v = s.value
    if v is None:
        return
    if is_nil(v):
        sink.add("PS304", "error", 'tool :name is nil: it is sent as "name": {}', v)
    elif isinstance(v, String):
        if not TOOL_NAME_RE.fullmatch(v.value):
            fixed = re.sub(r"[^a-zA-Z0-9_-]", "_", v.value)[:64] or "tool"
            fix = sink.replace(v, elisp_string(fixed)) if v.value else None
            takers = _takers(v.value)
            if takers:  # gptel, llm and these providers take it: the target's rule decides
                sink.add(
                    "PS339",
                    "warning",
                    f"tool name {elisp_string(v.value)} is rejected by OpenAI, Anthropic and "
                    f"Bedrock (names must match ^[a-zA-Z0-9_-]{{1,64}}$), taken by {takers}: "
                    f"check -t TARGET says whether your provider takes it "
                    f"(else e.g. {elisp_string(fixed)})",
                    v,
                    fix=fix,
                )
                return
            sink.add(
                "PS307",
                "error",
                f"tool name {elisp_string(v.value)} is rejected by OpenAI, Anthropic and Bedrock: "
                f"names must match ^[a-zA-Z0-9_-]{{1,64}}$ (e.g. {elisp_string(fixed)})",
                v,
                fix=fix,
            )
    else:
        _not_a_string(sink, s, "name")


def _takers(name: str) -> str:
    """Which of the providers with a looser name rule than OpenAI's take ``name``
    (Gemini: dots and colons; MCP: dots, up to 128 characters), as words; "" for none."""
    from plistspec.lint.target_data import NAME_RULES

    takers = [
        shown
        for target, shown in (("gemini", "Gemini"), ("mcp", "MCP"))
        if (rule := NAME_RULES.get(target)) is not None and rule[0].fullmatch(name)
    ]
    return " and ".join(takers)


def _tool_description(sink: Sink, form: ToolForm, s: Slot | None) -> None:
    if s is None:
        sink.add(
            "PS305",
            "error",
            'tool without :description: gptel and llm send "description": {} '
            "(Bedrock rejects it, other providers expect a string)",
            _head(form),
        )
        return
    v = s.value
    if v is None:
        return
    if is_nil(v):
        sink.add("PS305", "error", 'tool :description is nil: it is sent as "description": {}', v)
    elif isinstance(v, String):
        if not v.value.strip():
            sink.add("PS306", "warning", "empty tool description (Bedrock rejects it)", v)
    else:
        _not_a_string(sink, s, "description")
