"""The Emacs Lisp reader: text in, :mod:`plistspec.elisp.datum` values out.

Owns: turning Emacs Lisp source text into datums with the values Emacs 28's ``read``
gives, every datum carrying its ``[start, end)`` character span. The grammar it
implements is written down in ``grammars/elisp.ebnf``; every rule below was checked
against ``emacs --batch`` 28.2 (see ``tests/elisp``).

Design (speed and safety; about 18 MB/s and 6.5x the input's size in peak memory on a
10 MB tool file, see ``bench/bench_reader.py``):

* One compiled master regex grabs whole tokens (whitespace and comments skipped in the
  same match): a plain symbol, a string's body, a parenthesis... Dispatch is on
  ``match.lastindex``; punctuation is a literal plus an empty group (no substring made).
  Only strings that hold a backslash are unescaped, one-character escapes on a fast path.
* Datums are built with ``object.__new__`` and slot stores (no ``__init__`` call), and
  the items of open lists and vectors share one value stack, each list taking an exactly
  sized slice when it closes.
* No recursion: lists, vectors and the ``'`` `` ` `` ``,`` ``,@`` ``#'`` prefixes live on
  an explicit stack, so 100 000 levels of nesting read in linear time. A dotted tail
  that is itself a list, ``(a . (b . (c)))``, is spliced into the outer list as it is
  read (Emacs reads it as ``(a b c)``), again in linear time.
* Symbol names are interned through a per-read dict, so 10 000 ``:type`` keywords share
  one ``str``.
* Integers of any length read, as in Emacs (no 65536-bit refusal, Python's 4 300-digit
  int-string limit never met): long ones convert by halving (subquadratic) and are
  :class:`~plistspec.elisp.datum.BigInt`, whose text is a short summary.
* The text is the decoded buffer: the CLI drops a BOM and decodes CRLF/CR line endings
  as Emacs does before reading (:mod:`plistspec.elisp.eol`).
* Importing is cheap (the CLI imports this module on every run): only the master regex
  is compiled at import; the rest compile on first use.

Quirks of Emacs 28 that are kept (all verified): ``#`` ends a symbol (``a#b`` is ``a``
then ``#b...``); ``(. x)`` reads as ``x``; ``.`` followed by ``)`` is the symbol ``\\.``;
control characters and NBSP are whitespace between tokens; ``?\\C-a``, ``?\\^?``,
``\\M-`` in strings (a raw byte), ``\\xe9`` (a raw byte) versus ``\\x0e9`` (a character).
Syntax a tool file never needs (``#s(``, ``#1=``, ``#[``, ``#@``, ``#$``, ``#:``, ``#_``,
``#(``, ``#&``, ``#^[``, ``#!``) is refused with ``PS002``, never misread. A string
character Emacs has but Python text cannot hold (a surrogate code point such as
``"\\ud800"``, a character beyond Unicode such as ``"\\x3fff7f"``) reads as the marker
:data:`UNREPRESENTABLE`, which, like the real character in ``json-serialize``, can never
be sent as JSON; the file still reads.
"""

from __future__ import annotations

import gc
import re
import struct
import sys

from plistspec.diagnostics import ReadError
from plistspec.elisp.datum import (
    BIG_DIGITS,
    BigInt,
    Datum,
    Digits,
    Float,
    Integer,
    List,
    String,
    Symbol,
    Vector,
)

__all__ = ["read_all", "read_one", "classify_token", "ReadError"]

SYNTAX = "PS001"
REFUSED = "PS002"
# A string character Emacs has but Python text cannot hold (a surrogate code point, a
# character beyond Unicode): the lone surrogate U+DC00, outside the raw-byte range.
UNREPRESENTABLE = "\udc00"

# --- modifier bits and character classes (lisp.h / character.h) ---------------------
ALT = 0x0400000
SUPER = 0x0800000
HYPER = 0x1000000
SHIFT = 0x2000000
CTL = 0x4000000
META = 0x8000000
MODIFIER_MASK = ALT | SUPER | HYPER | SHIFT | CTL | META
MAX_5_BYTE_CHAR = 0x3FFF7F  # above: the raw bytes 0x80..0xFF (BYTE8 chars)
BYTE8_BASE = 0x3FFF00

_SIMPLE_ESCAPES = {
    "a": 7,
    "b": 8,
    "d": 127,
    "e": 27,
    "f": 12,
    "n": 10,
    "r": 13,
    "t": 9,
    "v": 11,
}
_MOD_PREFIX = {"M": META, "S": SHIFT, "H": HYPER, "A": ALT}
_HEX = "0123456789abcdefABCDEF"
_CTL_OP = -1  # marker in the modifier stack for \C- and \^

