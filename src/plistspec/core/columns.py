"""Where an offset sits on its line, in linear time however long the line is.

Owns: :func:`visual_column` (Emacs's ``current-column``: a tab advances to the next
multiple of 8) and :func:`rest_of_line_blank`. ``fmt`` asks both for every tool form it
lays out; a file may hold thousands of forms on one long line (a generated ``(progn
...)``), so neither may scan from the start of the line each time: the line start comes
from a bounded search back (a few KB) or else the text's line index (built once, only
for texts with such long lines), a line without a tab before the offset costs one C-level
search, and the columns of one line are computed on from the last one asked (forms come
in order), never from the line start again.
"""

from __future__ import annotations

import re

from plistspec.core.diagnostics import line_index

__all__ = ["visual_column", "rest_of_line_blank"]

# the last column computed: (text, line start, offset, column); the next offset of the
# same line (at or after it) goes on from there
_LAST: list = [None, -1, -1, 0]

# how far back a line start is searched for before the line index is asked
_NEAR = 4096

_BLANK_TO_EOL = re.compile(r"[^\S\n]*+(?:;|\n|\Z)")


def visual_column(text: str, pos: int) -> int:
    """The 0-based visual column of offset ``pos`` of ``text`` (tabs every 8)."""
    # the line start: a bounded C-level search back, else the text's line index
    nl = text.rfind("\n", pos - _NEAR if pos > _NEAR else 0, pos)
    if nl >= 0 or pos <= _NEAR:
        start = nl + 1
    else:
        line, col1 = line_index(text).position(pos)
        start = pos - (col1 - 1)
    if text.find("\t", start, pos) < 0:
        return pos - start
    last_text, last_start, last_pos, last_col = _LAST
    if last_text is text and last_start == start and last_pos <= pos:
        at, col = last_pos, last_col
    else:
        at, col = start, 0
    find = text.find
    tab = find("\t", at, pos)
    while tab >= 0:
        col = ((col + tab - at) // 8 + 1) * 8
        at = tab + 1
        tab = find("\t", at, pos)
    col += pos - at
    _LAST[:] = (text, start, pos, col)
    return col


def rest_of_line_blank(text: str, pos: int) -> bool:
    """True when only blanks (or a comment) follow ``pos`` on its line."""
    return _BLANK_TO_EOL.match(text, pos) is not None
