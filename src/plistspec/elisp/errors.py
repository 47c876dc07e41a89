"""How the Emacs Lisp reader words and places its errors.

Owns: the reader's diagnostic codes (``PS001`` a syntax error, ``PS002`` syntax Emacs
has that a tool file is refused), building a :class:`~plistspec.core.diagnostics.ReadError`
at a character offset, ``line:col`` for a message that points at a second place (where
an unterminated list opened), and quoting a piece of input on one line (control
characters escaped, long text cut), so no message ever spans lines or prints a million
digits. Which message a given bad input gets is decided where the input is read
(:mod:`plistspec.elisp.reader`, :mod:`~plistspec.elisp.escapes`,
:mod:`~plistspec.elisp.hash_syntax`).
"""

from __future__ import annotations

from plistspec.core.diagnostics import ReadError

SYNTAX = "PS001"
REFUSED = "PS002"


def line_col(text: str, pos: int) -> str:
    """``line:col`` of ``pos`` (through the shared line index: error recovery asks this
    once per bad form, which must not rescan the text each time)."""
    from plistspec.core.diagnostics import line_index

    line, col = line_index(text).position(pos)
    return f"{line}:{col}"


def show(s: str, limit: int = 40) -> str:
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


def read_error(msg: str, text: str, pos: int, code: str = SYNTAX) -> ReadError:
    """A :class:`ReadError` (``code``, default ``PS001``) for ``msg`` at offset ``pos``."""
    return ReadError(msg, text, pos, code)