# Characters that end a symbol (besides c <= 0x20 and NBSP): lread.c read1, Emacs 28.
_SYM_CHAR = r"""[^\x00-\x20\xa0"';()\[\]#`,\\]"""
_SYM_ESC = r"\\[\s\S]"
# A `.` starts a symbol or number unless it is followed by whitespace or one of "';([#?`,
# (then it is the dotted-pair marker).
_DOT_SYM = r"""\.(?![\x00-\x20"';(\[#?`,]|\Z)"""

_SYM_FIRST = r"""[^\x00-\x20\xa0"';()\[\]#`,\\?.]"""
# A character literal's exact extent (its value and validity are computed by _char_literal).
_CHAR_LIT = (
    r"\?(?:(?:\\(?:[MSHA]-|C-|\^|s-))*"
    r"(?:\\(?:N\{[^}]*\}|x[0-9a-fA-F]*|[uU][0-9a-fA-F]*|[0-7]{1,3}|[\s\S])|[^\\]))?"
)

# A symbol token that cannot be a number and has no escape: its text is its name.
_PLAIN_FIRST = r"""[^\x00-\x20\xa0"';()\[\]#`,\\?.0-9+-]"""

# The master regex: every match is (whitespace and comments, then exactly one token), and
# ``match.lastindex`` says which token. Punctuation is matched by its literal followed by
# an empty group (so the regex engine skips a non-matching branch on its first character,
# and no substring is made). Possessive quantifiers: nothing here ever backtracks.
_TOKENS = re.compile(
    r"[\x00-\x20\xa0]*+(?:;[^\n]*+[\x00-\x20\xa0]*+)*+"
    r"(?:"
    rf"({_PLAIN_FIRST}{_SYM_CHAR}*+)(?!\\)"  # 1 a plain symbol
    r"|\(()|\)()"  # 2 ( and 3 ): the group is just after the parenthesis
    r'|"([^"\\]*+(?:\\[\s\S][^"\\]*+)*+)"'  # 4 a string literal's body
    r"|'()"  # 5
    # 6 any other symbol-or-number token (a number, a leading dot, escapes)
    rf"|((?:{_SYM_FIRST}|{_SYM_ESC}|{_DOT_SYM}){_SYM_CHAR}*+(?:{_SYM_ESC}{_SYM_CHAR}*+)*+)"
    r"|\[()|\]()|#'()|`()|,@()|,()"  # 7 [  8 ]  9 #'  10 `  11 ,@  12 ,
    # 13 anything else: `.`, # syntax, ?c, one stray character (an error), or the empty
    # string at the end of the input
    r"|(\.|##|#[xXoObB][+-]?[0-9A-Za-z]*|#[0-9]+[rR][+-]?[0-9A-Za-z]*"
    rf"|{_CHAR_LIT}|[\s\S]|\Z)"
    r")"
)
(_PLAIN, _OPEN, _CLOSE, _STRING, _QUOTE, _ATOM, _OPEN_VEC, _CLOSE_VEC) = range(1, 9)
_OTHER = 13
# Prefix groups: the prefix's text.
_PREFIXES = {5: "'", 9: "#'", 10: "`", 11: ",@", 12: ","}

# Emacs's string_to_number (base 10), anchored: the whole token must be consumed.
# Rarely needed patterns (numbers, escapes, # syntax) are compiled on first use by _re:
# a typical tool file needs only _TOKENS, and the CLI imports this module on every run.
_NUMBER = r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE](?:[+-]?[0-9]+|\+(INF|NaN)))?"
_SYM_UNESCAPE = r"\\([\s\S])"
_RADIX_DIGITS = r"[+-]?[0-9A-Za-z]*"
_DIGITS = r"[0-9]+"
_UPLUS = r"U\+([0-9A-Fa-f]+)\.?"
_NAME_SPACES = r"[ \t\n\v\f\r]+"
_compiled: dict[str, re.Pattern[str]] = {}


def _radix_digits(base: int) -> str:
    """A regex for one or more digits of ``base`` (2..36), either case."""
    if base <= 10:
        return f"[0-{base - 1}]+"
    return f"[0-9a-{chr(ord('a') + base - 11)}A-{chr(ord('A') + base - 11)}]+"


_RADIX_CLASS = {b: _radix_digits(b) for b in range(2, 37)}


def _re(pattern: str) -> re.Pattern[str]:
    """The compiled ``pattern``, compiled once per process."""
    rx = _compiled.get(pattern)
    if rx is None:
        rx = _compiled[pattern] = re.compile(pattern)
    return rx


