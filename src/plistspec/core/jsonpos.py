"""Where a JSON pointer points in the JSON text: so that diagnostics about provider JSON
carry ``FILE:LINE:COL`` like every other plistspec diagnostic.

Owns: :func:`pointer_spans` (many pointers, one linear scan of the text: the pointers
are a trie walked alongside the scan, so a thousand diagnostics cost one pass, never a
pass each), :func:`pointer_span` (one pointer), :func:`named_pointer` (the pointer a
message names: ``at /tools/3/...``) and :func:`place_named` (diagnostics placed by it).
No recursion, and memory linear in nothing but the text: a byte per open container, a
frame only for the containers a pointer enters, no backtracking state per character of a
string. A pointer that goes further than the text holds gives the span of its deepest
existing prefix; of repeated keys, the last one counts (as JSON readers keep it).
"""

from __future__ import annotations

import json
import re

__all__ = ["pointer_span", "pointer_spans", "named_pointer", "place_named"]

_WS = re.compile(r"[ \t\r\n]*")


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


# possessive repeats (``*+``): the regex engine keeps no backtracking point per character
# of a string (``(?:[^"\\]|\\.)*`` kept one: ~140 bytes a character, 550 MB for a 4 MB
# description), so a scan costs no memory beyond the text and the container stack.
_TOKEN = re.compile(
    r'[ \t\r\n]*+(?:("[^"\\]*+(?:\\.[^"\\]*+)*+")|([{\[])|([}\]])|(,)|(:)|([^,:\[\]{}"\s]++))',
    re.S,
)


def _parts(pointer: str) -> list[str]:
    return [_unescape(p) for p in pointer.split("/")[1:]] if pointer not in ("", "/") else []


def pointer_spans(text: str, pointers: list[str]) -> dict[str, tuple[int, int] | None]:
    """``{pointer: (start, end)}`` for every pointer (RFC 6901) into the JSON ``text``
    (which must be valid JSON), in one scan; None when the text holds no value at all."""
    root: dict = {}
    for ptr in pointers:  # the trie of wanted pointers: {key: child}
        node = root
        for part in _parts(ptr):
            node = node.setdefault(part, {})
    found: dict[int, tuple[int, int]] = {}
    # every open container: 1 an object, 0 an array (one byte a level); and a frame for
    # each container a pointer goes into: [is_object, trie node, index, node of the
    # pending member, start]. Those are always the outermost ones (the child of a
    # container no pointer enters is entered by none), so frames never outnumber the
    # parts of the longest pointer, however deep the text nests.
    kinds = bytearray()
    frames: list[list] = []
    pos, n = 0, len(text)
    expect_key = False
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        pos = m.end()
        g = m.lastindex
        start = m.start(g)
        wanted = len(frames) == len(kinds) and frames
        if g == 4:  # ,
            if kinds and kinds[-1]:
                expect_key = True
            elif wanted:
                frames[-1][2] += 1
            continue
        if g == 5:  # :
            continue
        if g == 1 and expect_key:
            if wanted:
                top = frames[-1]
                try:
                    top[3] = top[1].get(json.loads(m.group(1)))
                except ValueError:
                    top[3] = None
            expect_key = False
            continue
        if g == 3:  # a container closes: it is a value that ends here
            if wanted:
                frame = frames.pop()
                found[id(frame[1])] = (frame[4], pos)
            if kinds:
                kinds.pop()
            continue
        # a value starts: which trie node is it?
        node: dict | None = None
        if not kinds:
            node = root
        elif wanted:
            top = frames[-1]
            node = top[3] if top[0] else top[1].get(str(top[2]))
        if g == 2:
            is_object = m.group(2) == "{"
            if node is not None and len(frames) == len(kinds):
                frames.append([is_object, node, 0, None, start])
            kinds.append(is_object)
            expect_key = is_object
            if expect_key and text.startswith("}", _WS.match(text, pos).end()):
                expect_key = False
        elif node is not None:
            found[id(node)] = (start, pos)
    out: dict[str, tuple[int, int] | None] = {}
    for ptr in pointers:
        node = root
        best = found.get(id(root))
        for part in _parts(ptr):
            node = node[part]
            if id(node) not in found:
                break
            best = found[id(node)]
        out[ptr] = best
    return out


def pointer_span(text: str, pointer: str) -> tuple[int, int] | None:
    """``(start, end)`` offsets of the value at ``pointer`` (RFC 6901) in ``text``."""
    return pointer_spans(text, [pointer])[pointer]


_NAMED = re.compile(r"\bat (/[^\s,:()]*)")


def named_pointer(message: str) -> str | None:
    """The JSON pointer a diagnostic's message names (``... at /tools/3/inputSchema ...``;
    ``at /`` is the whole text), or None."""
    m = _NAMED.search(message)
    if m is None:
        return None
    return m.group(1) if m.group(1) != "/" else ""


def place_named(diags: list, text: str) -> None:
    """Give each diagnostic without a span whose message names a pointer the span of that
    value in the JSON ``text``. One scan for all of them."""
    wanted = [
        (d, p) for d in diags if d.start < 0 for p in [named_pointer(d.message)] if p is not None
    ]
    if not wanted:
        return
    spans = pointer_spans(text, [p for _, p in wanted])
    for d, p in wanted:
        span = spans.get(p)
        if span is not None:
            d.start, d.end = span
