"""The value layout of the Elisp writer: how one JSON value becomes plist / vector text.

Owns: :class:`Writer` (a text buffer tracking its column, the canonical line breaking of
plists and vectors, JSON → Elisp atoms per dialect) and the constants :data:`FILL`, :data:`MAX_INDENT`. All escaping is done by
:mod:`plistspec.elisp.printer`.

No recursion anywhere (inputs may nest 100 000 deep) and no generator per container: a
container of atoms (most are) is printed in one loop (:meth:`Writer._pieces`) and joined
either on one line or one element a line; a nested value is tried on one line through
an explicit stack (:meth:`Writer._flat_nested`), and a multi-line container in progress
is a frame on the explicit stack of :meth:`Writer._layout`. The output is byte for byte
that of the generator-per-container writer it replaced (``tests/emit/test_writer_snapshot.py``).
"""

from __future__ import annotations

import re
import sys
from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.elisp import printer as _printer

__all__ = ["Writer", "FILL", "MAX_INDENT", "PLAIN"]

FILL = 100
MAX_INDENT = 120

PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")


# a line break followed by the indentation of each column a layout commonly uses
_NBREAKS = 256
_BREAKS = ["\n" + " " * c for c in range(_NBREAKS)]

# the keyword text of each IR key already written (a few dozen names recur in every tool)
_KEYS: dict[str, str] = {}
_KEYS_MAX = 4096

_NO_LIMIT = sys.maxsize
_NIL_T = ("nil", "t")
_HOLDS_PLIST = object()  # Writer._pieces stopped at a plist in a plist
_NESTED = object()  # Writer._pieces stopped at another container
_ENTRIES, _DICT, _VECTOR = 0, 1, 2  # the kinds of Writer._layout's frames


