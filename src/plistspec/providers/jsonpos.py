"""Where a JSON pointer points in the JSON text: so that diagnostics about provider
JSON carry ``FILE:LINE:COL`` like every other plistspec diagnostic.

Owns: :func:`pointer_span`. One linear scan of the text (no recursion: a stack of
container states), stopping as soon as the pointer's value starts; a pointer that goes
further than the text holds gives the span of its deepest existing prefix.
"""

from __future__ import annotations

import json
import re

__all__ = ["pointer_span"]

_WS = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SCALAR = re.compile(r"[^,\]\}\s]+")


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def _value_end(text: str, pos: int) -> int:
    """End offset of the JSON value starting at ``pos`` (strings skipped as tokens)."""
    depth = 0
    n = len(text)
    while pos < n:
        c = text[pos]
        if c == '"':
            m = _STRING.match(text, pos)
            pos = m.end() if m else n
        elif c in "[{":
            depth += 1
            pos += 1
        elif c in "]}":
            depth -= 1
            pos += 1
        elif depth == 0 and c in ",":
            return pos
        else:
            if depth == 0 and c not in " \t\r\n":
                m = _SCALAR.match(text, pos)
                return m.end() if m else pos + 1
            pos += 1
        if depth == 0:
            return pos
    return pos


def pointer_span(text: str, pointer: str) -> tuple[int, int] | None:
    """``(start, end)`` offsets of the value at ``pointer`` (RFC 6901) in ``text``."""
    parts = [_unescape(p) for p in pointer.split("/")[1:]] if pointer not in ("", "/") else []
    pos = _WS.match(text, 0).end()
    if pos >= len(text):
        return None
    best = (pos, _value_end(text, pos))
    for part in parts:
        c = text[pos : pos + 1]
        if c == "{":
            found = _find_member(text, pos, part)
        elif c == "[" and part.isdigit():
            found = _find_element(text, pos, int(part))
        else:
            found = None
        if found is None:
            return best
        pos = found
        best = (pos, _value_end(text, pos))
    return best


def _skip_ws(text: str, pos: int) -> int:
    return _WS.match(text, pos).end()


def _find_member(text: str, pos: int, key: str) -> int | None:
    pos = _skip_ws(text, pos + 1)
    while pos < len(text) and text[pos] == '"':
        m = _STRING.match(text, pos)
        if m is None:
            return None
        try:
            name = json.loads(m.group())
        except ValueError:
            return None
        pos = _skip_ws(text, m.end())
        if text[pos : pos + 1] != ":":
            return None
        pos = _skip_ws(text, pos + 1)
        if name == key:
            found = pos
            # JSON objects keep the last duplicate: look on for a later one
            end = _value_end(text, pos)
            later = _find_member_from(text, end, key)
            return later if later is not None else found
        pos = _skip_ws(text, _value_end(text, pos))
        if text[pos : pos + 1] != ",":
            return None
        pos = _skip_ws(text, pos + 1)
    return None


def _find_member_from(text: str, pos: int, key: str) -> int | None:
    pos = _skip_ws(text, pos)
    if text[pos : pos + 1] != ",":
        return None
    # continue scanning the same object after a comma
    return _find_member(text, pos, key)


def _find_element(text: str, pos: int, index: int) -> int | None:
    pos = _skip_ws(text, pos + 1)
    i = 0
    while pos < len(text) and text[pos] != "]":
        if i == index:
            return pos
        pos = _skip_ws(text, _value_end(text, pos))
        if text[pos : pos + 1] != ",":
            return None
        pos = _skip_ws(text, pos + 1)
        i += 1
    return None
