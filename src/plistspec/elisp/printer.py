"""The low-level Emacs Lisp printer: datums and atoms to text Emacs reads back exactly.

Owns: the escaping rules for strings, symbols and numbers (emacs-conventions.md §3.5 and
§3.6, every rule checked against Emacs 28's ``read`` in ``tests/elisp``), and a compact
one-line :func:`print_datum`. Layout (line breaks, indentation) belongs to the writer of
issue 3, which calls these functions.

* Strings: only ``"`` and ``\\`` are escaped, plus ``\\n``, ``\\t`` and ``\\r``; other
  control characters, DEL, the bidirectional controls (:data:`BIDI`: U+061C, U+200E/F,
  U+202A..U+202E, U+2066..U+2069, which reorder how the text around them is shown) and
  the line and paragraph separators U+2028/U+2029 as ``\\uXXXX``, so a reader of the
  file sees what is there; other non-ASCII raw; a raw byte (lone surrogate
  ``U+DC80..U+DCFF``) as a three-digit octal escape ``\\351`` (three digits, so a following
  digit can never extend it).
* Symbols: every character outside letters, digits and ``-_+*/<>=!$%&^~@|{}:`` is
  backslash-escaped; a name that would read as a number gets its first character
  escaped; the empty name is ``##``.
* Floats print as the shortest text that reads back to the same double, with Emacs's
  ``1.0e+INF``, ``-1.0e+INF`` and ``N.0e+NaN`` (NaN payload and sign kept).
"""

from __future__ import annotations

import re
import struct
from json.encoder import encode_basestring as _json_string

from plistspec.elisp.datum import Datum, Float, Integer, List, String, Symbol, Vector

__all__ = ["print_string", "print_symbol", "print_number", "print_datum", "BIDI"]

#: the bidirectional formatting characters (Unicode's Bidi_Control): they change the order
#: in which the text around them is shown ("Trojan Source"); strings get them escaped, and
#: a symbol, which has no escape for them, is refused by the callers that write untrusted
#: names (from-json)
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_STRING_SPECIAL = re.compile(
    r'["\\\x00-\x1f\x7f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]'
)
_STRING_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
# what print_string escapes besides " \ newline tab return: where none of these occurs, JSON's
# string escaping (done in C) gives the same text
_STRING_OTHER = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)
# a name of only the characters kept as they are, not starting like a number
_PLAIN_SYMBOL = re.compile(r"[A-Za-z_*/<>=!$%&^~@|{}:][A-Za-z0-9_*/<>=!$%&^~@|{}:+-]*\Z")
_SHORTHANDS = {"quote": "'", "function": "#'", "`": "`", ",": ",", ",@": ",@"}


def _string_char(m: re.Match[str]) -> str:
    c = m.group()
    esc = _STRING_ESCAPES.get(c)
    if esc is not None:
        return esc
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:
        return f"\\{o - 0xDC00:03o}"  # a raw byte
    if 0xD800 <= o <= 0xDFFF:
        raise ValueError(f"lone surrogate U+{o:04X} cannot be written in an Emacs string")
    return f"\\u{o:04X}"


def print_string(s: str) -> str:
    """``"..."`` that Emacs reads back to exactly ``s`` (raw bytes included)."""
    if s.isprintable() or _STRING_OTHER.search(s) is None:
        return _json_string(s)  # the same text as the rule below, escaped in C (fast path)
    return _print_string(s)


def _print_string(s: str) -> str:
    """:func:`print_string` by the rule, character by character."""
    return '"' + _STRING_SPECIAL.sub(_string_char, s) + '"'


def print_symbol(name: str) -> str:
    """A symbol (or keyword: a name starting with ``:``) as Emacs reads it back."""
    if _PLAIN_SYMBOL.match(name):
        return name  # nothing to escape and it cannot read as a number (fast path)
    return _print_symbol(name)


def _print_symbol(name: str) -> str:
    """:func:`print_symbol` by the rule, character by character."""
    if not name:
        return "##"
    out = []
    for c in name:
        if 0xD800 <= ord(c) <= 0xDFFF:
            raise ValueError(f"lone surrogate U+{ord(c):04X} cannot be written in a symbol")
        if c.isascii() and (c.isalnum() or c in "-_+*/<>=!$%&^~@|{}:"):
            out.append(c)
        elif not c.isascii() and c.isalpha():
            out.append(c)
        else:
            out.append("\\" + c)
    text = "".join(out)
    if "\\" not in text and text[0] in "0123456789+-":
        from plistspec.elisp.number import classify_token

        if classify_token(text)[0] != "symbol":
            text = "\\" + text
    return text


def print_number(v: int | float) -> str:
    """An integer (bignums too) or a float, as text Emacs reads back to the same value."""
    if isinstance(v, bool):
        raise TypeError("a bool is not an Emacs number")
    if isinstance(v, int):
        if v.bit_length() > 13000:  # beyond Python's int-to-decimal limit: use hex
            return "#x" + ("-" if v < 0 else "") + int.__format__(abs(int(v)), "x")
        return int.__repr__(int(v))  # the digits, also of a BigInt (whose str is a summary)
    if v != v:  # NaN: keep the sign and payload, as Emacs prints them
        bits = struct.unpack(">Q", struct.pack(">d", v))[0]
        payload = bits & 0x7FFFFFFFFFFFF
        return ("-" if bits >> 63 else "") + f"{payload}.0e+NaN"
    if v == float("inf"):
        return "1.0e+INF"
    if v == float("-inf"):
        return "-1.0e+INF"
    return repr(v)  # shortest round-trip text; always has "." or "e", so it reads as a float


def _atom(d: Datum) -> str:
    t = type(d)
    if t is Symbol:
        return print_symbol(d.name)  # type: ignore[attr-defined]
    if t is String:
        return print_string(d.value)  # type: ignore[attr-defined]
    if t is Integer or t is Float:
        return print_number(d.value)  # type: ignore[attr-defined]
    raise TypeError(f"not a datum: {d!r}")


def _shorthand(d: List) -> str | None:
    if d.tail is None and len(d.items) == 2:
        head = d.items[0]
        if type(head) is Symbol:
            return _SHORTHANDS.get(head.name)
    return None


def print_datum(d: Datum) -> str:
    """Compact one-line text of any datum: ``'x``, ``#'f``, `` `(a ,b ,@c)``, vectors,
    dotted pairs. Iterative, so any depth prints."""
    out: list[str] = []
    work: list[Datum | str] = [d]
    while work:
        x = work.pop()
        if type(x) is str:
            out.append(x)
            continue
        if type(x) is List:
            short = _shorthand(x)
            if short is not None:
                arg = x.items[1]
                if short == "," and type(arg) is Symbol and arg.name.startswith("@"):
                    short = ", "  # `,@x` would read as a splice
                out.append(short)
                work.append(arg)
                continue
            out.append("(")
            work.append(")")
            if x.tail is not None:
                work.append(x.tail)
                work.append(" . ")
            items = x.items
            for k in range(len(items) - 1, 0, -1):
                work.append(items[k])
                work.append(" ")
            if items:
                work.append(items[0])
            continue
        if type(x) is Vector:
            out.append("[")
            work.append("]")
            items = x.items
            for k in range(len(items) - 1, 0, -1):
                work.append(items[k])
                work.append(" ")
            if items:
                work.append(items[0])
            continue
        out.append(_atom(x))  # type: ignore[arg-type]
    return "".join(out)
