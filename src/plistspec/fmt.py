"""``plistspec fmt``: rewrite tool forms in the canonical layout, nothing else.

Owns: :func:`format_text`. Each ``(gptel-make-tool ...)`` / ``(llm-make-tool ...)``
call found by :func:`plistspec.extract.find_tools` is lowered to the IR and written
back with :func:`plistspec.emit_elisp.tool_form`; only the form's span is replaced,
every other byte of the file (comments, other code, blank lines) stays as it was.
``:function`` and the other non-schema slots are kept verbatim (re-indented).

A form is left exactly as it was, with an info diagnostic saying why, when:

* its data cannot be read statically, or the library would refuse it;
* it is not a plain call (``apply`` of a spec, ``llm-tool-collection-deftool``...);
* it repeats ``:name``/``:description``/``:args`` or ends with a dangling keyword;
* it holds a comment outside the slots kept verbatim (the layout could not keep it);
* the canonical form would not give the same provider JSON for every backend
  (checked by lowering and emitting the new text: fmt never changes what is sent).

The result is idempotent: formatting formatted text changes nothing.
"""

from __future__ import annotations

import json
from typing import Any

from plistspec.diagnostics import Diagnostic, ReadError

__all__ = ["format_text", "BACKENDS"]

BACKENDS = ("openai", "openai-responses", "anthropic", "gemini", "bedrock", "ollama")
_HEADS = {"gptel-make-tool": "gptel", "llm-make-tool": "llm"}


def _info(message: str, start: int, end: int, path: str | None) -> Diagnostic:
    return Diagnostic(
        "PS530", "info", f"tool form left unchanged: {message}", start, end, path=path
    )


