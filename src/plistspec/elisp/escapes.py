"""Backslash escapes of Emacs Lisp strings and ``?c`` character literals.

Owns: the value of a string literal's body that holds a ``\\`` and of a character
literal, as Emacs 28's ``read_escape`` (lread.c) computes them: one-character escapes
(``\\n``, ``\\"``, backslash-newline ignored...), octal and ``\\x`` (``\\xe9`` is a raw
byte, ``\\x0e9`` a character), ``\\u``/``\\U``, ``\\N{NAME}`` and ``\\N{U+X}``, and
the modifier prefixes ``\\C-``, ``\\^``, ``\\M-``, ``\\S-``, ``\\H-``, ``\\A-``,
``\\s-``, nested without recursion (``\\M-`` in a string is a raw byte; other modifiers
there are an error).

Where Emacs 28 and Emacs 30 read an escape differently, plistspec reads neither: PS001
says what each version does (``\\x`` without a hex digit, NUL in 28, an error in 30;
``\\C-``/``\\^`` on a non-ASCII character that 28 folds to a C1 control, ``?\\C-é`` 137,
where 30 sets the control modifier bit and refuses it in a string).

Strings take a fast path first (:func:`unescape_string`: split at backslashes, a table
for the one-character escapes); any longer escape hands the body to
:func:`unescape_full`. A character Emacs has but Python text cannot hold (a surrogate
code point, a character beyond Unicode) reads as :data:`UNREPRESENTABLE`.
"""

from __future__ import annotations

from plistspec.elisp.errors import read_error, show
from plistspec.elisp.scanner import lazy_re

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
# Patterns of \N{...}, compiled on first use.
_UPLUS = r"U\+([0-9A-Fa-f]+)\.?"
_NAME_SPACES = r"[ \t\n\v\f\r]+"


def _ctl(c: int) -> int:
    """Apply \\C- / \\^ to a character code (read_escape in lread.c): what Emacs 28 and
    30 agree on (:func:`_ctl_differs` says where they do not)."""
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


def _ctl_differs(c: int) -> bool:
    """Emacs 28 folds \\C- / \\^ on a character 0x80..0xFF whose low 7 bits are a letter
    or ``@[\\]^_`` to a C1 control (``?\\C-é`` is 137); Emacs 30 folds only ASCII and sets
    the control bit on anything else (``?\\C-é`` is é + 2**26; in a string, an error)."""
    base = c & ~MODIFIER_MASK
    return 0x80 <= base < 0x100 and (0o101 <= (c & 0o137) <= 0o132 or 0o100 <= (c & 0o177) <= 0o137)


def _ctl_error(code: int, stringp: bool, text: str, pos: int) -> Exception:
    base = code & ~MODIFIER_MASK
    folded = code & (0o37 | ~0o177)
    if stringp:
        how = "Emacs 30 refuses this (Emacs 28 read it as U+%04X)" % (folded & ~MODIFIER_MASK)
    else:
        how = f"Emacs 28 and Emacs 30 read this differently ({folded} in 28, {code | CTL} in 30)"
    return read_error(
        f"\\C- or \\^ on the non-ASCII character {chr(base)!r}: {how}; plistspec reads "
        "neither: write the character you mean",
        text,
        pos,
    )


# Names Python knows and Emacs 28's char-from-name does not (checked over all of Unicode).
_NAMES_EMACS_LACKS = (
    "CJK UNIFIED IDEOGRAPH-",
    "TANGUT COMPONENT-",
    "KHITAN SMALL SCRIPT FILLER",
    "VIETNAMESE ALTERNATE READING MARK",
)


def _char_name(name: str, text: str, pos: int) -> int:
    """``\\N{NAME}``: ``U+XXXX`` or a Unicode character name (any case)."""
    m = lazy_re(_UPLUS).fullmatch(name)
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
        raise read_error(f"unknown character name \\N{{{show(name)}}}", text, pos)
    return code


