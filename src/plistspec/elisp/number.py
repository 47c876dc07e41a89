"""Numbers in Emacs Lisp source: which tokens are numbers, and their values.

Owns: Emacs 28's ``string_to_number`` for a symbol-or-number token (base 10): integers,
floats (``1.``, ``.5``, ``1e3``; ``1.0e+INF`` and ``0.0e+NaN`` with its payload), and
everything else a symbol (``1+``, ``+``, ``.``); and integers of any length in any base
2..36, as Emacs reads bignums (no 65536-bit refusal, Python's 4 300-digit int-string
limit never met). A long integer keeps its digits (:class:`~plistspec.elisp.datum.Digits`)
until its value is asked for; converting splits the digits in halves (subquadratic),
and more than :data:`~plistspec.elisp.datum.BIG_DIGITS` digits give a
:class:`~plistspec.elisp.datum.BigInt` whose text is a short summary.
Radix syntax (``#x1F``, ``#24r1k``) is read by :mod:`plistspec.elisp.hash_syntax`,
which calls :func:`make_integer`.
"""

from __future__ import annotations

import struct
import sys

from plistspec.elisp.datum import BIG_DIGITS, Digits, Float, Integer, Symbol, to_int
from plistspec.elisp.scanner import lazy_re

# Emacs's string_to_number (base 10), anchored: the whole token must be consumed.
# Compiled on first use (by lazy_re), as is the symbol unescaping pattern.
_NUMBER = r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE](?:[+-]?[0-9]+|\+(INF|NaN)))?"
_SYM_UNESCAPE = r"\\([\s\S])"
_NAN_BITS = 0x7FF8000000000000


def classify_token(tok: str) -> tuple[str, int | float | str]:
    """How Emacs reads one unescaped symbol-or-number token: ``("integer", 1)``,
    ``("float", 0.5)`` or ``("symbol", "1+")``. Exposed for the grammar test."""
    v = parse_number(tok)
    if v is None:
        return ("symbol", tok)
    if type(v) is Digits:
        v = v.convert()
    return ("integer", v) if isinstance(v, int) else ("float", v)


def parse_number(tok: str) -> int | float | None:
    """The number a token denotes, or None when Emacs reads it as a symbol."""
    m = lazy_re(_NUMBER).fullmatch(tok)
    if m is None:
        return None
    sign, lead, trail, special = m.groups()
    has_e = "e" in tok or "E" in tok
    if trail or (lead and has_e):
        if special == "INF":
            v = float("inf")
        elif special == "NaN":
            n = (to_int(lead, 10, False) if lead else -1) & 0xFFFFFFFFFFFFFFFF
            bits = _NAN_BITS | (n & 0x7FFFFFFFFFFFF)
            if sign == "-":
                bits |= 1 << 63
            return struct.unpack(">d", struct.pack(">Q", bits))[0]
        else:
            v = float(tok.lstrip("+-"))
        return -v if sign == "-" else v
    if not lead:
        return None
    return make_integer(lead, 10, sign == "-")


def make_integer(digits: str, base: int, negative: bool) -> int | Digits:
    """The integer's value, or its :class:`Digits` (converted on first use) when long."""
    if len(digits) > BIG_DIGITS:
        return Digits(digits, base, negative)
    return to_int(digits, base, negative)


def classify_atom(tok: str, text: str, start: int) -> tuple[type, object]:
    """A symbol-or-number token -> (Symbol, name) / (Integer, int) / (Float, float)."""
    if "\\" in tok:
        return (Symbol, sys.intern(lazy_re(_SYM_UNESCAPE).sub(r"\1", tok)))
    if tok[0] in "0123456789+-.":
        num = parse_number(tok)
        if num is None:
            return (Symbol, sys.intern(tok))
        if isinstance(num, int) or type(num) is Digits:
            return (Integer, num)
        return (Float, num)
    return (Symbol, sys.intern(tok))
