"""Character names Emacs 28.2 knows for ``\\N{NAME}`` that Python's :mod:`unicodedata` does not.

Owns: loading ``grammars/emacs-char-names.txt`` (one ``HEX NAME`` a line, generated once from
``(ucs-names)`` of Emacs 28.2, Unicode 14 like Python 3.11: every name whose character
Python's canonical ``unicodedata.name`` does not give, mostly Unicode 1.0 names such as
``LINE FEED (LF)`` and ``BYTE ORDER MARK``) into :data:`EMACS_ONLY_NAMES`. Imported lazily
by :mod:`plistspec.elisp.escapes`, at the first ``\\N{NAME}`` that is not ``U+XXXX``
(0.5 ms for its 1947 names).
"""

from __future__ import annotations

from plistspec.core.grammars import grammar_path

__all__ = ["EMACS_ONLY_NAMES"]


def _load() -> dict[str, int]:
    names: dict[str, int] = {}
    with open(grammar_path("emacs-char-names.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cp, _, name = line.rstrip("\n").partition(" ")
            names[name] = int(cp, 16)
    return names


EMACS_ONLY_NAMES: dict[str, int] = _load()
