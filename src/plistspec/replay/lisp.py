"""A tiny mutable model of Emacs Lisp values, and the list primitives the libraries use.

Owns: the value model the lowerers run gptel's and llm's code on, and exact emulations
of the Emacs 28 primitives that code calls (``plist-get``, ``plist-member``,
``plist-put``, ``cl-remf``, ``copy-sequence``, ``concat``, ``seq-partition``...),
including the errors they signal.

Model: atoms are the reader's datums themselves (:class:`Symbol`, :class:`String`,
:class:`Integer`, :class:`Float`; ``nil`` is ``Symbol("nil")``), so every value keeps
its source span for diagnostics. A non-empty list is an :class:`LList` (a Python list
of its elements, ``tail`` set for a dotted list) and a vector a :class:`Vec`; both
remember the datum they were copied from in ``src``. An empty ``LList`` never exists:
it is ``nil``. Conversion from datums is iterative (inputs can be nested very deep).
"""

from __future__ import annotations

from typing import Any

from plistspec.elisp.datum import Datum, Float, Integer, List, String, Symbol, Vector

__all__ = [
    "LList",
    "Vec",
    "LispError",
    "NIL",
    "T",
    "from_datum",
    "is_nil",
    "is_list",
    "is_keyword",
    "kw",
    "eq",
    "equal",
    "span_of",
    "plist_get",
    "plist_member",
    "plist_put",
    "cl_remf",
    "copy_sequence",
    "concat_name",
    "type_name",
    "deep_copy",
    "princ",
]


class LispError(Exception):
    """An error signalled by Emacs: ``signal`` (``wrong-type-argument``...), its data
    (``predicate`` and the offending value) and a human explanation."""

    def __init__(
        self, signal: str, predicate: str, value: Any, explain: str = "", at: Any = None
    ) -> None:
        self.signal = signal
        self.predicate = predicate
        self.value = value
        self.explain = explain
        self.at = at if at is not None else value  # where to point a diagnostic
        super().__init__(f"{signal} {predicate}")

    def lisp(self) -> str:
        """The error as Emacs would print it, e.g. ``wrong-type-argument symbolp "a"``."""
        if self.predicate:
            return f"{self.signal} {self.predicate} {princ(self.value, quote=True)}"
        return self.signal


class LList(list):
    """A non-empty Lisp list; ``tail`` is the final cdr of a dotted list (else None)."""

    __slots__ = ("src", "tail")

    def __init__(self, items: Any = (), src: Datum | None = None, tail: Any = None) -> None:
        super().__init__(items)
        self.src = src
        self.tail = tail


class Vec(list):
    """A Lisp vector."""

    __slots__ = ("src",)

    def __init__(self, items: Any = (), src: Datum | None = None) -> None:
        super().__init__(items)
        self.src = src


NIL = Symbol("nil")
T = Symbol("t")
_KW: dict[str, Symbol] = {}


def kw(name: str) -> Symbol:
    """A keyword symbol (``kw(":type")``), without a span."""
    s = _KW.get(name)
    if s is None:
        s = _KW[name] = Symbol(name)
    return s


def is_nil(v: Any) -> bool:
    return isinstance(v, Symbol) and v.name == "nil"


def is_list(v: Any) -> bool:
    """``listp``: nil or a cons."""
    return isinstance(v, LList) or is_nil(v)


def is_keyword(v: Any) -> bool:
    return isinstance(v, Symbol) and v.name.startswith(":")


def eq(a: Any, b: Any) -> bool:
    """``eq`` for what the libraries compare: symbols by name (interned), others by identity."""
    if isinstance(a, Symbol) and isinstance(b, Symbol):
        return a.name == b.name
    if isinstance(a, Integer) and isinstance(b, Integer):
        return a.value == b.value and -(2**61) <= a.value < 2**61  # fixnums only
    return a is b


