"""Line endings as Emacs decodes them when it visits or loads a file.

Owns: :func:`detect_eol`, :func:`decode_eol` and :func:`encode_eol`. Emacs 28 does not
read a file's bytes as they are: ``insert-file-contents`` (what ``load`` and
``find-file`` use) first detects the end-of-line type and turns the file's line
endings into ``\\n`` (coding.c ``detect_eol``, checked with ``emacs --batch``, see
``tests/hostile/test_eol_emacs.py``):

* no CR at all, or any LF that is not preceded by a CR: ``unix``, nothing changes
  (a CR stays a CR, also in strings);
* otherwise, when some CR is followed by LF: ``dos``, each CRLF becomes LF and a lone
  CR stays (``"a\\r\\nb"`` in the file reads as ``"a\\nb"``);
* only CRs: ``mac``, each CR becomes LF (``;; header<CR>(form)`` is two lines).

A ``coding:`` cookie on the first line (the second after ``#!``) ending in ``-unix``,
``-dos`` or ``-mac`` fixes the type, as in Emacs.

Decoding then encoding gives back the original text exactly (in a ``dos`` text every
LF came from a CRLF, in a ``mac`` text there was no LF), so ``fmt`` can keep a file's
line endings byte for byte. Lines and columns are the decoded buffer's, as Emacs shows.
"""

from __future__ import annotations

import re

__all__ = ["detect_eol", "decode_eol", "encode_eol"]

_COOKIE = re.compile(r"-\*-.*?coding:\s*[^\s;]*-(unix|dos|mac)\b", re.IGNORECASE)


def _cookie(text: str) -> str | None:
    """The EOL type a ``-*- coding: X-unix -*-`` cookie names, if any."""
    head = text[:400]
    lines = re.split(r"\r\n|\r|\n", head, maxsplit=2)
    candidates = lines[:2] if lines and lines[0].startswith("#!") else lines[:1]
    for line in candidates:
        m = _COOKIE.search(line)
        if m:
            return m.group(1).lower()
    return None


def detect_eol(text: str) -> str:
    """``"unix"``, ``"dos"`` or ``"mac"``: how Emacs decodes ``text``'s line endings."""
    if "\r" not in text:
        return "unix"
    forced = _cookie(text)
    if forced is not None:
        return forced
    crlf = text.count("\r\n")
    if text.count("\n") > crlf:  # a lone LF: Emacs gives up and reads the bytes as they are
        return "unix"
    return "dos" if crlf else "mac"


def decode_eol(text: str, eol: str) -> str:
    """``text`` with its line endings decoded as type ``eol``."""
    if eol == "dos":
        return text.replace("\r\n", "\n")
    if eol == "mac":
        return text.replace("\r", "\n")
    return text


def encode_eol(text: str, eol: str) -> str:
    """The inverse of :func:`decode_eol`: ``text``'s LFs written as type ``eol``."""
    if eol == "dos":
        return text.replace("\n", "\r\n")
    if eol == "mac":
        return text.replace("\n", "\r")
    return text
