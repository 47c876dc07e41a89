"""``#`` syntax in Emacs Lisp source, other than ``#'`` (which the scanner handles).

Owns: radix integers (``#x1F``, ``#o17``, ``#b101``, ``#24r1k``; any length, digits
validated against the radix up front), the empty-named symbol ``##``, and the precise
error for every other ``#``: syntax a tool file never needs (``#s(``, ``#1=``, ``#[``,
``#@``, ``#$``, ``#:``, ``#_``, ``#(``, ``#&``, ``#^[``, ``#!``) is refused with
``PS002``, never misread; ``#<...>`` and anything else is a ``PS001`` syntax error.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, Integer, Symbol
from plistspec.elisp.errors import REFUSED, read_error, show
from plistspec.elisp.number import make_integer
from plistspec.elisp.scanner import lazy_re

# Patterns compiled on first use (by lazy_re).
_RADIX_DIGITS = r"[+-]?[0-9A-Za-z]*"
_DIGITS = r"[0-9]+"


def _radix_digits(base: int) -> str:
    """A regex for one or more digits of ``base`` (2..36), either case."""
    if base <= 10:
        return f"[0-{base - 1}]+"
    return f"[0-9a-{chr(ord('a') + base - 11)}A-{chr(ord('A') + base - 11)}]+"


_RADIX_CLASS = {b: _radix_digits(b) for b in range(2, 37)}

_REFUSED_HASH = {
    "s": "#s(...) records and hash tables",
    "[": "#[...] byte-code objects",
    "(": "#(...) strings with text properties",
    "@": "#@ skip-bytes syntax",
    "$": "#$ (the loading file's name)",
    "&": '#&N"..." bool-vectors',
    "^": "#^[...] char-tables",
    ":": "#: uninterned symbols",
    "_": "#_ symbols without shorthand",
    "!": "#! lines",
}


def read_hash(text: str, pos: int) -> tuple[Datum, int]:
    """``#`` syntax at ``pos`` other than ``#'``: radix integers and ``##``."""
    n = len(text)
    c = text[pos + 1] if pos + 1 < n else ""
    if c == "":  # `"" in "xX"` is true: the end of the input is tested first
        raise read_error("invalid syntax: `#` at the end of the input", text, pos)
    if c == "#":
        return Symbol("", pos, pos + 2), pos + 2
    radix = 0
    i = pos + 2
    if c in "xX":
        radix = 16
    elif c in "oO":
        radix = 8
    elif c in "bB":
        radix = 2
    elif c.isdigit() and c.isascii():
        m = lazy_re(_DIGITS).match(text, pos + 1)
        assert m is not None
        i = m.end()
        nxt = text[i] if i < n else ""
        if nxt and nxt in "rR":
            radix = int(m.group()) if len(m.group()) <= 3 else 0
            if not 2 <= radix <= 36:
                shown = show(m.group())
                raise read_error(f"invalid radix {shown} in #{shown}r (must be 2 to 36)", text, pos)
            i += 1
        elif nxt and nxt in "=#":
            raise read_error(
                f"#{m.group()}{nxt} (shared structure) is not supported in a tool file",
                text,
                pos,
                REFUSED,
            )
        else:
            raise read_error(f"invalid syntax #{show(m.group() + nxt)}", text, pos)
    elif c in _REFUSED_HASH:
        raise read_error(f"{_REFUSED_HASH[c]} are not supported in a tool file", text, pos, REFUSED)
    elif c == "<":
        raise read_error("#<...> is an unreadable object (printed, not source)", text, pos)
    else:
        raise read_error(f"invalid syntax #{show(c)}", text, pos)
    m = lazy_re(_RADIX_DIGITS).match(text, i)
    assert m is not None
    tok = m.group()
    digits = tok.lstrip("+-")
    try:
        if not digits:
            raise ValueError
        if not lazy_re(_RADIX_CLASS[radix]).fullmatch(digits):
            raise ValueError
        value = make_integer(digits, radix, tok.startswith("-"))
    except ValueError:
        raise read_error(
            f"invalid integer in radix {radix}: {show(text[pos : m.end()])}", text, pos
        ) from None
    return Integer(value, pos, m.end()), m.end()
