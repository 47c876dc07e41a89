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
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from plistspec.core.diagnostics import Diagnostic

__all__ = ["ElispView", "elisp_view", "LANGUAGES", "not_elisp"]

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
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*\{?\.?" + _LANGS + r"(?![\w-])[^\n]*$", re.M)
_ORG_BEGIN = re.compile(r"^[ \t]*#\+begin_src[ \t]+" + _LANGS + r"(?![\w-])[^\n]*$", re.M | re.I)
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


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with every character outside ``spans`` a space, line breaks kept."""
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out.append(re.sub(r"[^\n]", " ", text[pos:start]))
        out.append(text[start:end])
        pos = end
    out.append(re.sub(r"[^\n]", " ", text[pos:]))
    return "".join(out)


def _blocks(text: str, begin: re.Pattern[str], end_of) -> list[tuple[int, int]]:
    """The spans of the blocks ``begin`` opens, each up to the match of the pattern
    ``end_of(opening match)`` (or the end of the text), bodies only."""
    spans = []
    pos = 0
    while (m := begin.search(text, pos)) is not None:
        body = min(m.end() + 1, len(text))
        close = end_of(m).search(text, body)
        spans.append((body, close.start() if close else len(text)))
        if close is None:
            break
        pos = close.end()
    return spans


def _fence_end(m: re.Match[str]) -> re.Pattern[str]:
    """A closing fence: the opening one's character, at least as many."""
    fence = m.group(1)
    return re.compile(
        r"^[ \t]{0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}[ \t]*$", re.M
    )


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
            spans = _blocks(text, _ORG_BEGIN, lambda _: _ORG_END)
        language = "Markdown" if suffix in _MARKDOWN else "Org"
        if not spans:
            return ElispView(None, language)
        return ElispView(_blank(text, spans), language, len(spans))
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
