"""The value layout of the Elisp writer: how one JSON value becomes plist / vector text.

Owns: :class:`Writer` (a text buffer tracking its column, the canonical line breaking of
plists and vectors, JSON → Elisp atoms per dialect, and the comments ``fmt`` carries),
:func:`reindent` (a slot text moved to another column) and the constants :data:`FILL`,
:data:`MAX_INDENT`. All escaping is done by :mod:`plistspec.elisp.printer`.
"""

from __future__ import annotations

import json  # noqa: F401
import re
from collections.abc import Generator
from typing import Any

from plistspec.diagnostics import Diagnostic

__all__ = ["Writer", "reindent", "FILL", "MAX_INDENT", "PLAIN"]

FILL = 100
MAX_INDENT = 120

PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
_LLM_KEEPS = ("type", "description", "enum", "items", "properties")
_FRONT_SLOTS = (":function",)
_HEADS = {"gptel": "gptel-make-tool", "llm": "llm-make-tool"}


# a line break followed by the indentation of each column a layout commonly uses
_NBREAKS = 256
_BREAKS = ["\n" + " " * c for c in range(_NBREAKS)]

# the keyword text of each IR key already written (a few dozen names recur in every tool)
_KEYS: dict[str, str] = {}
_KEYS_MAX = 4096


def _printer():
    from plistspec.elisp import printer

    return printer


