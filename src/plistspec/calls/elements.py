"""gptel's tools JSON read element by element, each with its own text.

Owns: :func:`split_tools` and :func:`split_array`. A tool set that changed in one tool
should cost one tool: the text of each element (as Emacs wrote it) is the key of what was
made of it before, so the other tools cost a hash, not a ``json.dumps``. Only the shapes
gptel writes are read this way (an array of objects, or Gemini's one
``functionDeclarations`` object holding that array); anything else gives ``None`` and the
caller reads the text whole.
"""

from __future__ import annotations

import re
from typing import Any

from plistspec.core.jsontext import JsonError, decode_at

__all__ = ["split_tools", "split_array"]

_WS = re.compile(r"[ \t\n\r]*")
_GEMINI = re.compile(r'[ \t\n\r]*\[[ \t\n\r]*\{[ \t\n\r]*"functionDeclarations"[ \t\n\r]*:')


def split_array(text: str, start: int = 0) -> tuple[list[tuple[str, Any]], int] | None:
    """The elements of the JSON array at ``start`` of ``text``, each ``(its text, its
    value)``, and the index after the array; None when there is no array there. Raises
    :class:`~plistspec.core.jsontext.JsonError` for an element nested too deep."""
    i = _WS.match(text, start).end()
    if text[i : i + 1] != "[":
        return None
    i = _WS.match(text, i + 1).end()
    out: list[tuple[str, Any]] = []
    if text[i : i + 1] == "]":
        return out, i + 1
    while True:
        try:  # the C decoder, and the iterative parser where it would go too deep
            value, end = decode_at(text, i)
        except JsonError as e:
            if e.too_deep:
                raise
            return None
        out.append((text[i:end], value))
        i = _WS.match(text, end).end()
        c = text[i : i + 1]
        if c == "]":
            return out, i + 1
        if c != ",":
            return None
        i = _WS.match(text, i + 1).end()


def split_tools(text: str) -> tuple[Any, list[tuple[str, Any]]] | None:
    """``(value, elements)`` of gptel's tools JSON ``text``: the whole value and each
    tool element's ``(text, value)`` (Gemini: the declarations); None for another shape."""
    m = _GEMINI.match(text)
    if m:
        inner = split_array(text, m.end())
        if inner is None:
            return None
        elements, i = inner
        rest = text[i:].strip(" \t\n\r")
        if rest.replace(" ", "") != "}]":
            return None
        return [{"functionDeclarations": [v for _, v in elements]}], elements
    whole = split_array(text)
    if whole is None or text[whole[1] :].strip(" \t\n\r"):
        return None
    elements = whole[0]
    if not all(isinstance(v, dict) for _, v in elements):
        return None
    return [v for _, v in elements], elements
