"""An Org source block's body as ``org-babel-tangle`` gives it to Emacs, with a map back.

Owns: :func:`tangle_body` (one block body: commas unescaped, common indentation removed),
:func:`escape_line` (the inverse of the unescaping, for ``fmt``) and :class:`ViewText`
(the Emacs Lisp view of a whole Markdown/Org file: the blocks, where each one is, and
where each of its characters is in the file).

What Org 9.7 (Emacs 30; Org 9.6+ from ELPA) does to a block body when it tangles it, or
``org-babel-load-file`` loads it: ``org-unescape-code-in-string`` removes the last comma of
a line that starts with blanks, commas and then ``*`` or ``#+``; unless the block has the
``-i`` switch or ``org-src-preserve-indentation`` is set, ``org-remove-indentation`` removes
the common indentation (in columns, a tab to the next multiple of 8) of the non-blank
lines -- nothing when one of them starts in column 0 -- and a blank line with less
indentation than that is made empty. A tab that spans the column where the common
indentation ends is kept whole, only what is before it removed (``move-to-column`` with
FORCE re-indents it, and ``indent-tabs-mode`` is on in the buffer tangling uses).
(``org-trim`` also drops the first line's indentation and the trailing blanks; no token
changes, so the view keeps them.) Org 9.5
(Emacs 28) differs on two points the view does not follow: it re-indents what is left of a
line with ``indent-line-to`` (a tab for every 8 columns when ``indent-tabs-mode`` is on;
spaces where a tab spans the cut), and makes every blank line empty.

Every line stays on its line: only columns move, so a diagnostic's line is the file's and
:meth:`ViewText.to_file` gives the file offset of a view offset.
"""

from __future__ import annotations

import re
from bisect import bisect_right

__all__ = [
    "ViewText",
    "tangle_body",
    "escape_line",
    "preserve_indentation",
    "common_indentation",
]

_UNESCAPE = re.compile(r"^[ \t]*,*(,)(?:\*|#\+)")
_ESCAPE = re.compile(r"^([ \t]*)(,*(?:\*|#\+))")
_PRESERVE = re.compile(r"org-src-preserve-indentation\s*:?\s+(\S+?)[\s;)]", re.I)


class ViewText(str):
    """The Emacs Lisp text of a Markdown/Org file: a ``str`` (what is read), ``blocks``:
    the ``(start, end)`` of each source block in it (each is read on its own,
    :func:`plistspec.elisp.recover.read_recovering`), and a map to the file's offsets
    (``segments``: ``(view start, file start, stretch)``; no segments: the same offsets).
    ``joined``: the blocks are loaded as one file (Org: tangling, ``org-babel-load-file``),
    so a block that does not read keeps the blocks after it from loading. ``bodies``: the
    ``(start, end)`` of each block's body in the file."""

    blocks: list[tuple[int, int]]
    bodies: list[tuple[int, int]]
    segments: list[tuple[int, int, bool]]
    joined: bool
    _starts: list[int]

    def __new__(
        cls,
        text: str,
        blocks: list[tuple[int, int]],
        segments: list[tuple[int, int, bool]] | None = None,
        joined: bool = False,
        bodies: list[tuple[int, int]] | None = None,
    ) -> ViewText:
        self = super().__new__(cls, text)
        self.blocks = blocks
        self.bodies = bodies if bodies is not None else blocks
        self.joined = joined
        self.segments = segments or []
        self._starts = [s[0] for s in self.segments]
        return self

    @property
    def mapped(self) -> bool:
        """Whether some offset of the view is not the file's own."""
        return any(v != f for v, f, _ in self.segments)

    def to_file(self, pos: int) -> int:
        """The file offset of view offset ``pos`` (-1 stays -1)."""
        if pos < 0 or not self.segments:
            return pos
        k = bisect_right(self._starts, pos) - 1
        if k < 0:
            return pos
        vstart, fstart, stretch = self.segments[k]
        return fstart + (pos - vstart) if stretch else fstart


def preserve_indentation(text: str) -> bool:
    """Whether the file sets ``org-src-preserve-indentation`` non-nil in its first line's
    ``-*- ... -*-`` or its ``Local Variables:`` list (read, never evaluated)."""
    first = text[: text.find("\n")] if "\n" in text else text
    places = []
    if "-*-" in first:
        places.append(first + " ")
    lv = text.rfind("Local Variables:", max(0, len(text) - 3000))
    if lv >= 0:
        places.append(text[lv:] + "\n")
    for place in places:
        m = _PRESERVE.search(place)
        if m and m.group(1) != "nil":
            return True
    return False


def _indentation(line: str) -> tuple[int, int]:
    """The leading blanks of ``line``: (characters, columns)."""
    col = 0
    i = 0
    while i < len(line) and line[i] in " \t":
        col = (col // 8 + 1) * 8 if line[i] == "\t" else col + 1
        i += 1
    return i, col


def common_indentation(body: str) -> int:
    """The columns of indentation common to the non-blank lines of ``body`` (an Org block
    as the file holds it), which tangling removes (Org 9.5 even under ``-i``)."""
    inds = [_indentation(s)[1] for s in body.split("\n") if s.strip(" \t")]
    return min(inds) if inds else 0


def tangle_body(
    text: str, start: int, end: int, preserve: bool, vpos: int
) -> tuple[str, list[tuple[int, int, bool]]]:
    """The body ``text[start:end]`` as tangled, and its segments (see :class:`ViewText`)
    for a view where it starts at offset ``vpos``. ``preserve``: keep the indentation."""
    lines = text[start:end].split("\n")
    cuts: list[list[tuple[int, int]]] = []  # per line: (offset in line, chars removed)
    kept: list[str] = []
    for line in lines:
        m = _UNESCAPE.match(line)
        if m:
            c = m.start(1)
            kept.append(line[:c] + line[c + 1 :])
            cuts.append([(c, 1)])
        else:
            kept.append(line)
            cuts.append([])
    n = 0
    if not preserve:
        inds = [_indentation(s)[1] for s in kept if s.strip(" \t")]
        n = min(inds) if inds else 0
    out: list[str] = []
    segs: list[tuple[int, int, bool]] = []
    fline = start
    for line, orig, cut in zip(kept, lines, cuts, strict=True):
        removed = 0  # characters of ``line`` dropped at its start
        if n:
            chars, col = _indentation(line)
            if col < n:  # only a blank line can be less indented than the common indentation
                removed = chars
            else:
                col = 0
                while col < n:
                    nxt = (col // 8 + 1) * 8 if line[removed] == "\t" else col + 1
                    if nxt > n:  # a tab across column n stays (move-to-column N t)
                        break
                    col = nxt
                    removed += 1
        # file offset of line[i]: fline + i + (1 if i >= comma offset else 0)
        comma = cut[0][0] if cut else len(orig) + 1
        pieces = [(removed, min(comma, len(line)))] if comma > removed else []
        if comma <= len(line):
            pieces.append((max(comma, removed), len(line)))
        body = ""
        for i, (a, b) in enumerate(pieces):
            if b > a or i == 0:
                segs.append((vpos, fline + a + (1 if a >= comma else 0), True))
                body += line[a:b]
                vpos += b - a
        out.append(body)
        vpos += 1  # the line break
        fline += len(orig) + 1
    return "\n".join(out), segs


def escape_line(line: str) -> str:
    """``line`` as an Org block holds it (``org-escape-code-in-string``: a comma before a
    leading ``*``, ``#+``, ``,*``...)."""
    return _ESCAPE.sub(r"\1,\2", line, count=1)
