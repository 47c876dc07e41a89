"""A tool form laid out from its own source: only the blanks between tokens change.

Owns: :func:`relayout` (``fmt``'s layout of one ``(gptel-make-tool ...)`` /
``(llm-make-tool ...)`` form). Every token of the form — each string literal as it is
spelt (line breaks, escapes, ``\\``-newline continuations), each symbol, number and
``#'`` — and every comment is copied from the source; the slots stay in their order and
a ``(concat ...)`` stays a call. What the layout decides is where lines break and how far
each line is indented (``emacs-conventions.md`` §3):

* ``(HEAD`` then one ``:key value`` per line, indented one column past the paren;
* ``:args``: a ``(list A ...)`` / ``(vector A ...)`` call, a quoted list ``'(A ...)`` or
  a vector ``[A ...]`` of arg plists, one arg a line, aligned under the first;
* an arg plist (``'(:name ...)``, ``(:name ...)`` or ``(list :name ...)``): one ``:key
  value`` a line, keys aligned under the first; a data plist opens with ``( `` (the space
  marks data, as in the writer's layout);
* a nested plist or vector inside an arg: on one line when it fits in
  :data:`plistspec.emit_elisp.layout.FILL` columns, holds no non-empty plist, no comment
  and no line break, else one key (element) a line;
* anything else (``:function``, ``:description``, a call, a backquoted list): its text as
  written, continuation lines shifted by the change of column, never inside a string
  (:func:`plistspec.emit_elisp.reindent.reindent`).

Comments: one after code stays at the end of the line of what it follows (a closing
paren written after it is put before it); one on its own line stays on its own line
before what follows it, or before the closing paren. A comment between a key and its
value, or on its own line before the first key of a nested plist, has no place: the
result is ``None`` with its offset, and fmt leaves the form as it was.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.columns import visual_column
from plistspec.elisp.datum import List, Symbol, Vector
from plistspec.emit_elisp.layout import FILL
from plistspec.emit_elisp.reindent import reindent

__all__ = ["relayout", "Unplaced"]

_PREFIXES = frozenset(("quote", "function", "`", ",", ",@"))
_ARG_CALLS = frozenset(("list", "vector"))


class Unplaced(Exception):
    """A comment (at offset ``args[0]``) the layout has no place for."""


def _comments_in_gap(text: str, lo: int, hi: int) -> list[tuple[int, str, bool]] | None:
    """The comments of the gap ``text[lo:hi]`` between tokens, each ``(offset, text, own
    line)``; None when it holds anything but blanks and comments (then the container is
    kept as written)."""
    out = []
    i = lo
    while i < hi:
        c = text[i]
        if c == ";":
            eol = text.find("\n", i, hi)
            j = hi if eol < 0 else eol
            line_start = text.rfind("\n", 0, i) + 1
            out.append((i, text[i:j].rstrip(), not text[line_start:i].strip()))
            i = j
        elif c.isspace():
            i += 1
        else:
            return None
    return out


class _Out:
    """Text pieces and the current column; comments after code wait for the line end."""

    def __init__(self, col: int) -> None:
        self.out: list[str] = []
        self.col = col
        self.pending: list[str] = []

    def put(self, s: str) -> None:
        self.out.append(s)
        nl = s.rfind("\n")
        self.col = self.col + len(s) if nl < 0 else len(s) - nl - 1

    def newline(self, col: int) -> None:
        self.flush()
        self.out.append("\n" + " " * col)
        self.col = col

    def flush(self) -> None:
        if self.pending:
            self.out.append(" " + " ".join(self.pending))
            self.col += 1 + len(" ".join(self.pending))
            self.pending = []

    def lines(self, comments: list[str], col: int) -> None:
        """Comments on their own lines at ``col``; the next token goes below them."""
        for c in comments:
            self.put(c)
            self.newline(col)


def _prefix(d: Any, text: str) -> str | None:
    """``'``, ``#'``... when ``d`` is ``'X``-style shorthand (not ``(quote X)``)."""
    if (
        type(d) is List
        and d.tail is None
        and len(d.items) == 2
        and type(d.items[0]) is Symbol
        and d.items[0].start == d.start
        and d.items[0].name in _PREFIXES
    ):
        return text[d.start : d.items[0].end]
    return None


def _plist_at(d: Any) -> int | None:
    """Where the keyword pairs of ``d`` start: 0 for ``(:k v ...)``, 1 for ``(list :k v
    ...)``; None when ``d`` is not such a list."""
    if type(d) is not List or d.tail is not None or d.start < 0:
        return None
    items = d.items
    at = 1 if type(items[0]) is Symbol and items[0].name == "list" else 0
    rest = items[at:]
    if not rest or len(rest) % 2:
        return None
    for k in rest[::2]:
        if type(k) is not Symbol or not k.name.startswith(":") or k.start < 0:
            return None
    return at


