"""Provider lints of the tool itself: its name and description (PS401, PS402).

Owns: the tool-level rules of ``providers.md``, read from the form's slots (not from the
emitted JSON): a tool name the target's name rule rejects (PS401, with the name mapped
to the rule as the fix, which gptel/llm dispatch by itself) and a description Bedrock
requires or Ollama cannot decode (PS402). A missing slot is reported at
``(gptel-make-tool``.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, String, Symbol, is_nil
from plistspec.extract import ToolForm
from plistspec.lint._util import Sink, elisp_string
from plistspec.lint.target_data import NAME_RULES

__all__ = ["tool_name", "tool_description"]


def _head_anchor(form: ToolForm) -> Datum:
    t = form.text
    end = form.start + 1
    while end < min(form.end, len(t)) and not t[end].isspace() and t[end] not in "()":
        end += 1
    return Symbol(form.head, form.start, max(end, form.start + 1))


def tool_name(sink: Sink, form: ToolForm, target: str) -> None:
    """PS401: ``target`` rejects the tool's name."""
    rule = NAME_RULES.get(target)
    s = form.slot(":name")
    if rule is None or s is None or not isinstance(s.value, String):
        return
    regex, text, severity = rule
    if not regex.fullmatch(s.value.value):
        from plistspec.elisp.printer import print_string
        from plistspec.lowering.names import map_names
        from plistspec.lowering.rules import rules

        new = map_names([s.value.value], rules(target))[0]
        fix = sink.replace(s.value, print_string(new)) if isinstance(new, str) else None
        hint = f" (fix: {elisp_string(new)}, which gptel/llm dispatch by itself)" if fix else ""
        sink.add(
            "PS401",
            severity,
            f"{target} rejects the tool name {elisp_string(s.value.value)}: it must match {text}"
            + hint,
            s.value,
            fix=fix,
        )


def tool_description(sink: Sink, form: ToolForm, target: str) -> None:
    """PS402: Bedrock's required description, Ollama's string-only one."""
    if target != "bedrock" and target != "ollama":
        return
    s = form.slot(":description")
    if target == "bedrock":
        if s is None:
            sink.add(
                "PS402", "error", "Bedrock requires a non-empty description", _head_anchor(form)
            )
        elif isinstance(s.value, String) and not s.value.value:
            sink.add("PS402", "error", 'Bedrock rejects the empty description ""', s.value)
        elif s.value is not None and is_nil(s.value):
            sink.add("PS402", "error", 'Bedrock rejects "description": {} (nil)', s.value)
    elif target == "ollama":
        if s is None or (s.value is not None and not isinstance(s.value, String)):
            where = _head_anchor(form) if s is None else s.value
            sink.add(
                "PS402",
                "error",
                "Ollama cannot decode a description that is not a string (a missing one is sent as {})",
                where,
            )
