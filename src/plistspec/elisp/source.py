"""File bytes → Emacs buffer text: what visiting a file puts in the buffer.

Owns: :func:`buffer_text`, the one decoding every input goes through (the CLI's files and
standard input, and the library API given ``bytes``). UTF-8, each invalid byte kept as a
raw byte (a lone surrogate, one character, as the reader holds raw bytes) with a PS001
warning at the first one; a leading byte-order mark dropped; line endings decoded as
Emacs does (CRLF or CR alone become LF, :mod:`plistspec.elisp.eol`). Lines, columns and
string values of the result are Emacs's.
"""

from __future__ import annotations

from typing import NamedTuple

from plistspec.core.diagnostics import Diagnostic

__all__ = ["BufferText", "buffer_text"]


class BufferText(NamedTuple):
    """The buffer text of some bytes and how they stored it.

    ``warning``: PS001 at the first invalid byte (offsets in ``text``; no line/column
    yet), or None. ``bom``/``eol``: what was undone (fmt puts it back). ``exact``: False
    when encoding ``text`` back with ``eol`` does not give the bytes back (a coding
    cookie forcing -dos on a file with bare LFs).
    """

    text: str
    warning: Diagnostic | None
    bom: bool
    eol: str
    exact: bool


def buffer_text(data: bytes) -> BufferText:
    """The text Emacs's buffer holds after visiting a file of ``data`` (see module doc)."""
    from plistspec.elisp.eol import decode_eol, detect_eol, encode_eol

    diag: Diagnostic | None = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        text = data.decode("utf-8", "surrogateescape")
        prefix = data[: e.start].decode("utf-8", "replace")
        diag = Diagnostic(
            "PS001",
            "warning",
            f"invalid UTF-8 (byte 0x{data[e.start]:02x}): Emacs reads this file as utf-8-emacs "
            "or Latin-1; the rest is read with the invalid bytes as raw bytes",
            len(prefix),
            len(prefix) + 1,
        )
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
        if diag is not None:
            diag.start -= 1
            diag.end -= 1
    eol = detect_eol(text)
    exact = True
    if eol != "unix":
        if diag is not None:
            diag.start = diag.end = len(decode_eol(text[: diag.start], eol))
            diag.end += 1
        decoded = decode_eol(text, eol)
        exact = encode_eol(decoded, eol) == text
        text = decoded
    return BufferText(text, diag, bom, eol, exact)
