"""Emacs Lisp data as the reader produces it: one small class per kind of datum.

Owns: the datum types and the helpers every later stage uses to look at them.
Every datum carries its source span as two character offsets, ``start`` (inclusive) and
``end`` (exclusive), into the text it was read from; line and column are computed only
when a diagnostic needs them (:mod:`plistspec.core.diagnostics`). Datums built by static
evaluation (``(list ...)`` in :mod:`plistspec.extract`) carry the span of the form
that built them.

The model follows Emacs, not Python:

* ``nil`` and ``()`` both read as ``Symbol("nil")``; ``t`` is ``Symbol("t")``.
* A keyword is a symbol whose name starts with ``:`` (``Symbol(":name")``).
* ``?a`` reads as the integer 97 (``Integer(97, char=True)``, the flag is only a hint
  for printing); ``1.`` is an integer.
* ``'x`` reads as the list ``(quote x)``, ``#'x`` as ``(function x)``, `` `x`` as
  ``(\\` x)``, ``,x`` as ``(\\, x)`` and ``,@x`` as ``(\\,@ x)``: the symbols' names are
  ``"`"``, ``","`` and ``",@"`` (Emacs prints them with a backslash).
* ``(a . b)`` is ``List([a], tail=b)``; a proper list has ``tail is None``.
* ``==`` is Emacs's ``equal`` (spans ignored, floats compared by their bits) and ``hash``
  agrees with it; both walk lists and vectors with an explicit stack, never recursing.
* Strings are Python ``str``. A raw byte (``"\\xe9"``, ``"\\351"``: a byte, not a
  character, in Emacs) is stored as the lone surrogate ``U+DC00 + byte``, exactly as
  Python's ``surrogateescape`` does, so ``value.encode("utf-8", "surrogateescape")``
  gives the bytes ``json-serialize`` would send (and fails to decode exactly when
  Emacs signals ``utf-8-string-p``). A character Python text cannot hold (a surrogate
  code point, a character beyond Unicode) is the lone surrogate ``U+DC00``, which never
  encodes, as Emacs never serializes it.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator

__all__ = [
    "atom_spans",
    "Datum",
    "Symbol",
    "String",
    "Integer",
    "Float",
    "List",
    "Vector",
    "BigInt",
    "Digits",
    "NIL",
    "T",
    "is_nil",
    "is_keyword",
    "sym",
    "quoted",
    "to_int",
]

_pack_double = struct.Struct(">d").pack


class Datum:
    """Base class: a value read from text, with its span ``[start, end)``.

    ``start`` is a plain attribute; ``end`` is stored as the span's length (a small,
    shared int for most datums: a separate ``int`` object per end offset cost 32 bytes
    per datum, about 1.4 times the input's size when reading a 10 MB file). Reading or
    assigning ``end`` works as for a plain attribute; assign ``start`` first when moving
    a span (``end`` keeps its distance from ``start``).
    """

    __slots__ = ("start", "_len")

    def __init__(self, start: int = -1, end: int = -1) -> None:
        self.start = start
        self._len = end - start

    @property
    def end(self) -> int:
        """The offset just after the datum's text."""
        return self.start + self._len

    @end.setter
    def end(self, value: int) -> None:
        self._len = value - self.start

    def __eq__(self, other: object) -> bool:
        """Structural equality (spans are ignored), as Emacs's ``equal``."""
        return _equal(self, other)

    def __hash__(self) -> int:
        return _hash(self)


class Symbol(Datum):
    """A symbol; keywords (``:name``), ``nil`` and ``t`` included."""

    __slots__ = ("name",)

    def __init__(self, name: str, start: int = -1, end: int = -1) -> None:
        self.name = name
        self.start = start
        self._len = end - start

    def __eq__(self, other: object) -> bool:
        return type(other) is Symbol and self.name == other.name  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(("Symbol", self.name))

    @property
    def is_keyword(self) -> bool:
        return self.name.startswith(":")

    def __repr__(self) -> str:
        return f"Symbol({self.name!r})"


class String(Datum):
    """A string; raw bytes are lone surrogates ``U+DC80..U+DCFF`` (see module doc)."""

    __slots__ = ("value",)

    def __init__(self, value: str, start: int = -1, end: int = -1) -> None:
        self.value = value
        self.start = start
        self._len = end - start

    def __eq__(self, other: object) -> bool:
        return type(other) is String and self.value == other.value  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(("String", self.value))

    def __repr__(self) -> str:
        return f"String({self.value!r})"