class Writer:
    """Appends text pieces to :attr:`out`, tracking the current column :attr:`col`."""

    def __init__(self, dialect: str, label: str, diags: list[Diagnostic]) -> None:
        self.dialect = dialect
        self.label = label
        self.diags = diags
        self.out: list[str] = []
        self.col = 0
        self.p = _printer
        self.pstr = self.p.print_string
        self.warned_empty = False
        # from-json --category: gptel's :category of every tool (None: the tool's own)
        self.category: str | None = None

    # -- low level ---------------------------------------------------------------------
    def put(self, s: str) -> None:
        self.out.append(s)
        nl = s.rfind("\n")
        self.col = self.col + len(s) if nl < 0 else len(s) - nl - 1

    def newline(self, col: int) -> None:
        self.out.append(_BREAKS[col] if col < _NBREAKS else "\n" + " " * col)
        self.col = col

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
        An atom's text never holds a line break.
        """
        if type(v) is str:
            return self.pstr(v)
        if v is True:
            return "t"
        if v is False:
            return ":json-false" if ctx == "G" else ":false"
        if v is None:
            return "nil" if ctx == "C" else ":null"
        if isinstance(v, str):
            return self.pstr(v)
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
        """``v`` on one line, or None when longer than ``limit`` characters.

        A container of atoms is printed whole (its atoms are written either way); a
        nested one is given up as soon as it exceeds ``limit`` (a string longer than the
        room left is not printed), so trying a big nested value costs O(``limit``).
        """
        room = _NO_LIMIT if limit is None else limit
        pieces, stop = self._pieces(v, ctx)
        if stop is not None:
            return self._flat_nested(v, ctx, room)
        if sum(map(len, pieces)) + len(pieces) + (1 if isinstance(v, list) else 2) > room:
            return None
        s = " ".join(pieces)
        return "[" + s + "]" if isinstance(v, list) else "( " + s + ")"

    def _flat_nested(self, v: Any, ctx: str, room: int) -> str | None:
        """:meth:`flat` of any value, through an explicit stack (any depth)."""
        pieces: list[str] = []
        n = 0
        stack: list[tuple] = [("v", v, ctx, False)]
        while stack:
            kind, a, c, typ = stack.pop()
            if kind == "s":
                s = a
            else:
                if isinstance(a, str) and len(a) + 2 > room - n:
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
            if n > room:
                return None
        return "".join(pieces)

    def _pieces(self, v: Any, ctx: str) -> tuple[list[str], Any]:
        """``(texts, stop)``: the texts of the elements (``:key value`` for a plist) of a
        non-empty container, the same texts the flat and the multi-line layout write.
        ``stop`` is None when every element is an atom (most containers); else the texts
        are those before the first non-empty container element and ``stop`` is
        :data:`_HOLDS_PLIST` (a plist in a plist) or :data:`_NESTED`."""
        pstr = self.pstr
        pieces: list[str] = []
        if type(v) is list:
            cc = "G" if ctx == "G" else "R"
            for e in v:
                if type(e) is str:
                    pieces.append(pstr(e))
                elif e and (type(e) is dict or type(e) is list):
                    return pieces, _NESTED
                else:
                    s = self.atom(e, cc)
                    if s is None:
                        return pieces, _NESTED
                    pieces.append(s)
            return pieces, None
        if type(v) is not dict or not v:
            return pieces, _NESTED
        kl = next(iter(v)) != ""
        keys = _KEYS
        for k, sub in v.items():
            if type(sub) is str:
                if kl and k == "type" and ctx != "R" and PLAIN.match(sub) and sub not in _NIL_T:
                    s = sub
                else:
                    s = pstr(sub)
            elif sub and (type(sub) is dict or type(sub) is list):
                return pieces, _HOLDS_PLIST if type(sub) is dict else _NESTED
            else:
                c = ctx if ctx == "G" or not isinstance(sub, list) else "R"
                s = self.type_atom(sub, c, True) if kl and k == "type" else self.atom(sub, c)
                if s is None:
                    return pieces, _NESTED
            pieces.append((keys.get(k) or self.key(k)) + " " + s)
        return pieces, None

    # -- multi-line layout ---------------------------------------------------------------
    def value(self, v: Any, ctx: str, typ: bool = False) -> None:
        """Write ``v`` at the current column."""
        frame = self._open(v, ctx, typ)
        if frame is not None:
            self._layout(frame)

    def plist(self, entries: list[tuple], start: int) -> None:
        """A multi-line plist ``( :k v\n  :k v)`` opened at column ``start``.

        ``entries``: ``(id key, text, value, ctx, typ)``; with ``text`` None the entry is
        ``:key value`` written from the IR key ``id key``, otherwise ``text`` is the whole
        pre-rendered entry (an arg's ``:name "x"``) and ``value`` is ignored.
        """
        pstr = self.pstr
        keys = _KEYS
        pieces = []
        for k, text, sub, ctx, typ in entries:
            if text is None:
                t = type(sub)
                if t is str:
                    if typ and ctx != "R" and PLAIN.match(sub) and sub not in _NIL_T:
                        s = sub
                    else:
                        s = pstr(sub)
                elif (t is dict or t is list) and sub:
                    break
                else:
                    s = self.type_atom(sub, ctx, True) if typ else self.atom(sub, ctx)
                    if s is None:
                        break
                text = (keys.get(k) or self.key(k)) + " " + s
            pieces.append(text)
        else:
            self._lines(pieces, start + 2, "( ", ")")
            return
        # the entries before the first container are written; the frame goes on
        self._lines(pieces, start + 2, "( ", "")
        self._layout([entries, len(pieces), start, _ENTRIES, None, False])

    def _lines(self, pieces: list[str], col: int, opener: str, closer: str) -> None:
        """A multi-line container of ``pieces``, one a line at ``col``."""
        brk = _BREAKS[col] if col < _NBREAKS else "\n" + " " * col
        self.put(opener + brk.join(pieces) + closer)

    def _open(self, v: Any, ctx: str, typ: bool, prefix: str = "") -> list | None:
        """Write ``prefix`` then ``v`` at the column after it. When ``v`` is an atom, goes
        on one line or is a container of atoms, that is all (None);
        else its opening is written and the frame of its multi-line layout returned.
        (Each case is one piece of output: ``prefix`` goes with it.)"""
        t = type(v)
        if (t is dict or t is list) and v:
            s = None
        else:
            s = self.type_atom(v, ctx, True) if typ else self.atom(v, ctx)
        if s is not None:
            self.put(prefix + s)
            return None
        if "\n" in prefix:  # a key holding a line break (rare): the column from the text
            self.put(prefix)
            prefix = ""
        start = self.col + len(prefix)
        if start > MAX_INDENT:
            self.put(prefix + (self.flat(v, ctx, None) or ""))
            return None
        pieces, stop = self._pieces(v, ctx)
        is_list = isinstance(v, list)
        if stop is None:
            n = sum(map(len, pieces)) + len(pieces) + (1 if is_list else 2)
            col = start + (1 if is_list else 2)
            if n <= FILL - start:
                s = " ".join(pieces)
            else:
                s = (_BREAKS[col] if col < _NBREAKS else "\n" + " " * col).join(pieces)
            self.put(prefix + ("[" + s + "]" if is_list else "( " + s + ")"))
            return None
        nested_plist = stop is _HOLDS_PLIST or (
            not is_list and any(isinstance(x, dict) and x for x in v.values())
        )
        f = None if nested_plist else self._flat_nested(v, ctx, FILL - start)
        if f is not None:
            self.put(prefix + f)
            return None
        # multi-line: the elements before the first container are written with the
        # opening (their texts are at hand)
        done = len(pieces)
        opener = "[" if is_list else "( "
        col = start + len(opener)
        if done:
            brk = _BREAKS[col] if col < _NBREAKS else "\n" + " " * col
            self.put(prefix + opener + brk.join(pieces))
        else:
            self.out.append(prefix + opener)
            self.col = col
        if is_list:
            return [v, done, start, _VECTOR, self.child_ctx(ctx, v), False]
        return [list(v.items()), done, start, _DICT, ctx, not v or next(iter(v)) != ""]

    def _layout(self, frame: list) -> None:
        """Write the rest of the open multi-line container ``frame`` and of every container
        it opens, each child's line break and closing paren. A frame is
        ``[items, next index, start column, kind, ctx, keyword-led]``: kind
        :data:`_ENTRIES` (items are :meth:`plist` entries), :data:`_DICT` (items are the
        ``(key, value)`` of a JSON object in ``ctx``) or :data:`_VECTOR` (items are the
        elements, in ``ctx``).

        The common steps (a line break, an atom, a ``:key atom`` entry) are written here
        directly; :meth:`put`'s column arithmetic is inlined (an atom never holds a line
        break, a key may)."""
        append = self.out.append
        pstr = self.pstr
        keys = _KEYS
        stack = [frame]
        while stack:
            fr = stack[-1]
            items, i, start, kind, ctx, kl = fr
            n = len(items)
            if kind != _VECTOR:
                ind = start + 2
                brk = _BREAKS[ind] if ind < _NBREAKS else "\n" + " " * ind
                while i < n:
                    if kind == _DICT:
                        k, sub = items[i]
                        text = None
                        typ = kl and k == "type"
                        c = ctx if ctx == "G" or not isinstance(sub, list) else "R"
                    else:
                        k, text, sub, c, typ = items[i]
                    if i:
                        append(brk)
                        self.col = ind
                    i += 1
                    if text is None:
                        t = type(sub)
                        if t is str:
                            if typ and c != "R" and PLAIN.match(sub) and sub not in _NIL_T:
                                s = sub
                            else:
                                s = pstr(sub)
                        elif (t is dict or t is list) and sub:
                            s = None
                        elif typ:
                            s = self.type_atom(sub, c, True)
                        else:
                            s = self.atom(sub, c)
                        kt = keys.get(k) or self.key(k)
                        if s is None:
                            child = self._open(sub, c, typ, kt + " ")
                            if child is not None:
                                fr[1] = i
                                stack.append(child)
                                break
                            continue
                        text = kt + " " + s
                    append(text)
                    nl = text.rfind("\n")
                    self.col = self.col + len(text) if nl < 0 else len(text) - nl - 1
                else:
                    append(")")
                    self.col += 1
                    stack.pop()
            else:
                ind = start + 1
                while i < n:
                    e = items[i]
                    if i:
                        self.newline(ind)
                    i += 1
                    s = pstr(e) if type(e) is str else self.atom(e, ctx)
                    if s is not None:
                        append(s)
                        self.col += len(s)
                    else:
                        child = self._open(e, ctx, False)
                        if child is not None:
                            fr[1] = i
                            stack.append(child)
                            break
                else:
                    append("]")
                    self.col += 1
                    stack.pop()