def equal(a: Any, b: Any) -> bool:
    """``equal`` (structural)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, LList) and isinstance(y, LList):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
            stack.append(
                (x.tail if x.tail is not None else NIL, y.tail if y.tail is not None else NIL)
            )
        elif isinstance(x, Vec) and isinstance(y, Vec):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif isinstance(x, (LList, Vec)) or isinstance(y, (LList, Vec)):
            return False
        elif x != y:
            return False
    return True


def span_of(v: Any) -> tuple[int, int]:
    """The source span of a value (``(-1, -1)`` when unknown)."""
    d = v.src if isinstance(v, (LList, Vec)) else v
    if isinstance(d, Datum):
        return d.start, d.end
    return -1, -1


def from_datum(d: Datum) -> Any:
    """A fresh mutable model of datum ``d`` (lists and vectors copied, atoms shared)."""
    if not isinstance(d, (List, Vector)):
        return d
    root = LList(src=d) if isinstance(d, List) else Vec(src=d)
    stack: list[tuple[Any, Any]] = [(d, root)]
    while stack:
        src, dst = stack.pop()
        for item in src.items:
            if isinstance(item, List):
                new: Any = LList(src=item)
                stack.append((item, new))
            elif isinstance(item, Vector):
                new = Vec(src=item)
                stack.append((item, new))
            else:
                new = item
            dst.append(new)
        if isinstance(src, List) and src.tail is not None:
            t = src.tail
            if isinstance(t, (List, Vector)):
                new = LList(src=t) if isinstance(t, List) else Vec(src=t)
                stack.append((t, new))
                dst.tail = new
            elif not (isinstance(t, Symbol) and t.name == "nil"):
                dst.tail = t
    return root


def deep_copy(v: Any) -> Any:
    """A deep copy of the conses and vectors of ``v`` (``copy-tree`` with vectors)."""
    if not isinstance(v, (LList, Vec)):
        return v
    root = LList(src=v.src) if isinstance(v, LList) else Vec(src=v.src)
    stack = [(v, root)]
    while stack:
        src, dst = stack.pop()
        for item in src:
            if isinstance(item, LList):
                new: Any = LList(src=item.src)
                stack.append((item, new))
            elif isinstance(item, Vec):
                new = Vec(src=item.src)
                stack.append((item, new))
            else:
                new = item
            dst.append(new)
        if isinstance(src, LList) and src.tail is not None:
            t = src.tail
            if isinstance(t, (LList, Vec)):
                new = LList(src=t.src) if isinstance(t, LList) else Vec(src=t.src)
                stack.append((t, new))
                dst.tail = new
            else:
                dst.tail = t
    return root


def _mk(items: list[Any], like: LList, tail: Any = None) -> Any:
    """A list of ``items`` (nil when empty and proper)."""
    if not items:
        return tail if tail is not None else NIL
    return LList(items, like.src, tail)


def _not_list(v: Any, what: str = "listp") -> LispError:
    return LispError("wrong-type-argument", what, v)


def plist_get(plist: Any, prop: Symbol) -> Any:
    """Emacs 28 ``plist-get``: the value after the first ``prop`` at a key position;
    never signals (a non-list, odd tail or dotted tail just ends the search)."""
    if not isinstance(plist, LList):
        return NIL
    n = len(plist)
    for i in range(0, n, 2):
        if i + 1 >= n:
            break
        if eq(plist[i], prop):
            return plist[i + 1]
    return NIL


def plist_member(plist: Any, prop: Symbol) -> bool:
    """Emacs 28 ``plist-member`` (true when found; a dangling last key counts)."""
    if is_nil(plist):
        return False
    if not isinstance(plist, LList):
        raise _not_list(plist, "plistp")
    n = len(plist)
    for i in range(0, n, 2):
        if eq(plist[i], prop):
            return True
    if n % 2 == 0 and plist.tail is not None:
        raise LispError("wrong-type-argument", "plistp", plist)
    return False


def plist_put(plist: Any, prop: Symbol, val: Any) -> Any:
    """Emacs 28 ``plist-put``: replace the first value of ``prop`` in place, or append;
    an odd-length or dotted plist signals ``wrong-type-argument plistp``."""
    if is_nil(plist):
        return LList([prop, val])
    if not isinstance(plist, LList):
        raise _not_list(plist, "plistp")
    n = len(plist)
    for i in range(0, n - 1, 2):
        if eq(plist[i], prop):
            plist[i + 1] = val
            return plist
    if n % 2 == 1 or plist.tail is not None:
        raise LispError(
            "wrong-type-argument", "plistp", plist, "a plist with a key but no value (odd length)"
        )
    plist.append(prop)
    plist.append(val)
    return plist


def cl_remf(plist: Any, tag: Symbol) -> Any:
    """``(cl-remf PLACE TAG)`` on a place holding ``plist``; returns the new value of the
    place. Removes the first ``tag`` at a key position (a dangling last key too)."""
    if is_nil(plist):
        return plist
    if not isinstance(plist, LList):
        raise _not_list(plist)
    n = len(plist)
    if eq(plist[0], tag):
        if n >= 2:
            return _mk(plist[2:], plist, plist.tail)
        t = plist.tail
        if t is None:
            return NIL
        if isinstance(t, LList):
            return _mk(t[1:], t, t.tail)
        raise _not_list(t)
    # cl--do-remf: examine even positions >= 2
    j = 2
    while True:
        if j >= n:
            # (cdr p) is the tail after index j-1
            if j == n and plist.tail is not None:
                raise _not_list(plist.tail)
            return plist
        if eq(plist[j], tag):
            del plist[j : j + 2]
            return plist
        j += 2


def copy_sequence(v: Any) -> Any:
    """``copy-sequence``: lists, vectors, strings and nil; others signal ``sequencep``."""
    if isinstance(v, LList):
        if v.tail is not None:
            raise _not_list(v)
        return LList(v, v.src)
    if isinstance(v, Vec):
        return Vec(v, v.src)
    if isinstance(v, String) or is_nil(v):
        return v
    raise LispError("wrong-type-argument", "sequencep", v)


_MAX_CHAR = 0x3FFFFF


def concat_name(prefix: str, v: Any) -> str:
    """``(concat PREFIX V)`` for a name ``V``: nil, a string, or a list/vector of characters."""
    if is_nil(v):
        return prefix
    if isinstance(v, String):
        return prefix + v.value
    if isinstance(v, (LList, Vec)):
        if isinstance(v, LList) and v.tail is not None:
            raise _not_list(v)
        out = []
        for c in v:
            if not isinstance(c, Integer) or not 0 <= c.value <= _MAX_CHAR:
                raise LispError("wrong-type-argument", "characterp", c)
            if 0xD800 <= c.value <= 0xDFFF or c.value > 0x10FFFF:
                if 0x3FFF80 <= c.value <= 0x3FFFFF:
                    out.append(chr(0xDC00 + c.value - 0x3FFF00))
                    continue
                raise LispError(
                    "wrong-type-argument", "characterp", c, "a character plistspec cannot represent"
                )
            out.append(chr(c.value))
        return prefix + "".join(out)
    raise LispError("wrong-type-argument", "sequencep", v)


def type_name(v: Any) -> str:
    """A short description of a value's type, for messages."""
    if isinstance(v, LList):
        return "a list"
    if isinstance(v, Vec):
        return "a vector"
    if isinstance(v, String):
        return "a string"
    if isinstance(v, Integer):
        return "an integer"
    if isinstance(v, Float):
        return "a float"
    if is_nil(v):
        return "nil"
    if is_keyword(v):
        return "a keyword"
    return "a symbol"