_NAN_BITS = 0x7FF8000000000000


def classify_token(tok: str) -> tuple[str, int | float | str]:
    """How Emacs reads one unescaped symbol-or-number token: ``("integer", 1)``,
    ``("float", 0.5)`` or ``("symbol", "1+")``. Exposed for the grammar test."""
    v = _number(tok)
    if v is None:
        return ("symbol", tok)
    if type(v) is Digits:
        v = v.convert()
    return ("integer", v) if isinstance(v, int) else ("float", v)


def _number(tok: str) -> int | float | None:
    """The number a token denotes, or None when Emacs reads it as a symbol."""
    m = _re(_NUMBER).fullmatch(tok)
    if m is None:
        return None
    sign, lead, trail, special = m.groups()
    exp = m.end() > m.start() and (tok[-1].isdigit() and ("e" in tok or "E" in tok)) or special
    has_e = "e" in tok or "E" in tok
    if trail or (lead and has_e):
        if special == "INF":
            v = float("inf")
        elif special == "NaN":
            n = (_to_int(lead, 10, False) if lead else -1) & 0xFFFFFFFFFFFFFFFF
            bits = _NAN_BITS | (n & 0x7FFFFFFFFFFFF)
            if sign == "-":
                bits |= 1 << 63
            return struct.unpack(">d", struct.pack(">Q", bits))[0]
        else:
            v = float(tok.lstrip("+-"))
        return -v if sign == "-" else v
    del exp
    if not lead:
        return None
    return _integer(lead, 10, sign == "-")


def _integer(digits: str, base: int, negative: bool) -> int | Digits:
    """The integer's value, or its :class:`Digits` (converted on first use) when long."""
    if len(digits) > BIG_DIGITS:
        return Digits(digits, base, negative)
    return _to_int(digits, base, negative)


_CHUNK = 2000  # digits converted by one int() call (below Python's 4 300-digit limit)


def _to_int(digits: str, base: int, negative: bool) -> int:
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


def _lc(text: str, pos: int) -> str:
    """``line:col`` of ``pos`` (through the shared line index: error recovery asks this
    once per bad form, which must not rescan the text each time)."""
    from plistspec.diagnostics import line_index

    line, col = line_index(text).position(pos)
    return f"{line}:{col}"


def _show(s: str, limit: int = 40) -> str:
    """``s`` fit for a one-line message: control characters and line breaks escaped
    (``\\n``), at most ``limit`` characters (then ``…``)."""
    cut = len(s) > limit
    s = s[:limit]
    if not s.isprintable():
        s = "".join(
            c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode()
            for c in s
        )
    return s + "…" if cut else s


def _err(msg: str, text: str, pos: int, code: str = SYNTAX) -> ReadError:
    return ReadError(msg, text, pos, code)


# --- escapes -----------------------------------------------------------------------


def _ctl(c: int) -> int:
    """Apply \\C- / \\^ to a character code (read_escape in lread.c)."""
    base = c & ~MODIFIER_MASK
    if base == 0x3F:  # ?
        return 0x7F | (c & MODIFIER_MASK)
    if base >= 256:
        return c | CTL
    if 0o101 <= (c & 0o137) <= 0o132:
        return c & (0o37 | ~0o177)
    if 0o100 <= (c & 0o177) <= 0o137:
        return c & (0o37 | ~0o177)
    return c | CTL


# Names Python knows and Emacs 28's char-from-name does not (checked over all of Unicode).
_NAMES_EMACS_LACKS = (
    "CJK UNIFIED IDEOGRAPH-",
    "TANGUT COMPONENT-",
    "KHITAN SMALL SCRIPT FILLER",
    "VIETNAMESE ALTERNATE READING MARK",
)


def _char_name(name: str, text: str, pos: int) -> int:
    """``\\N{NAME}``: ``U+XXXX`` or a Unicode character name (any case)."""
    m = _re(_UPLUS).fullmatch(name)
    code = -1
    if m is not None:
        code = int(m.group(1), 16)
    else:
        import unicodedata

        from plistspec.elisp._charnames import EMACS_ONLY_NAMES

        up = name.upper()
        code = EMACS_ONLY_NAMES.get(up, -1)
        if code < 0 and not up.startswith(_NAMES_EMACS_LACKS):
            try:
                ch = unicodedata.lookup(name)
            except KeyError:
                ch = ""
            # Emacs's char-from-name knows a character's own name and its Unicode 1.0
            # name (the table above), not the aliases or named sequences Python knows.
            if len(ch) == 1 and unicodedata.name(ch, "") == up:
                code = ord(ch)
    if not (0 <= code <= 0x10FFFF) or 0xD800 <= code <= 0xDFFF:
        raise _err(f"unknown character name \\N{{{_show(name)}}}", text, pos)
    return code