def _escape(text: str, i: int, stringp: bool, esc_pos: int) -> tuple[int, int]:
    """Read one escape; ``i`` is just after the backslash. Returns (code, next index).

    The code is -1 for an ignored escape (backslash-newline, and backslash-space in a
    string). Modifier prefixes (\\C-, \\M-, ...) nest without recursion.
    """
    n = len(text)
    ops: list[int] = []
    in_string = stringp
    while True:
        if i >= n:
            raise read_error("end of input inside an escape sequence", text, esc_pos)
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
                    raise read_error(f"invalid escape \\{c}: expected \\{c}-", text, esc_pos)
                i += 1
                op = _CTL_OP if c == "C" else _MOD_PREFIX[c]
            ops.append(op)
            if i >= n:
                raise read_error("end of input inside an escape sequence", text, esc_pos)
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
            if not digits:
                raise read_error(
                    "\\x not followed by a hex digit: Emacs 30 refuses this (Emacs 28 read it "
                    "as the character NUL; write \\0 for NUL)",
                    text,
                    esc_pos,
                )
            code = int(digits, 16)
            if code > 0xFFFFFFF:
                raise read_error(f"hex escape out of range: \\x{show(digits)}", text, esc_pos)
            if len(digits) < 3 and code >= 0x80:
                code += BYTE8_BASE
            i = j
            break
        if c == "u" or c == "U":
            count = 4 if c == "u" else 8
            digits = text[i : i + count]
            bad = next((k for k, d in enumerate(digits) if d not in _HEX), None)
            if bad is not None or len(digits) < count:
                raise read_error(
                    f"\\{c} needs exactly {count} hex digits: \\{c}{show(text[i : i + count])}",
                    text,
                    esc_pos,
                )
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise read_error(f"not a Unicode character: \\{c}{digits}", text, esc_pos)
            i += count
            break
        if c == "N":
            if i >= n or text[i] != "{":
                raise read_error("expected { after \\N", text, esc_pos)
            close = text.find("}", i)
            if close < 0:
                raise read_error("unterminated \\N{...} escape", text, esc_pos)
            raw = text[i + 1 : close]
            if any(not (0 < ord(ch) < 0x80) for ch in raw):
                raise read_error(
                    f"invalid character in character name \\N{{{show(raw)}}}", text, esc_pos
                )
            name = lazy_re(_NAME_SPACES).sub(" ", raw)
            if not name:
                raise read_error("empty character name \\N{}", text, esc_pos)
            code = _char_name(name, text, esc_pos)
            i = close + 1
            break
        code = ord(c)
        break
    while ops:
        op = ops.pop()
        if op == _CTL_OP:
            if _ctl_differs(code):
                raise _ctl_error(code, in_string, text, esc_pos)
            code = _ctl(code)
        else:
            code |= op
    return code, i


# One-character string escapes: "\n" and the like, "\"", "\(", backslash-newline and
# backslash-space (ignored), any other ASCII character that stands for itself. Not here
# (the full _escape reads them): modifiers "\C-" "\^" "\M-"..., octal, "\x" "\u" "\U" "\N".
_FAST_ESCAPES = {chr(c): chr(c) for c in range(128) if chr(c) not in "MSHAC^01234567xuUN"}
_FAST_ESCAPES.update({k: chr(v) for k, v in _SIMPLE_ESCAPES.items()})
_FAST_ESCAPES.update({"\n": "", " ": "", "s": " "})


def unescape_string(body: str, text: str, base: int) -> str:
    """The value of a string literal whose contents ``body`` (at ``base``) hold a ``\\``.

    Fast path: split at backslashes; each piece after one starts with the escaped
    character, and an empty piece is a ``\\\\`` pair (the piece after it is plain text).
    The body is split a window of :data:`_WINDOW` characters at a time (a window never
    ends on a backslash, so no escape is cut), so the pieces of one window are all that
    exists at once: memory about the size of the value, not a list entry and a string
    object per escape (splitting it all took ~50 bytes an escape, 140 MB for a 6 MB
    description of ``\\n\\"``). Any escape that is not one character long goes to
    :func:`unescape_full`."""
    n = len(body)
    fast = _FAST_ESCAPES
    done: list[str] = []  # the value of each window
    start = 0
    while start < n:
        end = min(start + _WINDOW, n)
        while end < n and body[end - 1] == "\\":
            end += 1
        pieces = body[start:end].split("\\")
        out = [pieces[0]]
        append = out.append
        it = iter(pieces)
        next(it)
        for piece in it:
            if piece:
                r = fast.get(piece[0])
                if r is None:
                    return unescape_full(body, text, base)
                append(r)
                append(piece[1:])
            else:  # an escaped backslash, or a lone one that ends the body
                nxt = next(it, None)
                if nxt is None:
                    return unescape_full(body, text, base)
                append("\\")
                append(nxt)
        done.append("".join(out))
        start = end
    return done[0] if len(done) == 1 else "".join(done)


_WINDOW = 1 << 16  # characters of a string body split at a time by unescape_string


def unescape_full(body: str, text: str, base: int) -> str:
    """:func:`unescape_string` for any escape, with its errors."""
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
            raise read_error("invalid modifier in string (\\C-, \\M-, \\S-...)", text, base + j)
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


def char_literal(text: str, pos: int) -> tuple[int, int]:
    """``?c`` at ``pos``: (character code, end)."""
    n = len(text)
    i = pos + 1
    if i >= n:
        raise read_error("end of input after ?", text, pos)
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
            raise read_error(
                f"invalid character literal {text[pos : i + 1]!r}: a ?c must be followed by "
                "a space or a delimiter",
                text,
                pos,
            )
    return code, i
