"""``fmt``'s edits of a tangled Org block, written back so that the file tangles to them.

Owns: :func:`apply_view_edits`. ``fmt`` lays out the tool forms of an Org file's view
(:func:`plistspec.elisp.embedded.elisp_view`: each block as ``org-babel-tangle`` makes it,
columns mapped to the file's). An edit of the view goes back to the file with every new
line indented by the block's common indentation (as spaces) and escaped
(:func:`plistspec.elisp.orgtangle.escape_line`). Then the new file is tangled again: a
block whose tangled text is not exactly the view with its edits (a string spanning lines
whose continuation lines the re-added indentation would change, a new common indentation,
tabs) keeps its old text, each of its forms with a PS530 info; so does a block whose common
indentation in the file would change (Org 9.5, Emacs 28's, re-indents every line by it, even
under ``-i``). So fmt never changes what a block tangles to beyond the layout it chose, and a
string literal never changes, on Org 9.5 and 9.7 alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from plistspec.core.diagnostics import Diagnostic

__all__ = ["apply_view_edits", "splice"]

_CHANGED = (
    "in this Org block the new layout would not tangle to itself (a string that spans lines "
    "or the block's indentation would change), so the block is left as it is"
)


def splice(text: str, edits: list[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, new)`` of ``edits`` (in order) made."""
    pieces: list[str] = []
    pos = 0
    for start, end, new in edits:
        pieces.append(text[pos:start])
        pieces.append(new)
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def _block_of(starts: list[int], pos: int) -> int:
    """The block (by its ``starts``) an edit at view offset ``pos`` is in."""
    from bisect import bisect_right

    return bisect_right(starts, pos) - 1


def apply_view_edits(
    text: str, view: str, edits: list[tuple[int, int, str]], path: str | None
) -> tuple[str, list[Diagnostic]]:
    """``text`` (an Org file) with ``edits`` of its view made, and the PS530 infos of the
    forms whose block is left as it was (see module doc)."""
    from plistspec.elisp.embedded import elisp_view
    from plistspec.elisp.orgtangle import escape_line
    from plistspec.fmt.verify import left_alone

    blocks: list[tuple[int, int]] = view.blocks  # type: ignore[attr-defined]
    to_file = view.to_file  # type: ignore[attr-defined]
    by_block: dict[int, list[tuple[int, int, str]]] = {}
    starts = [b[0] for b in blocks]
    for e in edits:
        by_block.setdefault(_block_of(starts, e[0]), []).append(e)
    infos: list[Diagnostic] = []
    while True:
        file_edits = []
        for block_edits in by_block.values():
            for start, end, new in block_edits:
                lines = new.split("\n")
                fstart = to_file(start)
                cut = _cut(view, start, text)
                rest = [escape_line(cut + s) if s else s for s in lines[1:]]
                file_edits.append((fstart, to_file(end), "\n".join([lines[0], *rest])))
        file_edits.sort()
        new_text = splice(text, file_edits)
        if not by_block:
            return new_text, infos
        new_view = elisp_view(path, new_text).text
        bad = [
            k
            for k, block_edits in by_block.items()
            if not _tangles_to(new_view, k, _expected(view, blocks[k], block_edits))
            or not _same_indentation(text, view, new_text, new_view, k)
        ]
        if not bad:
            return new_text, infos
        for k in bad:
            for start, end, _ in by_block.pop(k):
                infos.append(left_alone(_CHANGED, to_file(start), to_file(end), path))


def _expected(view: str, block: tuple[int, int], edits: list[tuple[int, int, str]]) -> str:
    """The block's view text with ``edits`` made."""
    start, end = block
    shifted = [(a - start, b - start, new) for a, b, new in edits]
    return splice(view[start:end], shifted)


def _tangles_to(new_view: str | None, k: int, expected: str) -> bool:
    blocks = getattr(new_view, "blocks", None)
    if new_view is None or blocks is None or k >= len(blocks):
        return False
    start, end = blocks[k]
    return new_view[start:end] == expected


def _same_indentation(text: str, view: str, new_text: str, new_view: str | None, k: int) -> bool:
    """Whether block ``k`` keeps its common indentation and the file text of each string
    that spans lines: Org 9.5 (Emacs 28) re-indents every line to its column less that
    indentation with ``indent-line-to`` (even under ``-i``), which keeps the blanks before
    that column as they are, so a string tangles to its old text there only when both
    stay."""
    from plistspec.elisp.orgtangle import common_indentation

    old_start, old_end = view.bodies[k]  # type: ignore[attr-defined]
    new_start, new_end = new_view.bodies[k]  # type: ignore[union-attr]
    old, new = text[old_start:old_end], new_text[new_start:new_end]
    return common_indentation(old) == common_indentation(new) and _long_strings(
        old
    ) == _long_strings(new)


def _long_strings(body: str) -> list[str]:
    """The string literals of ``body`` (Emacs Lisp as the file holds it) that span lines,
    as written (a lexical scan: comments, ``?`` characters and escapes skipped)."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c == ";":
            j = body.find("\n", i)
            i = n if j < 0 else j
        elif c == "\\":
            i += 2
        elif c == "?":
            i += 3 if body.startswith("\\", i + 1) else 2
        elif c == '"':
            j = i + 1
            while j < n and body[j] != '"':
                j += 2 if body[j] == "\\" else 1
            if "\n" in body[i:j]:
                out.append(body[i : j + 1])
            i = j + 1
        else:
            i += 1
    return out


def _cut(view: str, start: int, text: str) -> str:
    """What tangling removed at the start of the line of view offset ``start``: the
    characters re-added before each new line of a form that starts there."""
    to_file = view.to_file  # type: ignore[attr-defined]
    first = to_file(view.rfind("\n", 0, start) + 1)
    return text[text.rfind("\n", 0, first) + 1 : first]