def _column(text: str, pos: int) -> int:
    line_start = text.rfind("\n", 0, pos) + 1
    col = 0
    for c in text[line_start:pos]:
        col = (col // 8 + 1) * 8 if c == "\t" else col + 1
    return col


def _lists_by_span(datums: list[Any], spans: set[tuple[int, int]]) -> dict[tuple[int, int], Any]:
    from plistspec.elisp.datum import List, Vector

    found: dict[tuple[int, int], Any] = {}
    todo = list(datums)
    while todo:
        d = todo.pop()
        if isinstance(d, List):
            if (d.start, d.end) in spans:
                found[(d.start, d.end)] = d
            todo.extend(d.items)
            if d.tail is not None:
                todo.append(d.tail)
        elif isinstance(d, Vector):
            todo.extend(d.items)
    return found


def _rest_of_line_blank(text: str, pos: int) -> bool:
    """True when only blanks or a comment follow ``pos`` on its line."""
    eol = text.find("\n", pos)
    rest = text[pos : eol if eol >= 0 else len(text)].strip()
    return not rest or rest.startswith(";")


def _comment_words(text: str, datums: Any, lo: int, hi: int) -> list[str]:
    """The words of the comments in ``text[lo:hi]``, sorted (what fmt must keep)."""
    from plistspec.fmt_comments import comments_in

    words: list[str] = []
    for p in comments_in(text, datums, lo, hi):
        eol = text.find("\n", p)
        words.extend(text[p : eol if eol >= 0 else len(text)].split())
    return sorted(words)


def _comment_words_text(new: str) -> list[str] | None:
    from plistspec.elisp.reader import read_all

    try:
        datums = read_all(new)
    except ReadError:
        return None
    return _comment_words(new, datums, 0, len(new))


def _provider_json(tools: list[Any]) -> dict[str, str] | None:
    from plistspec.providers import emit

    out = {}
    for fmt in BACKENDS:
        try:
            value, diags = emit(tools, fmt)
        except Exception:  # noqa: BLE001 - an emitter failure means: do not touch the form
            return None
        if any(d.is_error for d in diags) or value is None:
            out[fmt] = "error"
        else:
            out[fmt] = json.dumps(value, ensure_ascii=False)
    return out


def _relower(new_text: str, dialect: str) -> Any:
    from plistspec.elisp.reader import read_all
    from plistspec.extract import find_tools
    from plistspec.lower import lower

    try:
        datums = read_all(new_text)
    except ReadError:
        return None
    forms, _ = find_tools(datums, new_text)
    if len(forms) != 1:
        return None
    tool, diags = lower(forms[0], dialect)
    if tool is None or any(d.is_error for d in diags):
        return None
    return tool


def _format_form(
    form: Any, datum: Any, text: str, dialect: str | None, path: str | None
) -> tuple[str | None, Diagnostic | None]:
    from plistspec.elisp.datum import Symbol
    from plistspec.emit_elisp import tool_form
    from plistspec.lower import lower

    start, end = form.start, form.end
    items = datum.items if datum is not None else []
    head = items[0] if items else None
    if (
        datum is None
        or datum.tail is not None
        or not isinstance(head, Symbol)
        or head.name not in _HEADS
    ):
        return None, _info(
            "only (gptel-make-tool ...) and (llm-make-tool ...) calls are laid out",
            start,
            end,
            path,
        )
    writer_dialect = _HEADS[head.name]
    dialect = dialect or writer_dialect
    if form.dangling is not None:
        return None, _info(
            f"it ends with the keyword {form.dangling.name} without a value", start, end, path
        )
    seen: set[str] = set()
    for s in form.slots:
        k = s.key.name
        if k in (":name", ":description", ":args") and k in seen:
            return None, _info(
                f"it repeats {k} (the library reads the first one)", s.key.start, s.key.end, path
            )
        seen.add(k)
    from plistspec.fmt_comments import plan_comments

    plan = plan_comments(form, datum, text)
    if plan.unplaced:
        c = plan.unplaced[0]
        return None, _info(
            "the layout has no place for this comment (it sits inside a value written "
            "from its evaluated result, or between a key and its value)",
            c,
            c + 1,
            path,
        )
    tool, diags = lower(form, dialect, path)
    if tool is None or any(d.is_error for d in diags):
        return None, _info(
            f"{dialect} would refuse this spec (run `plistspec check`)", start, end, path
        )
    new, wdiags = tool_form(
        tool,
        writer_dialect,
        _column(text, start),
        comments=plan,
        tail_safe=_rest_of_line_blank(text, end),
    )
    if any(d.severity != "info" for d in wdiags):
        return None, _info(
            "the canonical layout cannot carry all of it: " + wdiags[0].message, start, end, path
        )
    if new == text[start:end]:
        return new, None
    if plan and _comment_words(text, datum, start, end) != _comment_words_text(new):
        return None, _info("its comments could not all be kept by the layout", start, end, path)
    again = _relower(new, dialect)
    before = _provider_json([tool])
    after = _provider_json([again]) if again is not None else None
    if before is None or after is None or before != after:
        diff = [f for f in BACKENDS if before is None or after is None or before[f] != after[f]]
        return None, _info(
            f"the canonical layout would change the JSON {dialect} sends ({', '.join(diff)})",
            start,
            end,
            path,
        )
    return new, None


def format_text(
    text: str, path: str | None = None, dialect: str | None = None
) -> tuple[str, list[Diagnostic]]:
    """``text`` with every tool form in the canonical layout (see module doc).

    ``dialect`` forces the library whose rules are used (default: each form's own).
    Returns the new text (equal to ``text`` when nothing changes) and diagnostics
    (a syntax error: the text unchanged and one error).
    """
    from plistspec.elisp.reader import read_all
    from plistspec.extract import find_tools

    try:
        datums = read_all(text)
    except ReadError as e:
        return text, [e.diagnostic(path)]
    forms, ediags = find_tools(datums, text)
    diags: list[Diagnostic] = [
        Diagnostic(
            "PS530", "info", f"tool form left unchanged: {d.message}", d.start, d.end, path=path
        )
        for d in ediags
    ]
    forms = sorted(forms, key=lambda f: (f.start, -f.end))
    chosen = []
    last_end = -1
    for f in forms:
        if f.start >= last_end:
            chosen.append(f)
            last_end = f.end
    by_span = _lists_by_span(datums, {(f.start, f.end) for f in chosen})
    pieces: list[str] = []
    pos = 0
    for f in chosen:
        new, diag = _format_form(f, by_span.get((f.start, f.end)), text, dialect, path)
        if diag is not None:
            diags.append(diag)
        if new is None:
            continue
        pieces.append(text[pos : f.start])
        pieces.append(new)
        pos = f.end
    pieces.append(text[pos:])
    return "".join(pieces), diags