def _visual_width(ws: str) -> int:
    col = 0
    for c in ws:
        col = (col // 8 + 1) * 8 if c == "\t" else col + 1
    return col


def reindent(text: str, old_col: int | None, new_col: int) -> str:
    """``text`` (a slot value as written at ``old_col``) moved to ``new_col``.

    Continuation lines shift by the column delta; lines that begin inside a string
    (or any other multi-line token) are left exactly as they are.
    """
    if old_col is None or old_col == new_col or "\n" not in text:
        return text
    delta = new_col - old_col
    protected = _token_spans(text)
    if protected is None:
        return text
    lines = text.split("\n")
    out = [lines[0]]
    pos = len(lines[0]) + 1
    pi = 0
    for line in lines[1:]:
        while pi < len(protected) and protected[pi][1] <= pos:
            pi += 1
        inside = pi < len(protected) and protected[pi][0] < pos < protected[pi][1]
        if inside or not line.strip():
            out.append(line)
        else:
            body = line.lstrip(" \t")
            width = _visual_width(line[: len(line) - len(body)])
            out.append(" " * max(0, width + delta) + body)
        pos += len(line) + 1
    return "\n".join(out)


def _token_spans(text: str) -> list[tuple[int, int]] | None:
    """Spans of the atoms (strings, symbols...) of ``text`` that cross a newline."""
    try:
        from plistspec.elisp.reader import read_all

        datums = read_all(text)
    except Exception:  # noqa: BLE001 - unreadable slot text is kept verbatim
        return None
    from plistspec.elisp.datum import atom_spans

    spans = [(a, b) for a, b in atom_spans(datums) if "\n" in text[a:b]]
    return spans


class Writer:
    """Appends text pieces, tracking the current column."""

    def __init__(self, dialect: str, label: str, diags: list[Diagnostic], plan: Any = None) -> None:
        self.dialect = dialect
        self.label = label
        self.diags = diags
        self.out: list[str] = []
        self.col = 0
        self.p = _printer()
        self.warned_empty = False
        # comments (fmt): a CommentPlan, the trailing comments waiting for the end of
        # the line, and which anchors were written
        self.plan = plan if plan else None
        self.pending: list[str] = []
        self.written: set[tuple[str, int]] = set()

    # -- low level ---------------------------------------------------------------------
    def put(self, s: str) -> None:
        self.out.append(s)
        nl = s.rfind("\n")
        self.col = self.col + len(s) if nl < 0 else len(s) - nl - 1

    def newline(self, col: int) -> None:
        if self.pending:
            self.put(" " + " ".join(self.pending))
            self.pending = []
        self.out.append(_BREAKS[col] if col < _NBREAKS else "\n" + " " * col)
        self.col = col

    # -- comments (only with a plan) ---------------------------------------------------
    def child(self, nid: int | None, key: tuple) -> int | None:
        return None if self.plan is None else self.plan.child(nid, key)

    def hot(self, nid: int | None) -> bool:
        return nid is not None and nid in self.plan.hot

    def lead(self, nid: int | None, col: int) -> None:
        """Leading comments of ``nid``, each on its own line at ``col``."""
        if nid is None or nid not in self.plan.leading:
            return
        self.written.add(("leading", nid))
        for line in self.plan.leading[nid]:
            self.put(line)
            self.newline(col)

    def has_lead(self, nid: int | None) -> bool:
        return nid is not None and nid in self.plan.leading

    def trail(self, nid: int | None, kind: str = "trailing") -> None:
        """The trailing (or open) comment of ``nid``: written at the end of this line."""
        if nid is None:
            return
        table = self.plan.trailing if kind == "trailing" else self.plan.open
        if nid in table:
            self.written.add((kind, nid))
            self.pending.append(table[nid])

    def end(self, nid: int | None, col: int) -> None:
        """End comments of ``nid`` on their own lines; the closing paren goes below."""
        if nid is None or nid not in self.plan.end:
            return
        self.written.add(("end", nid))
        for line in self.plan.end[nid]:
            self.newline(col)
            self.put(line)
        self.newline(col)

    def warn(self, code: str, message: str, severity: str = "warning") -> None:
        self.diags.append(Diagnostic(code, severity, f"tool {self.label}: {message}"))  # type: ignore[arg-type]

    def key(self, k: str) -> str:
        text = _KEYS.get(k)
        if text is None:
            text = "##" if k == "" else self.p.print_symbol(":" + k)
            if len(_KEYS) >= _KEYS_MAX:
                _KEYS.clear()
            _KEYS[k] = text
        return text

    # -- atoms -------------------------------------------------------------------------
    def atom(self, v: Any, ctx: str) -> str | None:
        """The text of a non-container value (and of ``{}`` / ``[]``), else None.

        ``ctx``: ``G`` gptel; ``C`` a value llm converts (inside ``:items``/``:properties``);
        ``R`` a value that reaches ``json-serialize`` as it is (llm vectors, arg level).
        """
        if v is True:
            return "t"
        if v is False:
            return ":json-false" if ctx == "G" else ":false"
        if v is None:
            return "nil" if ctx == "C" else ":null"
        if isinstance(v, str):
            return self.p.print_string(v)
        if isinstance(v, (int, float)):
            return self.p.print_number(v)
        if isinstance(v, dict):
            if v:
                return None
            if ctx == "C" and not self.warned_empty:
                self.warned_empty = True
                self.warn(
                    "PS522",
                    "an empty object {} inside :items/:properties is sent as null by llm (it has no way to write {} there)",
                )
            return "nil"
        if isinstance(v, list):
            return None if v else "[]"
        raise TypeError(f"not a JSON value: {type(v).__name__}")

    def type_atom(self, v: Any, ctx: str, keyword_led: bool) -> str | None:
        if (
            ctx != "R"
            and keyword_led
            and isinstance(v, str)
            and PLAIN.match(v)
            and v not in ("nil", "t")
        ):
            return v
        return self.atom(v, ctx)

    @staticmethod
    def child_ctx(ctx: str, v: Any) -> str:
        if ctx == "G":
            return "G"
        if ctx == "C" and not isinstance(v, list):
            return "C"
        return "R"

    # -- flat rendering ------------------------------------------------------------------
    def flat(self, v: Any, ctx: str, limit: int | None) -> str | None:
        """``v`` on one line, or None when longer than ``limit`` characters."""
        pieces: list[str] = []
        n = 0
        stack: list[tuple] = [("v", v, ctx, False)]
        while stack:
            kind, a, c, typ = stack.pop()
            if kind == "s":
                s = a
            else:
                if limit is not None and isinstance(a, str) and len(a) + 2 > limit - n:
                    return None
                s = self.type_atom(a, c, True) if typ else self.atom(a, c)
                if s is None:
                    if isinstance(a, list):
                        cc = self.child_ctx(c, a)
                        stack.append(("s", "]", None, False))
                        for i in range(len(a) - 1, -1, -1):
                            stack.append(("v", a[i], cc, False))
                            if i:
                                stack.append(("s", " ", None, False))
                        s = "["
                    else:
                        items = list(a.items())
                        kl = items[0][0] != ""
                        stack.append(("s", ")", None, False))
                        for i in range(len(items) - 1, -1, -1):
                            k, sub = items[i]
                            stack.append(("v", sub, self.child_ctx(c, sub), k == "type" and kl))
                            stack.append(("s", self.key(k) + " ", None, False))
                            if i:
                                stack.append(("s", " ", None, False))
                        s = "( "
            pieces.append(s)
            n += len(s)
            if limit is not None and n > limit:
                return None
        return "".join(pieces)

    # -- multi-line layout ---------------------------------------------------------------
    def value(self, v: Any, ctx: str, typ: bool = False, nid: int | None = None) -> Generator:
        """Write ``v`` at the current column (a generator for the trampoline)."""
        s = self.type_atom(v, ctx, True) if typ else self.atom(v, ctx)
        if s is not None:
            self.put(s)
            return
        if self.col > MAX_INDENT:
            self.put(self.flat(v, ctx, None) or "")
            return
        nested_plist = isinstance(v, dict) and any(isinstance(x, dict) and x for x in v.values())
        if not nested_plist and not self.hot(nid):
            f = self.flat(v, ctx, FILL - self.col)
            if f is not None:
                self.put(f)
                return
        start = self.col
        if isinstance(v, list):
            cc = self.child_ctx(ctx, v)
            self.put("[")
            for i, e in enumerate(v):
                cid = self.child(nid, ("i", i))
                if i:
                    self.newline(start + 1)
                    self.lead(cid, start + 1)
                s = self.atom(e, cc)
                if s is not None:
                    self.put(s)
                else:
                    yield self.value(e, cc, False, cid)
                self.trail(cid)
            self.end(nid, start + 1)
            self.put("]")
            return
        kl = not v or next(iter(v)) != ""
        entries = [
            (k, None, sub, self.child_ctx(ctx, sub), k == "type" and kl) for k, sub in v.items()
        ]
        yield self.plist(entries, start, nid)

    def plist(self, entries: list[tuple], start: int, nid: int | None = None) -> Generator:
        """A multi-line plist ``( :k v\n  :k v)`` opened at column ``start``.

        ``entries``: ``(id key, text, value, ctx, typ)``; with ``text`` None the entry is
        ``:key value`` written from the IR key ``id key``, otherwise ``text`` is the whole
        pre-rendered entry (an arg's ``:name "x"``) and ``value`` is ignored.
        """
        self.put("( ")
        plan = self.plan
        for i, (k, text, sub, ctx, typ) in enumerate(entries):
            cid = None if plan is None or nid is None else plan.child(nid, ("k", k))
            if i:
                self.newline(start + 2)
                if cid is not None:
                    self.lead(cid, start + 2)
            if text is not None:
                self.put(text)
            else:
                # an atom is written here; only a container needs its own generator
                s = self.type_atom(sub, ctx, True) if typ else self.atom(sub, ctx)
                if s is not None:
                    self.put(self.key(k) + " " + s)
                else:
                    self.put(self.key(k) + " ")
                    yield self.value(sub, ctx, typ, cid)
            if cid is not None:
                self.trail(cid)
        self.end(nid, start + 2)
        self.put(")")
