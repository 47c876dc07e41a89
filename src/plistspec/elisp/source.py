"""File bytes → Emacs buffer text: what visiting a file puts in the buffer.

Owns: :func:`buffer_text`, the one decoding every input goes through (the CLI's files and
standard input, and the library API given ``bytes``). UTF-8, each invalid byte kept as a
raw byte (a lone surrogate, one character, as the reader holds raw bytes: what Emacs
holds when it decodes the file as UTF-8, as it does when the file says ``coding:
utf-8``) with a PS001 warning at the first one (without such a cookie Emacs guesses the
coding of a file that is not UTF-8, Latin-1 or raw-text, which reads non-ASCII text
otherwise: the warning says so); a leading byte-order mark dropped; line endings decoded as
Emacs does (CRLF or CR alone become LF, :mod:`plistspec.elisp.eol`). Lines, columns and
string values of the result are Emacs's.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from plistspec.core.diagnostics import Diagnostic

__all__ = ["BufferText", "buffer_text"]

_UTF8_COOKIE = re.compile(
    rb"-\*-.*coding:\s*(utf-8|utf-8-emacs|prefer-utf-8)(-unix|-dos|-mac)?\b", re.I
)


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


def _says_utf8(data: bytes) -> bool:
    """The file's ``-*-`` line (the first, the second after ``#!``) names UTF-8."""
    lines = data[:1000].split(b"\n", 2)
    head = lines[: 2 if data.startswith(b"#!") else 1]
    return any(_UTF8_COOKIE.search(line) for line in head)


def buffer_text(data: bytes) -> BufferText:
    """The text Emacs's buffer holds after visiting a file of ``data`` (see module doc)."""
    from plistspec.elisp.eol import decode_eol, detect_eol, encode_eol

    diag: Diagnostic | None = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        text = data.decode("utf-8", "surrogateescape")
        prefix = data[: e.start].decode("utf-8", "replace")
        if _says_utf8(data):
            how = (
                "read as Emacs reads it (the file says coding: utf-8): each invalid byte a raw byte"
            )
        else:
            how = (
                "read with each invalid byte as a raw byte, as Emacs reads a file that says "
                "`-*- coding: utf-8 -*-'; without that cookie Emacs guesses the coding "
                "(Latin-1, raw-text...) and can read non-ASCII text otherwise: add it"
            )
        diag = Diagnostic(
            "PS001",
            "warning",
            f"invalid UTF-8 (byte 0x{data[e.start]:02x}): {how}",
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
