"""Which part of a file is Emacs Lisp: all of it, its source blocks, or none.

Owns: :func:`elisp_view`. ``check`` reads ``.el`` files (and any name it does not know);
a Markdown or Org file is read for its Emacs Lisp source blocks (```` ```elisp ````,
```` ```emacs-lisp ````, ``#+begin_src emacs-lisp`` / ``elisp``), every other character
of it made a space (line breaks kept), so offsets, lines and columns of the view are
the file's own and a fix applies to the file as it is. A file whose name says it is
another language (``.py``, ``.sh``, ``.yaml``...) is no Emacs Lisp at all: read as such
it would give a stream of meaningless syntax errors, so the caller says it once instead
(:func:`not_elisp`, the same PS003 for ``check``, ``to-json`` and ``fmt``).
``.json`` is not judged here (the commands say "this is JSON" themselves). A first line
``#!...`` (a script for ``emacs --script``) is a comment, as Emacs's reader makes it.

The view of a Markdown/Org file is a :class:`plistspec.elisp.orgtangle.ViewText`: each
block is read on its own (a syntax error in one hides no other block), and an Org block is
what tangling makes of it (:func:`plistspec.elisp.orgtangle.tangle_body`): every line on
its line, columns mapped back to the file's by ``ViewText.to_file``.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from plistspec.core.diagnostics import Diagnostic

__all__ = [
    "ElispView",
    "elisp_view",
    "LANGUAGES",
    "literate",
    "not_elisp",
    "to_file_offsets",
    "file_position",
    "tools_at_file_positions",
]

# file name suffix -> the language it holds
LANGUAGES = {
    ".py": "Python",
    ".pyi": "Python",
    ".pyw": "Python",
    ".ipynb": "a Jupyter notebook",
    ".txt": "plain text",
    ".rst": "reStructuredText",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".fish": "shell",
    ".js": "JavaScript",
    ".mjs": "JavaScript",
    ".cjs": "JavaScript",
    ".ts": "TypeScript",
    ".yaml": "YAML",
    ".yml": "YAML",
    ".toml": "TOML",
    ".ini": "INI",
    ".cfg": "INI",
    ".html": "HTML",
    ".htm": "HTML",
    ".xml": "XML",
    ".css": "CSS",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".go": "Go",
    ".rs": "Rust",
    ".rb": "Ruby",
    ".lua": "Lua",
    ".java": "Java",
    ".elc": "byte-compiled Emacs Lisp",
}
_MARKDOWN = (".md", ".markdown", ".mdx")
_ORG = (".org",)
_LANGS = r"(?:emacs-lisp|elisp|el)"
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*\{?\.?" + _LANGS + r"(?![\w-])[^\n]*$", re.M)
_ORG_BEGIN = re.compile(r"^[ \t]*#\+begin_src[ \t]+" + _LANGS + r"(?![\w-])[^\n]*$", re.M | re.I)
# "at LINE:COL" in a message, and a double-quoted string (a name or value quoted from the
# file, whose text is left as written)
_AT = re.compile(r'"(?:[^"\\]|\\.)*"|\bat (\d+):(\d+)\b', re.S)
_SWITCH_I = re.compile(r"^[^:]*\s-i(?:\s|$)")
_ORG_END = re.compile(r"^[ \t]*#\+end_src[ \t]*$", re.M | re.I)


class ElispView:
    """``text``: what to read as Emacs Lisp (None: nothing); ``language``: what the file
    is instead (``"Python"``, ``"Markdown"``...), None for an Emacs Lisp file;
    ``blocks``: how many source blocks a Markdown/Org file has."""

    __slots__ = ("text", "language", "blocks")

    def __init__(self, text: str | None, language: str | None = None, blocks: int = 0) -> None:
        self.text = text
        self.language = language
        self.blocks = blocks


def _blank(text: str, spans: list[tuple[int, int]], org: list[bool] | None = None) -> str:
    """``text`` with every character outside ``spans`` a space, line breaks kept; with
    ``org`` (per span: whether to keep its indentation), each span as Org tangles it."""
    from plistspec.elisp.orgtangle import ViewText, tangle_body

    out: list[str] = []
    segments: list[tuple[int, int, bool]] = []
    blocks: list[tuple[int, int]] = []
    pos = vpos = 0
    for k, (start, end) in enumerate(spans):
        out.append(re.sub(r"[^\n]", " ", text[pos:start]))
        segments.append((vpos, pos, True))
        vpos += start - pos
        if org is None:
            body, segs = text[start:end], [(vpos, start, True)]
        else:
            body, segs = tangle_body(text, start, end, org[k], vpos)
        out.append(body)
        segments.extend(segs)
        blocks.append((vpos, vpos + len(body)))
        vpos += len(body)
        pos = end
    out.append(re.sub(r"[^\n]", " ", text[pos:]))
    segments.append((vpos, pos, True))
    if org is None:
        return ViewText("".join(out), blocks)
    return ViewText("".join(out), blocks, segments, joined=True, bodies=list(spans))


def _blocks(
    text: str, begin: re.Pattern[str], end_of, open_ended: bool = True
) -> list[tuple[int, int]]:
    """The spans of the blocks ``begin`` opens, each up to the match of the pattern
    ``end_of(opening match)``, bodies only. A block that never closes runs to the end of
    the text when ``open_ended`` (a Markdown fence), and is no block otherwise (Org: a
    ``#+begin_src`` line without its ``#+end_src`` is a paragraph line, never tangled)."""
    spans = []
    pos = 0
    while (m := begin.search(text, pos)) is not None:
        body = min(m.end() + 1, len(text))
        close = end_of(m).search(text, body)
        if close is None:
            if open_ended:
                spans.append((body, len(text)))
            break
        spans.append((body, close.start()))
        pos = close.end()
    return spans


_TANGLE_NO = re.compile(r"\s:tangle[ \t]+no(?:\s|$)")
_HEADING = re.compile(r"^(\*+)[ \t]+(.*)$", re.M)
_COMMENTED = re.compile(r"^(?:[A-Z]+[ \t]+)?(?:\[#.\][ \t]+)?COMMENT(?:\s|$)")
_ARCHIVED = re.compile(r"[ \t]:(?:[\w@#%]+:)*ARCHIVE:(?:[\w@#%]+:)*[ \t]*$")


def _loaded(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The Org blocks ``org-babel-load-file`` tangles and loads: not one whose header says
    ``:tangle no``, nor one under a COMMENT or ARCHIVE-tagged heading (at any level above
    it), which ``org-babel-tangle`` skips."""
    out = []
    headings = _HEADING.finditer(text)
    pending = next(headings, None)
    stack: list[tuple[int, bool]] = []  # (level, skipped) of the headings above
    for start, end in spans:
        while pending is not None and pending.start() < start:
            level = len(pending.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            title = pending.group(2)
            skipped = bool(_COMMENTED.match(title) or _ARCHIVED.search(title))
            stack.append((level, skipped or bool(stack and stack[-1][1])))
            pending = next(headings, None)
        if stack and stack[-1][1]:
            continue
        if _TANGLE_NO.search(" " + _begin_line(text, start)):
            continue
        out.append((start, end))
    return out


def _begin_line(text: str, body: int) -> str:
    """The ``#+begin_src`` line of the block whose body starts at ``body``."""
    end = body - 1 if body > 0 and text[body - 1] == "\n" else body
    return text[text.rfind("\n", 0, end) + 1 : end]


def _fence_end(m: re.Match[str]) -> re.Pattern[str]:
    """A closing fence: the opening one's character, at least as many. Fences may be
    indented any amount: a fenced block inside a list item ("1. Add this:" then the
    block indented under it) is indented by the item's content, beyond CommonMark's 0-3."""
    fence = m.group(1)
    return re.compile(r"^[ \t]*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$", re.M)


def literate(path: str | None) -> bool:
    """Whether ``path`` names a Markdown or Org file (read for its source blocks)."""
    return bool(path) and os.path.splitext(path)[1].lower() in _MARKDOWN + _ORG


def elisp_view(path: str | None, text: str) -> ElispView:
    """The Emacs Lisp of ``text``, judged by the name ``path`` (None or an unknown
    suffix: all of it)."""
    if not path:
        return ElispView(_shebang(text))
    suffix = os.path.splitext(path)[1].lower()
    if suffix in _MARKDOWN or suffix in _ORG:
        if suffix in _MARKDOWN:
            spans = _blocks(text, _FENCE, _fence_end)
        else:
            spans = _loaded(text, _blocks(text, _ORG_BEGIN, lambda _: _ORG_END, open_ended=False))
        language = "Markdown" if suffix in _MARKDOWN else "Org"
        if not spans:
            return ElispView(None, language)
        org = None
        if suffix in _ORG:
            from plistspec.elisp.orgtangle import preserve_indentation

            keep = preserve_indentation(text)
            org = [
                keep or _SWITCH_I.search(_begin_line(text, start)) is not None for start, _ in spans
            ]
        return ElispView(_blank(text, spans, org), language, len(spans))
    language = LANGUAGES.get(suffix)
    if language is not None:
        return ElispView(None, language)
    return ElispView(_shebang(text))


def _shebang(text: str) -> str:
    """``text`` with a first line ``#!...`` read as the comment Emacs's reader makes of it
    (a script run by ``emacs --script``): ``;!``, the same offsets."""
    return ";" + text[1:] if text.startswith("#!") else text


def not_elisp(
    path: str | None, text: str, language: str | None, command: str = "check"
) -> Diagnostic:
    """PS003 for a file that is not Emacs Lisp (:func:`elisp_view`): an error for another
    language, a warning for a Markdown/Org file without an Emacs Lisp source block;
    ``command`` names the command that says it."""
    from plistspec.core.diagnostics import Diagnostic, locate

    if language in ("Markdown", "Org"):
        severity = "warning"
        message = (
            f"no Emacs Lisp here: {command} reads the emacs-lisp/elisp source blocks of "
            f"{language} files, and this one has none"
        )
    else:
        severity = "error"
        message = (
            f"this is {language}, not Emacs Lisp: {command} reads tool forms from .el files "
            "(and the emacs-lisp source blocks of .md/.org files)"
        )
        if language == "Python":
            message += "; for Python functions use `plistspec from-py MODULE:FUNCTION`"
    d = Diagnostic("PS003", severity, message, 0, min(1, len(text)), path=path)
    return locate([d], text, path)[0]


def to_file_offsets(diags: list[Diagnostic], view: str, text: str) -> list[Diagnostic]:
    """``diags`` found in ``view`` (an :func:`elisp_view` text) at the offsets, lines and
    columns of the file ``text``: an Org block's columns as the file has them. A fix of a
    tangled Org block that spans lines is dropped (its new lines would need the block's
    indentation): the finding stays."""
    segments = getattr(view, "segments", None)
    if not segments or not view.mapped:  # type: ignore[attr-defined]
        return diags
    from plistspec.core.diagnostics import locate

    to_file = view.to_file  # type: ignore[attr-defined]
    position = file_position(view, text)

    def place(m: re.Match[str]) -> str:  # "at L:C" in a message: the file's line and column
        if m.group(1) is None:
            return m.group(0)  # a quoted string: as the file has it
        at = position(int(m.group(1)), int(m.group(2)))
        return f"at {at[0]}:{at[1]}"

    for d in diags:
        d.message = _AT.sub(place, d.message)
        if d.start >= 0:
            d.start, d.end = to_file(d.start), to_file(d.end) if d.end >= 0 else d.end
            d.line = 0
        fix = getattr(d, "fix", None)
        if fix is not None:
            if "\n" in fix.replacement or "\n" in view[fix.start : fix.end]:
                d.fix = None
            else:
                fix.start, fix.end = to_file(fix.start), to_file(fix.end)
    return locate(diags, text)


def file_position(view: str, text: str) -> Callable[[int, int], tuple[int, int]]:
    """``(line, column) -> (line, column)``: a 1-based position in ``view`` (an
    :func:`elisp_view` text) as a position in the file ``text``."""
    from plistspec.core.diagnostics import line_index

    to_file = getattr(view, "to_file", None)
    index = line_index(text)
    starts = [0] + [m.end() for m in re.finditer("\n", view)]

    def position(line: int, col: int) -> tuple[int, int]:
        if to_file is None or not 0 < line <= len(starts):
            return line, col
        return index.position(to_file(starts[line - 1] + col - 1))

    return position


def tools_at_file_positions(tools: list, view: str, text: str) -> None:
    """Each tool's ``metadata.source`` read from ``view``: at the file's lines and columns."""
    if not getattr(view, "mapped", False):
        return
    position = file_position(view, text)
    for tool in tools:
        src = (tool.get("metadata") or {}).get("source") if isinstance(tool, dict) else None
        if src and src.get("line"):
            src["line"], src["column"] = position(src["line"], src["column"])
            src["end_line"], src["end_column"] = position(src["end_line"], src["end_column"])
