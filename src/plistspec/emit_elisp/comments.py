"""Where the comments of a span of Emacs Lisp start.

Owns: :func:`comments_in` (the ``;`` that start a comment, not those inside a string,
symbol or character literal). ``check --fix`` uses it to keep a fix off a comment.
(``fmt`` keeps comments by moving only the blanks between tokens,
:mod:`plistspec.emit_elisp.relayout`; the IR writer, :mod:`plistspec.emit_elisp.layout`,
writes no comments but the MCP ones of :mod:`plistspec.emit_elisp.file`.)
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import Any

__all__ = ["comments_in"]


def comments_in(text: str, datum: Any, lo: int | None = None, hi: int | None = None) -> list[int]:
    """Offsets of the ``;`` starting each comment in ``text[lo:hi]`` (default: ``datum``'s
    span), not counting ``;`` inside the atoms of ``datum`` (a datum or a list of them)."""
    from plistspec.elisp.datum import atom_spans

    if lo is None or hi is None:
        lo, hi = datum.start, datum.end
    if text.find(";", lo, hi) < 0:
        return []
    roots = datum if isinstance(datum, list) else [datum]
    if text.count(";", lo, hi) <= _FEW:
        return _comment_starts(text, lo, hi, lambda pos: _atom_end_at(roots, pos))
    atoms = atom_spans(roots)
    starts = [a[0] for a in atoms]

    def end_at(pos: int) -> int | None:
        i = bisect_right(starts, pos) - 1
        return atoms[i][1] if i >= 0 and atoms[i][0] <= pos < atoms[i][1] else None

    return _comment_starts(text, lo, hi, end_at)


def _comment_starts(text: str, lo: int, hi: int, end_at: Callable[[int], int | None]) -> list[int]:
    """The ``;`` of ``text[lo:hi]`` that start a comment: a ``;`` inside an atom (whose end
    ``end_at(pos)`` gives, None outside every atom) is skipped, and so is the rest of a
    comment's line."""
    out = []
    pos = text.find(";", lo, hi)
    while pos >= 0:
        end = end_at(pos)
        if end is not None:
            pos = text.find(";", end, hi)
            continue
        out.append(pos)
        nl = text.find("\n", pos, hi)
        if nl < 0:
            break
        pos = text.find(";", nl, hi)
    return out


# Up to this many ``;`` in a span, each is placed by walking down to it (a few small
# lists per ``;``) instead of listing every atom of the span: linear either way.
_FEW = 8


def _atom_end_at(roots: list[Any], pos: int) -> int | None:
    """The end of the atom of ``roots`` whose span holds ``pos``, None when none does
    (the atoms :func:`plistspec.elisp.datum.atom_spans` lists: lists and vectors are
    opened, placeless datums skipped). Only the containers whose span holds ``pos`` (or
    that have no span) are opened."""
    from plistspec.elisp.datum import List, Vector

    todo = list(roots)
    while todo:
        d = todo.pop()
        s = d.start
        if isinstance(d, (List, Vector)):
            if s >= 0 and not s <= pos < d.end:
                continue
            todo.extend(d.items)
            if isinstance(d, List) and d.tail is not None:
                todo.append(d.tail)
        elif s >= 0 and s <= pos < d.end:
            return d.end
    return None