def _escape(text: str, i: int, stringp: bool, esc_pos: int) -> tuple[int, int]:
    """Read one escape; ``i`` is just after the backslash. Returns (code, next index).

    The code is -1 for an ignored escape (backslash-newline, and backslash-space in a
    string). Modifier prefixes (\\C-, \\M-, ...) nest without recursion.
    """
    n = len(text)
    ops: list[int] = []
    while True:
        if i >= n:
            raise _err("end of input inside an escape sequence", text, esc_pos)
        c = text[i]
        i += 1
        simple = _SIMPLE_ESCAPES.get(c)
        if simple is not None:
            code = simple
            break
        if c == "\n":
            code = -1
            break
        if c == " ":
            code = -1 if stringp else 32
            break
        if c in "MSHACs^":
            if c == "s":
                if stringp or i >= n or text[i] != "-":
                    code = 32
                    break
                i += 1
                op = SUPER
            elif c == "^":
                op = _CTL_OP
            else:
                if i >= n or text[i] != "-":
                    raise _err(f"invalid escape \\{c}: expected \\{c}-", text, esc_pos)
                i += 1
                op = _CTL_OP if c == "C" else _MOD_PREFIX[c]
            ops.append(op)
            if i >= n:
                raise _err("end of input inside an escape sequence", text, esc_pos)
            c2 = text[i]
            i += 1
            if c2 == "\\":
                stringp = False  # nested escapes are read as in a character literal
                continue
            code = ord(c2)
            break
        if "0" <= c <= "7":
            code = ord(c) - 48
            for _ in range(2):
                if i < n and "0" <= text[i] <= "7":
                    code = code * 8 + ord(text[i]) - 48
                    i += 1
                else:
                    break
            if 0x80 <= code < 0x100:
                code += BYTE8_BASE
            break
        if c == "x":
            j = i
            while j < n and text[j] in _HEX:
                j += 1
            digits = text[i:j]
            code = int(digits, 16) if digits else 0
            if code > 0xFFFFFFF:
                raise _err(f"hex escape out of range: \\x{_show(digits)}", text, esc_pos)
            if len(digits) < 3 and code >= 0x80:
                code += BYTE8_BASE
            i = j
            break
        if c == "u" or c == "U":
            count = 4 if c == "u" else 8
            digits = text[i : i + count]
            bad = next((k for k, d in enumerate(digits) if d not in _HEX), None)
            if bad is not None or len(digits) < count:
                raise _err(
                    f"\\{c} needs exactly {count} hex digits: \\{c}{_show(text[i : i + count])}",
                    text,
                    esc_pos,
                )
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise _err(f"not a Unicode character: \\{c}{digits}", text, esc_pos)
            i += count
            break
        if c == "N":
            if i >= n or text[i] != "{":
                raise _err("expected { after \\N", text, esc_pos)
            close = text.find("}", i)
            if close < 0:
                raise _err("unterminated \\N{...} escape", text, esc_pos)
            raw = text[i + 1 : close]
            if any(not (0 < ord(ch) < 0x80) for ch in raw):
                raise _err(
                    f"invalid character in character name \\N{{{_show(raw)}}}", text, esc_pos
                )
            name = _re(_NAME_SPACES).sub(" ", raw)
            if not name:
                raise _err("empty character name \\N{}", text, esc_pos)
            code = _char_name(name, text, esc_pos)
            i = close + 1
            break
        code = ord(c)
        break
    while ops:
        op = ops.pop()
        code = _ctl(code) if op == _CTL_OP else code | op
    return code, i


# One-character string escapes: "\n" and the like, "\"", "\(", backslash-newline and
# backslash-space (ignored), any other ASCII character that stands for itself. Not here
# (the full _escape reads them): modifiers "\C-" "\^" "\M-"..., octal, "\x" "\u" "\U" "\N".
_FAST_ESCAPES = {chr(c): chr(c) for c in range(128) if chr(c) not in "MSHAC^01234567xuUN"}
_FAST_ESCAPES.update({k: chr(v) for k, v in _SIMPLE_ESCAPES.items()})
_FAST_ESCAPES.update({"\n": "", " ": "", "s": " "})