class BigInt(int):
    """An integer too long to print in a message: an ``int`` in every respect but its
    text, which is a short summary (``99999…99999 (30000 digits)``), never the
    conversion to decimal (quadratic in CPython 3.11, and refused beyond 4 300 digits).
    The reader makes one for every integer written with more than
    :data:`BIG_DIGITS` digits; :func:`plistspec.elisp.printer.print_number` still
    prints its exact value."""

    def __new__(cls, value: int, summary: str) -> BigInt:
        self = super().__new__(cls, value)
        self.summary = summary
        return self

    def __str__(self) -> str:
        return self.summary

    __repr__ = __str__

    def __format__(self, spec: str) -> str:
        return self.summary if not spec else int.__format__(int(self), spec)


BIG_DIGITS = 1000


class Digits:
    """An integer's digits as read, not converted yet (more than :data:`BIG_DIGITS` of
    them): converting is superlinear, so it happens only when ``Integer.value`` is
    first asked for. Reading a file stays linear however long its integers are."""

    __slots__ = ("digits", "base", "negative")

    def __init__(self, digits: str, base: int, negative: bool) -> None:
        self.digits = digits
        self.base = base
        self.negative = negative

    def convert(self) -> int:
        return to_int(self.digits, self.base, self.negative)


class Integer(Datum):
    """An integer (any size: Emacs has bignums); ``char`` is True when read as ``?c``.

    ``value`` is an ``int`` (a :class:`BigInt` beyond :data:`BIG_DIGITS` digits); a
    long one is converted from its text on first use (:class:`Digits`)."""

    __slots__ = ("_value", "char")

    def __init__(
        self, value: int | Digits, start: int = -1, end: int = -1, char: bool = False
    ) -> None:
        self._value = value
        self.char = char
        self.start = start
        self._len = end - start

    @property
    def value(self) -> int:
        v = self._value
        if type(v) is Digits:
            v = self._value = v.convert()
        return v  # type: ignore[return-value]

    @value.setter
    def value(self, value: int) -> None:
        self._value = value

    def __eq__(self, other: object) -> bool:
        return type(other) is Integer and self.value == other.value  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(("Integer", self.value))

    def __repr__(self) -> str:
        return f"Integer({self.value!r})"


class Float(Datum):
    """A float, including ``1.0e+INF``, ``-1.0e+INF`` and ``0.0e+NaN``."""

    __slots__ = ("value",)

    def __init__(self, value: float, start: int = -1, end: int = -1) -> None:
        self.value = value
        self.start = start
        self._len = end - start

    # NaN is never equal to itself in Python; Emacs's `equal' compares floats by bits
    # (so 0.0 and -0.0 differ, and a NaN equals the same NaN).
    def __eq__(self, other: object) -> bool:
        return type(other) is Float and _pack_double(self.value) == _pack_double(other.value)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(("Float", _pack_double(self.value)))

    def __repr__(self) -> str:
        return f"Float({self.value!r})"


class List(Datum):
    """A non-empty list ``(a b c)``, or a dotted one ``(a b . c)`` when ``tail`` is set.

    The empty list is never a ``List``: it is ``Symbol("nil")``.
    """

    __slots__ = ("items", "tail")

    def __init__(
        self, items: list[Datum], start: int = -1, end: int = -1, tail: Datum | None = None
    ) -> None:
        self.items = items
        self.tail = tail
        self.start = start
        self._len = end - start

    def __iter__(self) -> Iterator[Datum]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def head(self) -> Datum:
        return self.items[0]

    def __repr__(self) -> str:
        if self.tail is not None:
            return f"List({self.items!r}, tail={self.tail!r})"
        return f"List({self.items!r})"


class Vector(Datum):
    """A vector ``[a b c]`` (its elements are not evaluated by Emacs)."""

    __slots__ = ("items",)

    def __init__(self, items: list[Datum], start: int = -1, end: int = -1) -> None:
        self.items = items
        self.start = start
        self._len = end - start

    def __iter__(self) -> Iterator[Datum]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return f"Vector({self.items!r})"


# --- equal and sxhash, without recursion ---------------------------------------------
# Lists and vectors are compared and hashed with an explicit stack, so datums nested
# 100 000 deep (a deep list, vector or dotted tail) never reach Python's recursion limit.


def _equal(a: Datum, b: object) -> bool:
    """Emacs's ``equal`` over two datums (spans ignored), iteratively."""
    stack: list[tuple[object, object]] = [(a, b)]
    pop = stack.pop
    push = stack.append
    while stack:
        x, y = pop()
        if x is y:
            continue
        tx = type(x)
        if tx is not type(y):
            return False
        if tx is List:
            xi = x.items  # type: ignore[attr-defined]
            yi = y.items  # type: ignore[attr-defined]
            if len(xi) != len(yi):
                return False
            xt = x.tail  # type: ignore[attr-defined]
            yt = y.tail  # type: ignore[attr-defined]
            if xt is not None or yt is not None:
                if xt is None or yt is None:
                    return False
                push((xt, yt))
            stack.extend(zip(reversed(xi), reversed(yi), strict=True))
        elif tx is Vector:
            xi = x.items  # type: ignore[attr-defined]
            yi = y.items  # type: ignore[attr-defined]
            if len(xi) != len(yi):
                return False
            stack.extend(zip(reversed(xi), reversed(yi), strict=True))
        elif tx is Symbol:
            if x.name != y.name:  # type: ignore[attr-defined]
                return False
        elif tx is Float:
            if _pack_double(x.value) != _pack_double(y.value):  # type: ignore[attr-defined]
                return False
        elif x.value != y.value:  # String, Integer  # type: ignore[attr-defined]
            return False
    return True


