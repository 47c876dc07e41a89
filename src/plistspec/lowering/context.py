"""The state one schema walk carries: the target's rules, the changes made so far.

Owns: :class:`Change` (one rewrite at a JSON pointer, with its *effect* on the values
the schema accepts), the effects themselves (:data:`LOSSLESS`, :data:`WIDENS`,
:data:`NARROWS`, :data:`BOTH`) and :class:`Ctx` (rules, strict table, the original
schema that ``$ref`` resolves against, the ``$ref`` s being expanded, the node budget,
where a note goes when a node cannot hold a description, and the strict-mode blocker
that sends a tool non-strict). A change is recorded once per rewrite kind and input
node: a definition inlined at a hundred places reports its rewrites once. Also the words
of the rewrites both the general walk (:mod:`.nodes`) and its short cuts
(:mod:`.fastpath`) report: :func:`refused_ap_text` (PS422), :func:`removed_meta_text`
(PS429), :func:`moved_text` (PS419).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from plistspec.core.jsonutil import add_note, brief
from plistspec.lowering.rules import Rules

__all__ = [
    "Change",
    "Ctx",
    "Blocked",
    "LOSSLESS",
    "WIDENS",
    "NARROWS",
    "BOTH",
    "refused_ap_text",
    "removed_meta_text",
    "moved_text",
]

#: the lowered schema accepts exactly the values the original did
LOSSLESS = "lossless"
#: it accepts more (a constraint was moved into a description or loosened)
WIDENS = "widens"
#: it accepts fewer (an object was closed, a value must now be of a type)
NARROWS = "narrows"
#: some values are newly accepted and some newly refused
BOTH = "widens+narrows"


def refused_ap_text(target: str, value: Any) -> str:
    """PS422's words for an ``additionalProperties`` the target ``target`` (its rules'
    name) refuses, said in the description instead."""
    return f"{target} refuses additionalProperties: {brief(value, 60)}; said in the description instead"


def removed_meta_text(target: str, key: str) -> str:
    """PS429's words for a metadata keyword (``$schema``, ``title``...) removed."""
    return f"removed {key} ({target} does not take it; it does not constrain the value)"


def moved_text(key: str) -> str:
    """PS419's words for an annotation (``default``, ``examples``...) said in the
    description."""
    return f"{key} moved into the description"


class Change(NamedTuple):
    pointer: Any  # in the lowered parameters ("" is the root)
    code: str
    severity: str
    message: str
    effect: str | None = None  # None for an error


_new = tuple.__new__  # a NamedTuple made without its Python-level __new__ (hot path)
_TURNED = (
    {},
    {WIDENS: NARROWS, NARROWS: WIDENS},  # under an odd number of nots
    {WIDENS: BOTH, NARROWS: BOTH},  # inside oneOf or if
)


class Blocked(Exception):
    """Raised in strict mode at the first thing strict mode cannot hold: the tool is
    then lowered again without it (PS426 says why)."""

    def __init__(self, pointer: Any, why: str) -> None:
        super().__init__(why)
        self.pointer = pointer
        self.why = why


class Ctx:
    __slots__ = (
        "rules",
        "strict",
        "original",
        "changes",
        "seen",
        "alive",
        "tool_notes",
        "budget",
        "inline_all",
        "active",
        "sized",
        "graph",
        "failed",
        "violations",
        "stats",
        "refs",
        "allowed_root",
        "allowed_node",
        "formats",
        "dedupe",
        "mode",
    )

    def __init__(self, rules: Rules, strict: bool, original: Any, budget: int) -> None:
        self.rules = rules
        self.strict = rules.strict if strict else None
        self.original = original
        self.changes: list[Change] = []
        # (code, id(origin), message) reported inside inlined definitions, made when first
        # needed (most schemas inline nothing); ``alive`` keeps the nodes in it alive
        self.seen: set[tuple[str, int, str]] | None = None
        self.alive: list[Any] = []
        self.tool_notes: list[str] = []
        self.budget = budget
        self.inline_all = rules.ref_mode == "inline"
        self.active: dict[str, int] = {}  # the $refs being expanded on the current path
        self.sized = False  # the expansion bound was checked
        self.graph: Any = None  # the $ref graph, built when first needed
        self.failed = False  # an error that stops the walk was reported
        # the lowered schema against the target's rules (plistspec.lowering.check)
        self.violations: list[tuple[Any, str]] = []
        self.stats = [0, 0, 0, 0]  # properties, enum values, characters, object depth
        self.refs: list[tuple[Any, str]] = []
        sets = rules.strict_sets if strict else rules.plain_sets
        self.allowed_root, self.allowed_node, self.formats = sets
        # only a node written more than once (inside an inlined definition) can report
        # the same rewrite twice: the walk sets this while it is inside one
        self.dedupe = False
        # where the node is: 0 anywhere monotone, 1 under an odd number of nots (a rewrite
        # that widens the node narrows the schema), 2 inside oneOf or if (either way)
        self.mode = 0

    def add(
        self,
        pointer: Any,
        code: str,
        effect: str,
        message: str,
        origin: Any = None,
        warn: bool = False,
    ) -> None:
        """Record a rewrite (info when lossless, else a warning; a warning either way with
        ``warn``: a guess at what the author meant), once per input node."""
        if self.dedupe and origin is not None and self._seen_before(code, origin, message):
            return
        if self.mode and effect != LOSSLESS:
            effect = _TURNED[self.mode].get(effect, effect)
        self.changes.append(
            _new(
                Change,
                (
                    pointer,
                    code,
                    "info" if effect == LOSSLESS and not warn else "warning",
                    message,
                    effect,
                ),
            )
        )

    def error(self, pointer: Any, code: str, message: str, origin: Any = None) -> None:
        if self.dedupe and origin is not None and self._seen_before(code, origin, message):
            return
        self.changes.append(_new(Change, (pointer, code, "error", message, None)))

    def _seen_before(self, code: str, origin: Any, message: str) -> bool:
        """Whether this rewrite of this input node was recorded already (else remember it)."""
        seen = self.seen
        if seen is None:
            seen = self.seen = set()
        key = (code, id(origin), message)
        if key in seen:
            return True
        seen.add(key)
        self.alive.append(origin)
        return False

    def block(self, pointer: Any, why: str) -> None:
        """In strict mode: this schema cannot be strict (raises :class:`Blocked`)."""
        if self.strict is not None:
            raise Blocked(pointer, why)

    def allowed(self, key: str, root: bool) -> bool:
        if not self.rules.allowed(key, root):
            return False
        s = self.strict
        if s is None:
            return True
        return key in s["keywords_set"]

    def note(self, node: dict[str, Any], root: bool, text: str) -> None:
        if self.allowed("description", root):
            add_note(node, text)
        else:
            self.tool_notes.append(text)