def _unescape_string(body: str, text: str, base: int) -> str:
    """The value of a string literal whose contents ``body`` (at ``base``) hold a ``\\``.

    Fast path: split at backslashes; each piece after one starts with the escaped
    character, and an empty piece is a ``\\\\`` pair (the piece after it is plain text).
    Any escape that is not one character long goes to :func:`_unescape_full`."""
    pieces = body.split("\\")
    out = [pieces[0]]
    append = out.append
    fast = _FAST_ESCAPES
    it = iter(pieces)
    next(it)
    for piece in it:
        if piece:
            r = fast.get(piece[0])
            if r is None:
                return _unescape_full(body, text, base)
            append(r)
            append(piece[1:])
        else:  # an escaped backslash (the regex never ends a body with a lone one)
            append("\\")
            append(next(it))
    return "".join(out)


def _unescape_full(body: str, text: str, base: int) -> str:
    """:func:`_unescape_string` for any escape, with its errors."""
    out: list[str] = []
    n = len(body)
    i = 0
    find = body.find
    while True:
        j = find("\\", i)
        if j < 0:
            out.append(body[i:])
            break
        if j > i:
            out.append(body[i:j])
        code, i = _escape(body, j + 1, True, base + j)
        if code == -1:
            continue
        mods = code & MODIFIER_MASK
        ch = code & ~MODIFIER_MASK
        if ch < 0x80:
            if mods == CTL:
                if ch == 0x20:
                    ch, mods = 0, 0
                elif ch == 0x3F:
                    ch, mods = 127, 0
            if mods & SHIFT:
                if 0x41 <= ch <= 0x5A:
                    mods &= ~SHIFT
                elif 0x61 <= ch <= 0x7A:
                    ch -= 32
                    mods &= ~SHIFT
            if mods & META:
                mods &= ~META
                ch = BYTE8_BASE + (ch | 0x80)
        if mods:
            raise _err("invalid modifier in string (\\C-, \\M-, \\S-...)", text, base + j)
        if ch > MAX_5_BYTE_CHAR:
            out.append(chr(0xDC00 + ch - BYTE8_BASE))
        elif ch > 0x10FFFF or 0xD800 <= ch <= 0xDFFF:
            # Emacs has these characters; Python text cannot hold them. They stand as
            # UNREPRESENTABLE, which no JSON encoding accepts, exactly as json-serialize
            # refuses them (utf-8-string-p): reading the file never fails because of them.
            out.append(UNREPRESENTABLE)
        else:
            out.append(chr(ch))
        if i > n:  # pragma: no cover - _escape never reads past the body
            break
    return "".join(out)


def _char_literal(text: str, pos: int) -> tuple[int, int]:
    """``?c`` at ``pos``: (character code, end)."""
    n = len(text)
    i = pos + 1
    if i >= n:
        raise _err("end of input after ?", text, pos)
    c = text[i]
    if c == " " or c == "\t":
        return ord(c), i + 1
    if c == "\\":
        code, i = _escape(text, i + 1, False, pos)
    else:
        code = ord(c)
        i += 1
    mods = code & MODIFIER_MASK
    code &= ~MODIFIER_MASK
    if code > MAX_5_BYTE_CHAR:
        code -= BYTE8_BASE
    code |= mods
    if i < n:
        nc = text[i]
        if not (nc <= " " or nc in "\"';()[]#?`,."):
            raise _err(
                f"invalid character literal {text[pos : i + 1]!r}: a ?c must be followed by "
                "a space or a delimiter",
                text,
                pos,
            )
    return code, i


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


def _hash(text: str, pos: int) -> tuple[Datum, int]:
    """``#`` syntax at ``pos`` other than ``#'``: radix integers and ``##``."""
    n = len(text)
    c = text[pos + 1] if pos + 1 < n else ""
    if c == "":  # `"" in "xX"` is true: the end of the input is tested first
        raise _err("invalid syntax: `#` at the end of the input", text, pos)
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
        m = _re(_DIGITS).match(text, pos + 1)
        assert m is not None
        i = m.end()
        nxt = text[i] if i < n else ""
        if nxt and nxt in "rR":
            radix = int(m.group()) if len(m.group()) <= 3 else 0
            if not 2 <= radix <= 36:
                shown = _show(m.group())
                raise _err(f"invalid radix {shown} in #{shown}r (must be 2 to 36)", text, pos)
            i += 1
        elif nxt and nxt in "=#":
            raise _err(
                f"#{m.group()}{nxt} (shared structure) is not supported in a tool file",
                text,
                pos,
                REFUSED,
            )
        else:
            raise _err(f"invalid syntax #{_show(m.group() + nxt)}", text, pos)
    elif c in _REFUSED_HASH:
        raise _err(f"{_REFUSED_HASH[c]} are not supported in a tool file", text, pos, REFUSED)
    elif c == "<":
        raise _err("#<...> is an unreadable object (printed, not source)", text, pos)
    else:
        raise _err(f"invalid syntax #{_show(c)}", text, pos)
    m = _re(_RADIX_DIGITS).match(text, i)
    assert m is not None
    tok = m.group()
    digits = tok.lstrip("+-")
    try:
        if not digits:
            raise ValueError
        if not _re(_RADIX_CLASS[radix]).fullmatch(digits):
            raise ValueError
        value = _integer(digits, radix, tok.startswith("-"))
    except ValueError:
        raise _err(
            f"invalid integer in radix {radix}: {_show(text[pos : m.end()])}", text, pos
        ) from None
    return Integer(value, pos, m.end()), m.end()