_LIST_MARK = hash("List")
_VECTOR_MARK = hash("Vector")
_TAIL_MARK = hash(".")
_MASK = (1 << 64) - 1


def _hash(d: Datum) -> int:
    """A hash consistent with :func:`_equal`: the pre-order walk of the tree, folded."""
    h = 0
    stack: list[object] = [d]
    pop = stack.pop
    push = stack.append
    while stack:
        x = pop()
        tx = type(x)
        if tx is List:
            items = x.items  # type: ignore[attr-defined]
            h = ((h * 1000003) ^ _LIST_MARK ^ len(items)) & _MASK
            tail = x.tail  # type: ignore[attr-defined]
            if tail is not None:
                push(tail)
                push(_TAIL_MARK)
            stack.extend(reversed(items))
        elif tx is Vector:
            items = x.items  # type: ignore[attr-defined]
            h = ((h * 1000003) ^ _VECTOR_MARK ^ len(items)) & _MASK
            stack.extend(reversed(items))
        elif tx is int:  # the mark of a dotted tail
            h = ((h * 1000003) ^ x) & _MASK  # type: ignore[operator]
        else:
            h = ((h * 1000003) ^ hash(x)) & _MASK
    return hash(h)


NIL = Symbol("nil")
T = Symbol("t")


def sym(name: str) -> Symbol:
    """A symbol without a span (for data built in code)."""
    return Symbol(name)


def is_nil(d: Datum | None) -> bool:
    """True for ``nil`` (which is also ``()``)."""
    return isinstance(d, Symbol) and d.name == "nil"


def is_keyword(d: Datum | None) -> bool:
    """True for a keyword symbol such as ``:name``."""
    return isinstance(d, Symbol) and d.name.startswith(":")


def quoted(d: Datum, what: str = "quote") -> Datum | None:
    """If ``d`` is ``(quote X)`` (or ``(function X)`` with ``what="function"``), return X."""
    if (
        isinstance(d, List)
        and d.tail is None
        and len(d.items) == 2
        and isinstance(d.items[0], Symbol)
        and d.items[0].name == what
    ):
        return d.items[1]
    return None


def atom_spans(roots: Iterable[Datum]) -> list[tuple[int, int]]:
    """The ``(start, end)`` of every atom inside ``roots`` (lists and vectors opened, a
    dotted tail included; atoms without a place left out), in text order. Iterative: any
    depth. Where a ``;`` or a line break falls inside one of these spans it is part of a
    string or symbol, not a comment or layout."""
    out: list[tuple[int, int]] = []
    todo = list(roots)
    while todo:
        d = todo.pop()
        if isinstance(d, (List, Vector)):
            todo.extend(d.items)
            if isinstance(d, List) and d.tail is not None:
                todo.append(d.tail)
        elif d.start >= 0:
            out.append((d.start, d.end))
    out.sort()
    return out


_CHUNK = 2000  # digits converted by one int() call (below Python's 4 300-digit limit)


def to_int(digits: str, base: int, negative: bool) -> int:
    """The integer ``digits`` (in ``base``) denote: any length, as Emacs reads bignums
    of any length. Long texts are split in halves (the low half a power-of-two number of
    chunks, so the powers of ``base`` are shared), which is subquadratic and never
    meets Python's int-string limit; more than :data:`BIG_DIGITS` digits give a
    :class:`BigInt` (its text a summary, so no message ever prints a million digits)."""
    n = len(digits)
    if n <= _CHUNK or base in (2, 4, 8, 16, 32):
        v = int(digits, base)
    else:
        powers: dict[int, int] = {}

        def conv(lo: int, hi: int) -> int:
            if hi - lo <= _CHUNK:
                return int(digits[lo:hi], base)
            half = _CHUNK
            while half * 2 < hi - lo:
                half *= 2
            p = powers.get(half)
            if p is None:
                p = powers[half] = base**half
            return conv(lo, hi - half) * p + conv(hi - half, hi)

        v = conv(0, n)  # depth log2(n / _CHUNK): no recursion limit to fear
    if negative:
        v = -v
    if n > BIG_DIGITS:
        sign = "-" if negative else ""
        prefix = "" if base == 10 else f"#{base}r"
        v = BigInt(v, f"{prefix}{sign}{digits[:6]}…{digits[-6:]} ({n} digits)")
    return v
