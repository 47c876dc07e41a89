"""The state one schema walk carries: the target's rules, the changes made so far.

Owns: :class:`Change` (one rewrite at a JSON pointer) and :class:`Ctx` (rules, strict
table, the original schema that ``$ref`` resolves against, the node budget, and where a
note goes when a node cannot hold a description).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from plistspec.core.jsonutil import add_note
from plistspec.lowering.rules import Rules

__all__ = ["Change", "Ctx"]


class Change(NamedTuple):
    pointer: str  # in the lowered parameters ("" is the root)
    code: str
    severity: str
    message: str


class Ctx:
    def __init__(self, rules: Rules, strict: bool, original: Any, budget: int) -> None:
        self.rules = rules
        self.strict = rules.strict if strict else None
        self.original = original
        self.changes: list[Change] = []
        self.tool_notes: list[str] = []
        self.budget = budget
        self.inline_all = rules["ref"] == "inline"

    def add(self, pointer: str, code: str, severity: str, message: str) -> None:
        self.changes.append(Change(pointer, code, severity, message))

    def allowed(self, key: str, root: bool) -> bool:
        if not self.rules.allowed(key, root):
            return False
        return not (self.strict is not None and key in self.strict["reject"])

    def note(self, node: dict[str, Any], root: bool, text: str) -> None:
        if self.allowed("description", root):
            add_note(node, text)
        else:
            self.tool_notes.append(text)
