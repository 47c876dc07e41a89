"""One printable line per diagnostic: the rule every line-oriented output keeps.

Owns: :func:`one_line` (every control character and lone surrogate escaped, so a message
quoting a file's text can never start a second, forged line) and :func:`gnu_line`
(``path:line:col: severity: message [CODE]``, what Emacs's ``compilation-mode`` reads).
They live in the ground layer because :meth:`Diagnostic.render` and every output
format (:mod:`plistspec.checking.report`) use them.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Protocol

__all__ = ["one_line", "gnu_line"]


class Located(Protocol):
    """What :func:`gnu_line` reads of a diagnostic (:class:`plistspec.core.diagnostics.Diagnostic`)."""

    path: str | None
    line: int | None
    column: int | None
    severity: str
    message: str
    code: str


@cache
def _unsafe() -> re.Pattern[str]:
    return re.compile(_UNSAFE)


# C0 controls, DEL, C1 controls, line/paragraph separators, bidirectional controls (they
# reorder how the rest of the line is shown), lone surrogates (compiled on first use: a class
# with the surrogate range costs start-up time, and a printable string, the usual one, never
# needs it)
_UNSAFE = "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    if c in _NAMED:
        return _NAMED[c]
    n = ord(c)
    if 0xDC80 <= n <= 0xDCFF:  # a raw byte read with surrogateescape
        return f"\\x{n - 0xDC00:02x}"
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def one_line(s: str) -> str:
    """``s`` with every control character and lone surrogate escaped: one printable line."""
    if s.isprintable():  # none of them is printable
        return s
    unsafe = _unsafe()
    return unsafe.sub(_escape, s) if unsafe.search(s) else s


def gnu_line(d: Located) -> str:
    """``path:line:col: severity: message [CODE]`` on one line (what compilation-mode reads)."""
    path = one_line(d.path or "<input>")
    msg = one_line(d.message)
    if d.line:
        return f"{path}:{d.line}:{d.column}: {d.severity}: {msg} [{d.code}]"
    return f"{path}: {d.severity}: {msg} [{d.code}]"
