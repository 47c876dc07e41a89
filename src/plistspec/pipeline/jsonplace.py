"""Where diagnostics about tool JSON are in its text, so they print as ``FILE:LINE:COL``.

Owns: :func:`place_diagnostics` (a diagnostic naming a JSON pointer, one about a tool,
one about a property of a tool's parameters, a lowering rewrite of a tool: each gets the
span of what it is about), with :func:`tool_places` (per tool label, where the tool's
object is: :func:`plistspec.fromjson.detect.from_json` gives the pointers) and
:func:`renamed` (the labels a lowering gave the same tools).
"""

from __future__ import annotations

from typing import Any

__all__ = ["place_diagnostics", "tool_places", "renamed"]


def place_diagnostics(
    diags: list, text: str, tools: dict[str, tuple[str, Any]] | None = None
) -> None:
    """Give each diagnostic that names a JSON pointer (``at /tools/3/...``) the span of
    that value in ``text``, so it prints as ``FILE:LINE:COL``; one that names none but
    is about one tool (``tool 'x': ...``, ``tools``: each tool's label, the pointer of its
    object and that object) the span of that tool's object, or of the property it names;
    a lowering rewrite (``--target``) the span of the schema node it rewrote, or of the
    deepest one the input holds. One scan for all of them."""
    import re

    from plistspec.core.jsonpos import named_pointer, pointer_spans

    lowered = re.compile(r"[\w-]+: tool (.*?), (/\S*?|): ")
    wanted = []
    many: list[tuple[Any, list[str]]] = []  # pointers to try, deepest first
    for d in diags:
        if d.start >= 0:
            continue
        named = named_pointer(d.message)
        if named is not None:
            wanted.append((d, named))
        elif tools and d.message.startswith("tool "):
            body = d.message[5:]
            i = body.find(": ")  # the label may hold ": " itself: try each
            while i >= 0 and body[:i] not in tools:
                i = body.find(": ", i + 1)
            if i >= 0:
                wanted.append((d, _property_pointer(tools[body[:i]], body[i + 2 :])))
        elif tools:  # a rewrite of --target: "gemini: tool 'x', /parameters/...: ..."
            m = lowered.match(d.message)
            place = tools.get(m.group(1)) if m is not None else None
            if m is not None and place is not None:
                many.append((d, _lowered_tries(place, m.group(2))))
    if not wanted and not many:
        return
    spans = pointer_spans(text, [p for _, p in wanted] + [p for _, ps in many for p in ps])
    for d, p in wanted:
        span = spans.get(p)
        if span is not None:
            d.start, d.end = span
    for d, ps in many:
        span = next((spans[p] for p in ps if spans.get(p) is not None), None)
        if span is not None:
            d.start, d.end = span


def _property_pointer(place: tuple[str, Any], rest: str) -> str:
    """The pointer of what a tool's diagnostic is about: the tool's object (``place``:
    its pointer and value), or, for ``property 'x': ...``, that property of the tool's
    parameter schema (the shallowest ``properties`` object holding it)."""
    import ast
    import re

    from plistspec.fromjson.common import jptr

    ptr, tool = place
    m = re.match(r"""property ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""", rest)
    if m is None:
        return ptr
    try:
        name = ast.literal_eval(m.group(1))
    except (ValueError, SyntaxError):
        return ptr
    todo: list[tuple[str, Any]] = [(ptr, tool)]
    for at, v in todo:  # breadth first: the root schema's properties come first
        if isinstance(v, dict):
            props = v.get("properties")
            if isinstance(props, dict) and name in props:
                return jptr(at, "properties", name)
            todo.extend((jptr(at, k), x) for k, x in v.items() if isinstance(x, (dict, list)))
        elif isinstance(v, list):
            todo.extend((jptr(at, i), x) for i, x in enumerate(v) if isinstance(x, (dict, list)))
    return ptr


def _lowered_tries(place: tuple[str, Any], pointer: str) -> list[str]:
    """Where a lowering rewrite of the tool at ``place`` (its pointer and value) may be
    in the input, deepest first (:func:`plistspec.pipeline.place.json_tries`)."""
    from plistspec.fromjson.rawjson import tool_places
    from plistspec.pipeline.place import json_tries

    ptr, tool = place
    rel = tool_places(tool)
    if rel is None:
        return [ptr]
    return json_tries(pointer, ptr + rel[0], ptr + rel[1])


def _by_label(tools: list[Any], places: list[Any]) -> dict[str, Any]:
    """Each tool's label, as diagnostics name it, with its place (None: unknown); a label
    two tools share names neither."""
    from collections import Counter

    from plistspec.emit_elisp.forms import label

    labels = [label(t) for t in tools]
    counts = Counter(labels)
    return {k: p for k, p in zip(labels, places, strict=True) if counts[k] == 1 and p is not None}


def tool_places(tools: list[Any], pointers: list[str], value: Any) -> dict[str, tuple[str, Any]]:
    """Per tool label: the pointer of the tool's object in the input ``value`` (what
    :func:`plistspec.fromjson.detect.from_json` gave, in the order of ``tools``) and that
    object."""
    from plistspec.core.jsonutil import resolve_pointer

    return _by_label(tools, [(p, resolve_pointer(value, "#" + p)[1]) for p in pointers])


def renamed(places: dict[str, tuple[str, Any]], before: list[Any], after: list[Any]) -> None:
    """Add to ``places`` the new labels of tools a lowering renamed (``before`` and
    ``after``: the same tools in the same order), each at its tool's place."""
    if places and len(after) == len(before):
        from plistspec.emit_elisp.forms import label

        olds = [places.get(label(t)) for t in before]
        for k, p in _by_label(after, olds).items():
            places.setdefault(k, p)