# --- the reader loop ---------------------------------------------------------------

# Frame kinds on the explicit stack. A frame is (kind, mark, start, extra): ``mark`` is
# where the frame's datums begin on the value stack, ``extra`` the tail of a dotted list
# or a prefix's text.
_TOP, _VEC, _PREFIX, _TAIL, _LIST, _CLOSING, _SPLICED, _SPLICED_CLOSING = range(8)
_PREFIX_NAMES = {"'": "quote", "#'": "function", "`": "`", ",": ",", ",@": ",@"}
_LIST_MIN = _LIST  # kinds >= _LIST are lists that a `)` closes

_WRONG_DOT = "`.` in wrong context: a dotted list has exactly one datum after `.`"


# Above this many characters read, the new datums are moved to the collector's oldest
# generation at once (see _read).
_PROMOTE_CHARS = 1_000_000


def _read(text: str, pos: int, one: bool) -> tuple[list[Datum], int]:
    """The engine: read datums from ``pos``; stop after the first one when ``one``.

    The collector is off while reading (millions of small objects, no cycles: spare its
    passes). Back on, it would find every datum in its youngest generation and walk them
    all twice (promoting them to the middle, then the oldest generation): after a 10 MB
    read, as long as the read itself. A big read therefore moves the young objects to the
    oldest generation directly (``gc.freeze()`` then ``gc.unfreeze()``, no walk); this
    only makes them old, the collector still frees them as usual."""
    gc_was = gc.isenabled()
    gc.disable()
    try:
        result = _read_loop(text, pos, one)
    finally:
        if gc_was:
            gc.enable()
    if gc_was and result[1] - pos > _PROMOTE_CHARS:
        gc.freeze()
        gc.unfreeze()
    return result


def _finish_list(items: list[Datum], tail: Datum | None, start: int, end: int) -> Datum:
    """Normalize a read list as Emacs stores it: ``(a . nil)`` is ``(a)``, ``(a . 'b)``
    is ``(a quote b)``, ``(. x)`` is ``x``, ``()`` is ``nil``."""
    while tail is not None:
        if type(tail) is Symbol and tail.name == "nil":
            tail = None
        elif type(tail) is List:
            items.extend(tail.items)
            tail = tail.tail
        else:
            break
    if not items:
        if tail is not None:
            return tail
        return Symbol("nil", start, end)
    return List(items, start, end, tail)


