"""Slot texts kept as written (``:function`` and the others) moved to another column.

Owns: :func:`reindent`. Continuation lines shift by the change of column, except lines
that begin inside a string (or any other multi-line token), which stay exactly as they
are.
"""

from __future__ import annotations

from typing import Any

__all__ = ["reindent"]


def _visual_width(ws: str) -> int:
    col = 0
    for c in ws:
        col = (col // 8 + 1) * 8 if c == "\t" else col + 1
    return col


def reindent(
    text: str, old_col: int | None, new_col: int, floor: int = 0, datum: Any = None
) -> str:
    """``text`` (a slot value as written at ``old_col``) moved to ``new_col``.

    Continuation lines shift by the column delta, to no less than column ``floor`` (a
    value moved far left keeps its lines to the right of where it starts); lines that
    begin inside a string (or any other multi-line token) are left exactly as they are.
    ``datum``: ``text`` as already read (its spans from where ``text`` starts), so it is
    not read again.
    """
    if old_col is None or old_col == new_col or "\n" not in text:
        return text
    delta = new_col - old_col
    if datum is not None:
        from plistspec.elisp.datum import atom_spans

        at = datum.start
        protected: list[tuple[int, int]] | None = [
            (a - at, b - at) for a, b in atom_spans([datum]) if "\n" in text[a - at : b - at]
        ]
    else:
        protected = _token_spans(text)
    if protected is None:
        return text
    lines = text.split("\n")
    out = [lines[0]]
    pos = len(lines[0]) + 1
    pi = 0
    for line in lines[1:]:
        while pi < len(protected) and protected[pi][1] <= pos:
            pi += 1
        inside = pi < len(protected) and protected[pi][0] < pos < protected[pi][1]
        if inside or not line.strip():
            out.append(line)
        else:
            body = line.lstrip(" \t")
            width = _visual_width(line[: len(line) - len(body)])
            out.append(" " * max(floor, width + delta) + body)
        pos += len(line) + 1
    return "\n".join(out)


def _token_spans(text: str) -> list[tuple[int, int]] | None:
    """Spans of the atoms (strings, symbols...) of ``text`` that cross a newline."""
    try:
        from plistspec.elisp.reader import read_all

        datums = read_all(text)
    except Exception:  # noqa: BLE001 - unreadable slot text is kept verbatim
        return None
    from plistspec.elisp.datum import atom_spans

    spans = [(a, b) for a, b in atom_spans(datums) if "\n" in text[a:b]]
    return spans