class _Layout:
    def __init__(self, text: str) -> None:
        self.text = text

    # -- pieces ------------------------------------------------------------------------
    def gap(self, lo: int, hi: int) -> list[tuple[int, str, bool]]:
        found = _comments_in_gap(self.text, lo, hi)
        if found is None:
            raise _Verbatim
        return found

    def verbatim(self, w: _Out, d: Any) -> None:
        src = self.text[d.start : d.end]
        w.put(reindent(src, visual_column(self.text, d.start), w.col, w.col + 1, d))

    def flat(self, d: Any) -> str | None:
        """``d`` on one line as the layout writes it, None when it cannot be (a comment,
        a line break, a non-empty plist inside a plist)."""
        text = self.text
        pre = _prefix(d, text)
        if pre is not None:
            inner = self.flat(d.items[1])
            return None if inner is None else pre + inner
        at = _plist_at(d)
        if at is not None or type(d) is Vector:
            items = d.items
            if not items:
                return text[d.start : d.end]
            parts = []
            prev = d.start + 1
            for k, e in enumerate(items):
                if _comments_in_gap(text, prev, e.start) != []:
                    return None
                prev = e.end
                if at is not None and k >= at and (k - at) % 2 == 1 and _plist_at(e) is not None:
                    return None
                s = self.flat(e)
                if s is None:
                    return None
                parts.append(s)
            if _comments_in_gap(text, prev, d.end - 1) != []:
                return None
            if type(d) is Vector:
                return "[" + " ".join(parts) + "]"
            if at == 0:
                return "( " + _pairs_flat(parts) + ")"
            return "(" + parts[0] + " " + _pairs_flat(parts[1:]) + ")"
        s = text[d.start : d.end]
        return None if "\n" in s else s

    # -- values ------------------------------------------------------------------------
    def value(self, w: _Out, d: Any) -> None:
        """A value inside an arg plist: nested plists and vectors laid out, the rest kept."""
        pre = _prefix(d, self.text)
        target = d.items[1] if pre is not None else d
        if _plist_at(target) is None and type(target) is not Vector:
            self.verbatim(w, d)
            return
        f = self.flat(d)
        if f is not None and len(f) <= FILL - w.col:
            w.put(f)
            return

        def laid_out() -> None:
            if pre is not None:
                w.put(pre)
            self.container(w, target)

        self.attempt(w, laid_out, d)

    def attempt(self, w: _Out, write: Any, d: Any) -> None:
        """``write()``, or ``d`` as written when it finds code between tokens."""
        mark = len(w.out), w.col, list(w.pending)
        try:
            write()
        except _Verbatim:
            del w.out[mark[0] :]
            w.col, w.pending = mark[1], mark[2]
            self.verbatim(w, d)

    def no_gap(self, lo: int, hi: int) -> None:
        """Nothing but blanks in ``text[lo:hi]`` (where the layout writes no comment)."""
        if self.text[lo:hi].strip():
            raise _Verbatim

    def container(self, w: _Out, d: Any) -> None:
        """A plist (one pair a line) or a vector (one element a line)."""
        text = self.text
        items = d.items
        if not items:
            w.put(text[d.start : d.end])
            return
        if type(d) is Vector:
            w.put("[")
            groups = [(e,) for e in items]
            opener_end = d.start + 1
        else:
            at = _plist_at(d)
            if at == 0:
                w.put("( ")
                opener_end = d.start + 1
            else:
                self.no_gap(d.start + 1, items[0].start)
                w.put("(" + text[items[0].start : items[0].end] + " ")
                opener_end = items[0].end
            groups = [tuple(items[i : i + 2]) for i in range(at, len(items), 2)]
        col = w.col
        opening = self.gap(opener_end, groups[0][0].start)
        for c in opening:
            if c[2]:
                raise Unplaced(c[0])  # own line before the first key: no place for it
        prev = groups[0][0].start
        for i, g in enumerate(groups):
            if i:
                self.next_line(w, prev, g[0].start, col)
            self.group(w, g)
            if not i:  # a comment after the opening paren: at the end of the first line
                w.pending.extend(c[1] for c in opening)
            prev = g[-1].end
        self.close(w, prev, d.end - 1, col, "]" if type(d) is Vector else ")")

    def group(self, w: _Out, g: tuple) -> None:
        if len(g) == 1:
            self.value(w, g[0])
            return
        self.key(w, *g)
        self.value(w, g[1])

    def close(self, w: _Out, prev: int, close: int, col: int, paren: str = "") -> None:
        """The comments after the last element (those on their own lines at ``col``, the
        closing paren below them), then ``paren``."""
        after = self.gap(prev, close)
        w.pending.extend(c[1] for c in after if not c[2])
        own = [c[1] for c in after if c[2]]
        if own:
            w.newline(col)
            for i, c in enumerate(own):
                if i:
                    w.newline(col)
                w.put(c)
            w.newline(col)
        w.put(paren)

    def next_line(self, w: _Out, prev: int, start: int, col: int) -> None:
        """A line break at ``col`` before the element at ``start``: the comments after
        ``prev`` on its line end that line, those on their own lines go before it."""
        between = self.gap(prev, start)
        w.pending.extend(c[1] for c in between if not c[2])
        w.newline(col)
        w.lines([c[1] for c in between if c[2]], col)

    def key(self, w: _Out, k: Any, v: Any) -> None:
        """``:key `` (a comment between a key and its value has no place)."""
        found = self.gap(k.end, v.start)
        if found:
            raise Unplaced(found[0][0])
        w.put(self.text[k.start : k.end] + " ")

    # -- :args ---------------------------------------------------------------------------
    def args(self, w: _Out, d: Any) -> None:
        """The ``:args`` value: one arg a line, aligned under the first."""
        text = self.text
        pre = _prefix(d, text)
        lst = d.items[1] if pre == "'" else d
        if pre not in (None, "'"):
            self.verbatim(w, d)
            return
        if type(lst) is Vector:
            opener, elements = "[", lst.items
            head_end = lst.start + 1
        elif type(lst) is List and lst.tail is None:
            head = lst.items[0]
            if pre is None:
                if type(head) is not Symbol or head.name not in _ARG_CALLS:
                    self.verbatim(w, d)
                    return
                self.no_gap(lst.start + 1, head.start)
                opener, elements = "(" + head.name + " ", lst.items[1:]
                head_end = head.end
            else:
                opener, elements = "(", lst.items
                head_end = lst.start + 1
        else:
            self.verbatim(w, d)
            return
        if not elements or not all(self.is_arg(a, quoted=pre == "'") for a in elements):
            self.verbatim(w, d)
            return
        if pre:
            w.put(pre)
        if self.gap(head_end, elements[0].start):
            # a comment before the first arg: every arg on a line of its own
            col = w.col + 1
            w.put(opener.rstrip())
            self.next_line(w, head_end, elements[0].start, col)
        else:
            w.put(opener)
            col = w.col
        prev = elements[0].start
        for i, a in enumerate(elements):
            if i:
                self.next_line(w, prev, a.start, col)
            self.arg(w, a)
            prev = a.end
        self.close(w, prev, lst.end - 1, col, "]" if type(lst) is Vector else ")")

    def is_arg(self, a: Any, quoted: bool) -> bool:
        if quoted:
            return _plist_at(a) == 0
        pre = _prefix(a, self.text)
        if pre == "'":
            return _plist_at(a.items[1]) == 0
        return pre is None and _plist_at(a) == 1

    def arg(self, w: _Out, a: Any) -> None:
        pre = _prefix(a, self.text)
        if pre is not None:
            w.put(pre)
            a = a.items[1]
        self.container(w, a)

    # -- the form ------------------------------------------------------------------------
    def form(self, d: Any, col: int, tail_safe: bool) -> str:
        text = self.text
        w = _Out(col)
        items = d.items
        head = items[0]
        self.no_gap(d.start + 1, head.start)
        w.put("(" + text[head.start : head.end])
        slots = [(items[i], items[i + 1]) for i in range(1, len(items) - 1, 2)]
        ind = col + 1
        prev = head.end
        for k, v in slots:
            self.next_line(w, prev, k.start, ind)
            self.key(w, k, v)
            if k.name == ":args":
                self.attempt(w, lambda v=v: self.args(w, v), v)
            else:
                self.verbatim(w, v)
            prev = v.end
        self.close(w, prev, d.end - 1, ind)
        if w.pending and not tail_safe:
            w.newline(ind)
        w.put(")")
        if w.pending:
            w.out.append(" " + " ".join(w.pending))
        return "".join(w.out)


class _Verbatim(Exception):
    """Something other than blanks and comments between two tokens: keep as written."""


def _pairs_flat(parts: list[str]) -> str:
    return " ".join(parts[i] + " " + parts[i + 1] for i in range(0, len(parts) - 1, 2))


def relayout(d: Any, text: str, col: int, tail_safe: bool = True) -> str:
    """The tool form ``d`` (a ``List``: head, then ``:key value`` pairs) of ``text`` laid
    out with its ``(`` at column ``col`` (module doc). ``tail_safe`` False: code follows
    the form on its last line, so a comment there must not end the form (the closing paren
    then goes on a line of its own). Raises :class:`Unplaced` for a comment with no place;
    a form whose items are not ``head :key value...`` comes back as written."""
    if type(d) is not List or d.tail is not None or len(d.items) % 2 != 1:
        return text[d.start : d.end]
    try:
        return _Layout(text).form(d, col, tail_safe)
    except _Verbatim:
        return text[d.start : d.end]