def _fmt_float(x: float) -> str:
    if x != x:
        return "0.0e+NaN"
    if x in (float("inf"), float("-inf")):
        return "1.0e+INF" if x > 0 else "-1.0e+INF"
    return repr(x)  # Emacs prints the shortest round-trip form too (1e+20, 1.5e-07)


def princ(v: Any, quote: bool = False) -> str:
    """``(format "%s" V)`` (``princ``; ``quote=True`` gives ``prin1`` for strings)."""
    out: list[str] = []
    stack: list[Any] = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, str) and not isinstance(x, Datum):
            out.append(x)
        elif isinstance(x, String):
            if quote:
                out.append('"' + x.value.replace("\\", "\\\\").replace('"', '\\"') + '"')
            else:
                out.append(x.value)
        elif isinstance(x, Symbol):
            out.append(x.name if not quote else _escape_symbol(x.name))
        elif isinstance(x, Integer):
            out.append(str(x.value))
        elif isinstance(x, Float):
            out.append(_fmt_float(x.value))
        elif isinstance(x, (LList, Vec)):
            opener, closer = ("(", ")") if isinstance(x, LList) else ("[", "]")
            parts: list[Any] = [opener]
            for i, item in enumerate(x):
                if i:
                    parts.append(" ")
                parts.append(item)
            if isinstance(x, LList) and x.tail is not None:
                parts.append(" . ")
                parts.append(x.tail)
            parts.append(closer)
            stack.extend(reversed(parts))
        else:  # pragma: no cover - defensive
            out.append(str(x))
    return "".join(out)


def _escape_symbol(name: str) -> str:
    if name == "":
        return "##"
    out = []
    for ch in name:
        if ch in "\"\\ ()[];#'`,?." and not (ch in "?." and out):
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)