def _read_loop(text: str, pos: int, one: bool) -> tuple[list[Datum], int]:
    """The token loop. Hot path, so: local names only; datums are made with
    ``object.__new__`` and direct slot stores (a class call runs ``__init__``, three
    times slower); the datums of all open lists and vectors share one value stack and
    each list takes an exactly sized slice of it when it closes (no over-allocated
    ``list.append`` growth left in the result)."""
    TOP, VEC, PREFIX, TAIL, LIST = _TOP, _VEC, _PREFIX, _TAIL, _LIST
    CLOSING, SPLICED, SPLICED_CLOSING, LIST_MIN = _CLOSING, _SPLICED, _SPLICED_CLOSING, _LIST_MIN
    PLAIN, OPEN, CLOSE, STRING, ATOM = _PLAIN, _OPEN, _CLOSE, _STRING, _ATOM
    OPEN_VEC, CLOSE_VEC, OTHER = _OPEN_VEC, _CLOSE_VEC, _OTHER
    PREFIXES, PREFIX_NAMES = _PREFIXES, _PREFIX_NAMES
    Symbol_, String_, List_, Vector_ = Symbol, String, List, Vector
    new = object.__new__
    intern = sys.intern
    unescape = _unescape_string
    syms: dict[str, str] = {}  # plain symbol token -> its (interned, shared) name
    atoms: dict[str, tuple[type, object]] = {}  # other token -> (datum class, value)
    vals: list[Datum] = []  # the value stack; the top-level results sit at its bottom
    append = vals.append
    stack: list[tuple] = [(TOP, 0, pos, None)]
    push = stack.append
    pop = stack.pop
    kind = TOP
    d: Datum
    # One match at a time (findall would hold every token at once and double the peak);
    # scanner.match, not finditer: no search loop, every position starts a token.
    for m in iter(_TOKENS.scanner(text, pos).match, None):
        i = m.lastindex
        if i == PLAIN:
            tok = m[1]
            d = new(Symbol_)
            try:
                d.name = syms[tok]
            except KeyError:
                d.name = syms[tok] = intern(tok)
            d.start = m.start(1)
            d._len = len(tok)
            if kind == LIST:
                append(d)
                continue
        elif i == OPEN:
            if kind == TAIL:
                # `(a . (b c))`: the inner list's items go straight into the outer one.
                kind = SPLICED
            else:
                kind = LIST
            push((kind, len(vals), m.start(2) - 1, None))
            continue
        elif i == CLOSE:
            if kind < LIST_MIN:
                _syntax_error(text, ")", m.start(3) - 1, stack)
            _, mark, start, tail = pop()
            if kind >= SPLICED:
                # Hand the spliced list's tail to the outer list, which must close next.
                pop()  # the outer list's TAIL frame
                okind, omark, ostart, _ = stack[-1]
                kind = SPLICED_CLOSING if okind >= SPLICED else CLOSING
                stack[-1] = (kind, omark, ostart, tail)
                continue
            items = vals[mark:]
            del vals[mark:]
            if tail is None and items:
                d = new(List_)
                d.items = items
                d.tail = None
                d.start = start
                d._len = m.start(3) - start
            else:
                d = _finish_list(items, tail, start, m.start(3))
            kind = stack[-1][0]
        elif i == STRING:
            body = m[4]
            if "\\" in body:
                body = unescape(body, text, m.start(4))
            d = new(String_)
            d.value = body
            d.start = start = m.start(4) - 1
            d._len = m.end() - start
            if kind == LIST:
                append(d)
                continue
        elif i == ATOM:  # a number, or a symbol with escapes or a leading dot
            tok = m[6]
            start = m.start(6)
            v = atoms.get(tok)
            if v is None:
                v = atoms[tok] = _classify(tok, text, start)
            d = v[0](v[1], start, start + len(tok))
        elif i == OTHER:
            p = m[13]
            if not p:  # the end of the input
                break
            start = m.start(13)
            if p == "." and (kind == LIST or kind == SPLICED):  # the dot of a dotted list
                push((TAIL, 0, start, None))
                kind = TAIL
                continue
            elif p[0] == "?" and (len(p) > 1 or start + 1 < len(text)):
                code, end = _char_literal(text, start)
                if end != m.end():  # pragma: no cover - the regex and _char_literal agree
                    raise _err(f"invalid character literal {text[start:end]!r}", text, start)
                d = Integer(code, start, end, True)
            elif p[0] == "#" and len(p) > 1:  # ##, #x1F, #24r1k
                d, end = _hash(text, start)
                if end != m.end():  # pragma: no cover - the regex and _hash agree
                    raise _err(f"invalid syntax {text[start:end]!r}", text, start)
            else:
                _syntax_error(text, p, start, stack)
        elif i == OPEN_VEC:
            kind = VEC
            push((VEC, len(vals), m.start(7) - 1, None))
            continue
        elif i == CLOSE_VEC:
            if kind != VEC:
                _syntax_error(text, "]", m.start(8) - 1, stack)
            _, mark, start, _ = pop()
            d = new(Vector_)
            d.items = vals[mark:]
            del vals[mark:]
            d.start = start
            d._len = m.start(8) - start
            kind = stack[-1][0]
        else:  # a prefix: ' #' ` ,@ ,
            pre = PREFIXES[i]
            kind = PREFIX
            push((PREFIX, 0, m.start(i) - len(pre), pre))
            continue

        # Deliver the datum d to the frame on top of the stack.
        if kind == LIST:
            append(d)
            continue
        while kind == PREFIX:
            _, _, ps, pre = pop()
            head = new(Symbol_)
            head.name = PREFIX_NAMES[pre]
            head.start = ps
            head._len = len(pre)
            q = new(List_)
            q.items = [head, d]
            q.tail = None
            q.start = ps
            q._len = d.start + d._len - ps
            d = q
            kind = stack[-1][0]
        if kind == TAIL:
            pop()
            okind, omark, ostart, _ = stack[-1]
            kind = SPLICED_CLOSING if okind >= SPLICED else CLOSING
            stack[-1] = (kind, omark, ostart, d)
            continue
        if kind == CLOSING or kind == SPLICED_CLOSING:
            raise _err(_WRONG_DOT, text, d.start)
        append(d)
        if one and kind == TOP:
            return vals, m.end()
    # End of input.
    if kind != TOP:
        for frame in reversed(stack):
            if frame[0] in (LIST, VEC, CLOSING, SPLICED, SPLICED_CLOSING):
                what = "vector" if frame[0] == VEC else "list"
                raise _err(f"unterminated {what} starting at {_lc(text, frame[2])}", text, frame[2])
        top = stack[-1]
        raise _err(f"end of input after `{top[3]}`: expected an expression", text, top[2])
    return vals, len(text)


