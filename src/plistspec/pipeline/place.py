"""Placing lowering rewrites in their source: JSON pointer → where it came from.

Owns: :func:`place` (Emacs Lisp source) and :func:`place_json` (tool JSON: the IR's
``/parameters/...`` is the input's parameter schema, so a pointer follows it there, up
to the deepest value the input holds: ``$ref`` targets inlined by the lowering exist
only in the output). :func:`place` For tools read from Elisp, each rewrite's pointer
(``/parameters/properties/unit/enum``) is followed through the tool form the same way
``check --target`` pairs JSON nodes with plists (:mod:`plistspec.lint.targets`): a
property is its arg plist (gptel: the first arg of that name, llm: the last), a nested
keyword its key in the plist, a member of ``anyOf``/``enum`` its vector element. The walk
stops at the deepest datum it can follow, so a rewrite always points somewhere in the
form (at worst its head).
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic

__all__ = ["place", "place_json", "json_tries"]


def place(diags: list[Diagnostic], records: list, tools: list[dict[str, Any]], text: str) -> None:
    """Give each diagnostic (made from ``records``, same order) the span of its datum."""
    from plistspec.elisp.recover import read_recovering
    from plistspec.extract import find_tools
    from plistspec.replay.sourcemap import follow

    datums, _ = read_recovering(text)
    forms, _ = find_tools(datums, text)
    from plistspec.core.diagnostics import line_index

    index = line_index(text)
    by_pos = {index.position(f.start): f for f in forms}
    for d, rec in zip(diags, records, strict=True):
        tool = tools[rec.tool] if rec.tool < len(tools) else {}
        src = (tool.get("metadata") or {}).get("source") or {}
        form = by_pos.get((src.get("line"), src.get("column")))
        if form is None:
            continue
        datum = follow(form, rec.pointer, tool)
        d.start, d.end = datum.start, datum.end


def json_tries(pointer: str, obj: str, params: str) -> list[str]:
    """Where in the input JSON the IR tool's ``pointer`` came from: ``/parameters/...``
    below the tool's parameter schema (``params``), anything else below the object
    holding its name (``obj``); then that object. (A value the lowering made, such as an
    inlined ``$ref``, is not in the input: :func:`plistspec.core.jsonpos.
    pointer_spans` gives the deepest part of a pointer that is.)"""
    if pointer == "/parameters" or pointer.startswith("/parameters/"):
        return [params + pointer[len("/parameters") :], obj]
    return [obj + pointer] if pointer else [obj]


def place_json(
    diags: list[Diagnostic], records: list, places: list[tuple[str, str]], text: str
) -> None:
    """Give each diagnostic (made from ``records``, same order) the span in the JSON
    ``text`` of the value its record's IR pointer came from. ``places``: per tool, the
    pointers of the object holding its name and of its parameter schema."""
    from plistspec.core.jsonpos import pointer_spans

    wanted = [
        json_tries(rec.pointer, *places[rec.tool]) if rec.tool < len(places) else []
        for rec in records
    ]
    spans = pointer_spans(text, sorted({p for tries in wanted for p in tries}))
    for d, tries in zip(diags, wanted, strict=True):
        for p in tries:
            span = spans.get(p)
            if span is not None:
                d.start, d.end = span
                break
