"""Text that plistspec writes into Elisp comments and header lines, made harmless.

Owns one rule: whatever a name or a message holds (a newline in an ``-o`` path, a ``-*-`` in a
module directory, a control character), the text written after ``;;`` stays on that one line
and can never start a file-variables section (``-*- ... -*-`` or ``Local Variables:``), so
loading the file never runs or re-configures anything the user did not write.
"""

from __future__ import annotations

import re

__all__ = ["comment_text"]

# C0/C1 controls, DEL, the Unicode line/paragraph separators Emacs does not break on but
# editors might, the bidirectional controls (which reorder how the rest of the line is
# shown) and lone surrogates (raw bytes of a name that is not UTF-8); each becomes a
# visible escape.
_CONTROL = re.compile(
    r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)
# What Emacs's file-variable scanners look for: the -*- line and the Local Variables block.
_FILE_VARS = re.compile(r"-\*-|local variables:", re.IGNORECASE)


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:  # a raw byte (a name that is not UTF-8): its value
        return f"\\x{o - 0xDC00:02x}"
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(
        c, f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}"
    )


def _defuse(m: re.Match[str]) -> str:
    s = m.group()
    return "- * -" if s == "-*-" else s[:5] + "_" + s[6:]


def comment_text(text: str) -> str:
    """``text`` as one harmless comment line (without the leading ``;;``).

    Newlines, other control characters and bidirectional controls become visible escapes
    (``\\n``, ``\\x1b``, ``\\u202e``),
    ``-*-`` becomes ``- * -`` and ``Local Variables:`` loses its space, so the result can
    follow ``;;`` anywhere in a file without ending the comment or starting a
    file-variables section.
    """
    return _FILE_VARS.sub(_defuse, _CONTROL.sub(_escape, text))
