"""JSON text in, Python values out, at any depth; and JSON values made safe to show or write.

Owns: :func:`load_json` (the text of a ``from-json`` input → value, with positioned errors),
:func:`find_surrogates` (strings Emacs cannot hold) and :func:`brief` (a short one-line
rendering of any value for messages). Nothing here recurses: the standard ``json`` module
is used for speed and, when it gives up (nesting deeper than Python's recursion limit, an
integer too long to convert), an iterative parser with the same results takes over, so
every error has a line and column. Arrays and objects nested more than
:data:`MAX_DEPTH` levels deep are refused (a :class:`JsonError` whose ``too_deep`` is
true, at the bracket that opens level ``MAX_DEPTH + 1``): Emacs 30's ``json-parse-string``
refuses them too (``json-object-too-deep``; Emacs 28.2 already near 1 600), so no tool
JSON that deep reaches or comes from gptel or llm, and reading stops in time and memory
bounded by that depth, not by the size of the input.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

__all__ = [
    "load_json",
    "decode_at",
    "JsonError",
    "MAX_DEPTH",
    "find_surrogates",
    "find_keys",
    "brief",
]

# Arrays and objects nested deeper than this are refused: Emacs 30's json-parse-string
# limit (json.c's 10 000; it lets one empty innermost array or object through, this does
# not). The one place the limit is set.
MAX_DEPTH = 10_000

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _bad_constant(c: str) -> Any:
    raise ValueError(f"{c} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_bad_constant)


class JsonError(Exception):
    """Invalid JSON: a message and the character offset where it was found;
    ``too_deep`` when it is valid JSON nested more than :data:`MAX_DEPTH` levels."""

    def __init__(self, message: str, pos: int, too_deep: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.too_deep = too_deep

    def diagnostic(self) -> tuple[str, str]:
        """``(code, message)`` of the error diagnostic of a command that reads this input:
        PS500 invalid JSON, or PS527 nested too deep."""
        if self.too_deep:
            return "PS527", self.message
        return "PS500", f"invalid JSON: {self.message}"


def load_json(text: str) -> tuple[Any, list[str]]:
    """``(value, duplicate keys)``; raises :class:`JsonError`. NaN and Infinity are
    refused; a repeated key keeps its last value (and is listed)."""
    dups: list[str] = []

    def pairs(items: list) -> dict:
        d: dict = {}
        for k, v in items:
            if k in d:
                dups.append(k)
            d[k] = v
        return d

    if sys.getrecursionlimit() <= MAX_DEPTH:  # so the C parser never goes past the limit
        try:
            return json.loads(text, object_pairs_hook=pairs, parse_constant=_bad_constant), dups
        except json.JSONDecodeError as e:
            raise JsonError(e.msg, e.pos) from None
        except (RecursionError, ValueError):
            pass  # deeper than the C parser goes, or an integer it cannot convert: see below
    dups.clear()
    return _parse(text, dups)[0], dups


def decode_at(text: str, pos: int) -> tuple[Any, int]:
    """The JSON value at ``pos`` of ``text`` and the index just after it, as
    ``json.JSONDecoder().raw_decode`` gives them, but at any depth up to
    :data:`MAX_DEPTH` (NaN and Infinity refused); raises :class:`JsonError`."""
    if sys.getrecursionlimit() <= MAX_DEPTH:
        try:
            return _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise JsonError(e.msg, e.pos) from None
        except (RecursionError, ValueError):
            pass
    return _parse(text, [], pos, False)


def _parse(text: str, dups: list[str], start: int = 0, whole: bool = True) -> tuple[Any, int]:
    """The iterative parser: a stack of open containers. ``(value, end)`` of the value
    at ``start``; ``whole``: nothing but blanks may follow it."""
    from json.decoder import scanstring

    n = len(text)
    stack: list[tuple[Any, Any]] = []  # (container, pending key for objects)
    pos = _WS.match(text, start).end() if whole else start
    value: Any = None
    while True:
        # -- one value at pos
        if pos >= n:
            raise JsonError("Expecting value", pos)
        c = text[pos]
        if c == "{" or c == "[":
            if len(stack) >= MAX_DEPTH:
                raise JsonError(
                    f"JSON nested more than {MAX_DEPTH} levels deep (arrays and objects); "
                    "Emacs 30's json-parse-string refuses it too",
                    pos,
                    too_deep=True,
                )
            after = _WS.match(text, pos + 1).end()
            if text.startswith("}" if c == "{" else "]", after):
                value, pos = ({} if c == "{" else []), after + 1
            elif c == "[":
                stack.append(([], None))
                pos = after
                continue
            else:
                key, pos = _key(text, after, scanstring)
                stack.append(({}, key))
                continue
        elif c == '"':
            try:
                value, pos = scanstring(text, pos + 1, True)
            except json.JSONDecodeError as e:
                raise JsonError(e.msg, e.pos) from None
        elif text.startswith("true", pos):
            value, pos = True, pos + 4
        elif text.startswith("false", pos):
            value, pos = False, pos + 5
        elif text.startswith("null", pos):
            value, pos = None, pos + 4
        else:
            m = _NUMBER.match(text, pos)
            if m is None:
                for bad in ("NaN", "Infinity", "-Infinity"):
                    if text.startswith(bad, pos):
                        raise JsonError(f"{bad} is not JSON", pos)
                raise JsonError("Expecting value", pos)
            tok = m.group()
            try:
                value = float(tok) if m.group(1) or m.group(2) else int(tok)
            except ValueError:
                raise JsonError(
                    f"an integer of {len(tok)} digits is too long to read", pos
                ) from None
            pos = m.end()
        # -- value done: attach it to the open container, or finish
        while True:
            if not stack:
                if not whole:
                    return value, pos
                pos = _WS.match(text, pos).end()
                if pos != n:
                    raise JsonError("Extra data", pos)
                return value, pos
            pos = _WS.match(text, pos).end()
            cont, key = stack[-1]
            if type(cont) is dict:
                if key in cont:
                    dups.append(key)
                cont[key] = value
                close = "}"
            else:
                cont.append(value)
                close = "]"
            if text.startswith(",", pos):
                pos = _WS.match(text, pos + 1).end()
                if close == "}":
                    key, pos = _key(text, pos, scanstring)
                    stack[-1] = (cont, key)
                break  # parse the next value
            if text.startswith(close, pos):
                stack.pop()
                value, pos = cont, pos + 1
                continue
            raise JsonError(f"Expecting ',' delimiter or '{close}'", pos)


def _key(text: str, pos: int, scanstring: Any) -> tuple[str, int]:
    """An object key and its ``:`` at ``pos``; the offset of the value after them."""
    if not text.startswith('"', pos):
        raise JsonError("Expecting property name enclosed in double quotes", pos)
    try:
        key, pos = scanstring(text, pos + 1, True)
    except json.JSONDecodeError as e:
        raise JsonError(e.msg, e.pos) from None
    pos = _WS.match(text, pos).end()
    if not text.startswith(":", pos):
        raise JsonError("Expecting ':' delimiter", pos)
    return key, _WS.match(text, pos + 1).end()


def _ptr(where: Any) -> str:
    """A pointer kept as nested ``(parent, key)`` pairs (cheap to extend) → its text."""
    keys = []
    while isinstance(where, tuple):
        where, k = where
        keys.append(str(k).replace("~", "~0").replace("/", "~1"))
    return "".join("/" + k for k in reversed(keys))


def find_surrogates(value: Any, limit: int = 5) -> list[tuple[str, str]]:
    """Up to ``limit`` places where a string or key holds a lone surrogate (``"\\ud800"``,
    ``"\\udc80"``): ``(JSON pointer, "key" or "string")``. Emacs text cannot hold such a
    character (and the printer would write ``\\udc80`` as the raw byte 0x80)."""
    out: list[tuple[str, str]] = []
    todo: list[tuple[Any, Any]] = [("", value)]
    while todo and len(out) < limit:
        where, v = todo.pop()
        if isinstance(v, str):
            if not v.isascii() and _SURROGATE.search(v):
                out.append((_ptr(where), "string"))
        elif isinstance(v, dict):
            for k in reversed(list(v)):
                p = (where, k)
                if isinstance(k, str) and not k.isascii() and _SURROGATE.search(k):
                    out.append((_ptr(p), "key"))
                todo.append((p, v[k]))
        elif isinstance(v, list):
            for i in range(len(v) - 1, -1, -1):
                todo.append(((where, i), v[i]))
    return out


def find_keys(value: Any, pattern: re.Pattern[str], limit: int = 5) -> list[str]:
    """JSON pointers of up to ``limit`` object keys that ``pattern`` finds something in,
    in document order (any depth, no recursion)."""
    out: list[str] = []
    todo: list[tuple[Any, Any]] = [("", value)]
    while todo and len(out) < limit:
        where, v = todo.pop()
        if isinstance(v, dict):
            for k in reversed(list(v)):
                p = (where, k)
                if isinstance(k, str) and not k.isascii() and pattern.search(k):
                    out.append(_ptr(p))
                todo.append((p, v[k]))
        elif isinstance(v, list):
            for i in range(len(v) - 1, -1, -1):
                todo.append(((where, i), v[i]))
    return out[:limit]


def brief(v: Any, limit: int = 80, ascii: bool = True) -> str:
    """``v`` as compact JSON, cut at about ``limit`` characters (``…``), at any depth;
    ``ascii`` False keeps non-ASCII characters as they are."""
    pieces: list[str] = []
    size = 0
    todo: list[Any] = [("v", v)]
    while todo and size <= limit:
        kind, x = todo.pop()
        if kind == "s":
            s = x
        elif isinstance(x, dict):
            s = "{"
            todo.append(("s", "}"))
            items = list(x.items())
            for i in range(len(items) - 1, -1, -1):
                todo.append(("v", items[i][1]))
                todo.append(("s", json.dumps(str(items[i][0]), ensure_ascii=ascii) + ": "))
                if i:
                    todo.append(("s", ", "))
        elif isinstance(x, list):
            s = "["
            todo.append(("s", "]"))
            for i in range(len(x) - 1, -1, -1):
                todo.append(("v", x[i]))
                if i:
                    todo.append(("s", ", "))
        elif isinstance(x, str):
            s = json.dumps(x[: limit + 1], ensure_ascii=ascii)
        elif isinstance(x, int) and not isinstance(x, bool) and x.bit_length() > 200:
            s = "<a long integer>"
        else:
            s = json.dumps(x)
        pieces.append(s)
        size += len(s)
    text = "".join(pieces)
    return text if not todo and size <= limit else text[:limit] + "…"
