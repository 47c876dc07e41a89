"""Emacs Lisp data as the reader produces it: one small class per kind of datum.

Owns: the datum types and the helpers every later stage uses to look at them.
Every datum carries its source span as two character offsets, ``start`` (inclusive) and
``end`` (exclusive), into the text it was read from; line and column are computed only
when a diagnostic needs them (:mod:`plistspec.diagnostics`). Datums built by static
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
* Strings are Python ``str``. A raw byte (``"\\xe9"``, ``"\\351"``: a byte, not a
  character, in Emacs) is stored as the lone surrogate ``U+DC00 + byte``, exactly as
  Python's ``surrogateescape`` does, so ``value.encode("utf-8", "surrogateescape")``
  gives the bytes ``json-serialize`` would send (and fails to decode exactly when
  Emacs signals ``utf-8-string-p``).
"""

from __future__ import annotations

from collections.abc import Iterator

__all__ = [
    "Datum",
    "Symbol",
    "String",
    "Integer",
    "Float",
    "List",
    "Vector",
    "NIL",
    "T",
    "is_nil",
    "is_keyword",
    "sym",
    "quoted",
]


class Datum:
    """Base class: a value read from text, with its span ``[start, end)``."""

    __slots__ = ("start", "end")

    def __init__(self, start: int = -1, end: int = -1) -> None:
        self.start = start
        self.end = end

    def _key(self) -> object:  # pragma: no cover - overridden
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        """Structural equality (spans are ignored), as Emacs's ``equal``."""
        return type(self) is type(other) and self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._key()))


class Symbol(Datum):
    """A symbol; keywords (``:name``), ``nil`` and ``t`` included."""

    __slots__ = ("name",)

    def __init__(self, name: str, start: int = -1, end: int = -1) -> None:
        self.name = name
        self.start = start
        self.end = end

    def _key(self) -> object:
        return self.name

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
        self.end = end

    def _key(self) -> object:
        return self.value

    def __repr__(self) -> str:
        return f"String({self.value!r})"


class Integer(Datum):
    """An integer (any size: Emacs has bignums); ``char`` is True when read as ``?c``."""

    __slots__ = ("value", "char")

    def __init__(self, value: int, start: int = -1, end: int = -1, char: bool = False) -> None:
        self.value = value
        self.char = char
        self.start = start
        self.end = end

    def _key(self) -> object:
        return self.value

    def __repr__(self) -> str:
        return f"Integer({self.value!r})"


class Float(Datum):
    """A float, including ``1.0e+INF``, ``-1.0e+INF`` and ``0.0e+NaN``."""

    __slots__ = ("value",)

    def __init__(self, value: float, start: int = -1, end: int = -1) -> None:
        self.value = value
        self.start = start
        self.end = end

    def _key(self) -> object:
        # NaN is never equal to itself in Python; Emacs's `equal' compares floats by bits.
        import struct

        return struct.pack(">d", self.value)

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
        self.end = end

    def _key(self) -> object:
        return (tuple(self.items), self.tail)

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
        self.end = end

    def _key(self) -> object:
        return tuple(self.items)

    def __iter__(self) -> Iterator[Datum]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __repr__(self) -> str:
        return f"Vector({self.items!r})"


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