def _classify(tok: str, text: str, start: int) -> tuple[type, object]:
    """A symbol-or-number token -> (Symbol, name) / (Integer, int) / (Float, float)."""
    if "\\" in tok:
        return (Symbol, sys.intern(_re(_SYM_UNESCAPE).sub(r"\1", tok)))
    if tok[0] in "0123456789+-.":
        num = _number(tok)
        if num is None:
            return (Symbol, sys.intern(tok))
        if isinstance(num, int) or type(num) is Digits:
            return (Integer, num)
        return (Float, num)
    return (Symbol, sys.intern(tok))


def _syntax_error(text: str, tok: str, where: int, stack: list[tuple]) -> None:
    """Raise the error for a token that cannot stand where it is."""
    top = stack[-1]
    kind = top[0]
    if tok == '"':
        raise _err(f"unterminated string starting at {_lc(text, where)}", text, where)
    if tok == "\\":
        raise _err("end of input after a backslash", text, where)
    if tok == "?":
        raise _err("end of input after ?", text, where)
    if tok == "#":
        _hash(text, where)  # raises the precise error
    if tok == ".":
        if kind == _VEC:
            raise _err("`.` inside a vector", text, where)
        if kind == _TOP:
            raise _err("`.` outside a list", text, where)
        if kind == _PREFIX:
            raise _err(f"`.` right after `{top[3]}`: expected an expression", text, where)
        raise _err(_WRONG_DOT, text, where)
    if tok not in (")", "]"):  # pragma: no cover - the regex yields no other token here
        raise _err(f"unexpected {tok!r}", text, where)
    # ) or ] that closes nothing open
    if kind == _TOP:
        raise _err(f"unexpected `{tok}`: no list or vector is open", text, where)
    if kind == _PREFIX:
        raise _err(f"`{tok}` right after `{top[3]}`: expected an expression", text, where)
    if kind == _TAIL:
        raise _err(f"`{tok}` right after `.`: expected the tail of a dotted list", text, where)
    if tok == ")":
        raise _err(f"`)` inside the vector opened at {_lc(text, top[2])}", text, where)
    raise _err(f"`]` inside the list opened at {_lc(text, top[2])}", text, where)


_SURROGATE_CHUNK = 1 << 16


def _check_surrogates(text: str, start: int, end: int) -> None:
    """Refuse a lone surrogate (what ``surrogateescape`` makes of invalid UTF-8).

    Encoding to UTF-8 finds one several times faster than a regex search; chunks keep
    the bytes small; an ASCII text (the common case) needs no scan at all."""
    if text.isascii():
        return
    step = _SURROGATE_CHUNK
    for i in range(start, end, step):
        try:
            text[i : min(i + step, end)].encode("utf-8")
        except UnicodeEncodeError as e:
            raise ReadError(
                "invalid text: a lone surrogate (the file is not valid UTF-8?)",
                text,
                i + e.start,
                SYNTAX,
            ) from None


def read_all(text: str) -> list[Datum]:
    """Every top-level datum of ``text`` (comments skipped), in order.

    Raises :class:`ReadError` (``PS001`` syntax error, ``PS002`` refused syntax).
    """
    _check_surrogates(text, 0, len(text))
    return _read(text, 0, False)[0]


def read_one(text: str, pos: int = 0) -> tuple[Datum | None, int]:
    """The next datum at or after ``pos`` and the offset just after it; ``(None, len)``
    at the end of the input."""
    results, end = _read(text, pos, True)
    _check_surrogates(text, pos, end)
    if not results:
        return None, end
    return results[0], end
