"""Proving that a tool form ``fmt`` rewrote sends exactly what the original sent.

Owns: :class:`Job` (one tool form on its way through ``fmt``'s stages,
:func:`plistspec.fmt.rewrite.rewrites`), :func:`verify` (a laid-out form's new text is kept only
if it gives the same provider JSON for every backend in :data:`BACKENDS`; that it keeps
every token and comment is checked before, :func:`plistspec.fmt.proof.same_tokens`),
:func:`read_back` (the new texts read in one go) and
:func:`left_alone` (the PS530 info of a form left as it was).

Two ways to the same answer: the cheap proof (:func:`plistspec.fmt.proof.same_call`: the
tokens of both texts say the same call) or, where it does not apply, the full one: the
new text is read back and lowered again, and what the emitters read of both IR tools is
compared (:func:`_sent`), down to each backend's JSON when that differs.
"""

from __future__ import annotations

import json
from typing import Any

from plistspec.core.diagnostics import Diagnostic, ReadError

__all__ = ["BACKENDS", "SENT_SLOTS", "Job", "left_alone", "read_back", "verify"]

BACKENDS = ("openai", "openai-responses", "anthropic", "gemini", "bedrock", "ollama")


def left_alone(message: str, start: int, end: int, path: str | None) -> Diagnostic:
    """The PS530 info of a tool form ``fmt`` leaves as it was, and why."""
    return Diagnostic(
        "PS530", "info", f"tool form left unchanged: {message}", start, end, path=path
    )


def _provider_json(tools: list[Any]) -> dict[str, str] | None:
    from plistspec.emit_json import emit

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


def _sent(tool: dict[str, Any]) -> str:
    """What the provider emitters read from an IR tool (key order included): two tools
    with the same text here give the same JSON for every backend."""
    meta = tool.get("metadata") or {}
    return json.dumps(
        [
            tool.get("name"),
            tool.get("description"),
            tool.get("parameters"),
            meta.get("dialect"),
            meta.get("args"),
            meta.get("gptel_parameters"),
        ],
        ensure_ascii=False,
    )


#: the slots the library reads the first of and sends
SENT_SLOTS = (":name", ":description", ":args")


def _same_values(old: Any, new: Any) -> bool:
    """The first ``:name``/``:description``/``:args`` of both forms are equal data (Emacs's
    ``equal``): lowering them gives the same tool, so nothing sent can differ."""
    for key in SENT_SLOTS:
        a, b = old.slot(key), new.slot(key)
        if (a is None) != (b is None):
            return False
        if a is not None and (a.value is None or b.value is None or a.value != b.value):
            return False
    return True


def _relower(
    back: tuple[str, list[Any]] | None, dialect: str, nested: bool, old: Any = None
) -> Any:
    """The IR tool of the form fmt wrote, from ``back`` (the text it is read from and its
    datums; None when it did not read back), or True when it reads back to the same sent
    values as ``old``. ``nested``: the original had tool forms inside it, so the new
    form is searched as a whole file would be."""
    from plistspec.extract import find_tools
    from plistspec.extract.find import call_form
    from plistspec.replay import lower

    if back is None:
        return None
    new_text, datums = back
    if nested or len(datums) != 1:
        forms, _ = find_tools(datums, new_text, constants=False)
        if len(forms) != 1:
            return None
        form = forms[0]
    else:
        form = call_form(datums[0], new_text)
        if form is None:
            return None
        if old is not None and _same_values(old, form):
            return True
    tool, diags = lower(form, dialect, full=False)
    if tool is None or any(d.is_error for d in diags):
        return None
    return tool


class Job:
    """One tool form on its way through ``fmt``'s stages (:func:`plistspec.fmt.rewrite.rewrites`):
    each stage fills its fields, or ends the job with its :attr:`outcome`, ``(new text or
    None, info or None)``."""

    __slots__ = (
        "form",
        "datum",
        "nested",
        "dialect",
        "writer",
        "column",
        "tool",
        "new",
        "old",
        "outcome",
    )

    def __init__(
        self, form: Any, datum: Any, nested: bool, dialect: str, writer: str, column: int
    ) -> None:
        self.form, self.datum, self.nested = form, datum, nested
        self.dialect = dialect  # whose rules lower the form
        self.writer = writer  # the library whose call is written (the form's own)
        self.column = column
        self.tool: Any = None
        self.new = ""
        self.old = ""
        self.outcome: tuple[str | None, Diagnostic | None] | None = None


def read_back(news: list[str]) -> list[tuple[str, list[Any], int, int] | None]:
    """Each new text read back: ``(text, datums, lo, hi)`` with ``text[lo:hi]`` the new
    form (None when it does not read). One read of all of them joined by newlines (reading
    many small texts costs more than one big one); where that does not give exactly one
    datum per text, each is read on its own."""
    from plistspec.elisp.reader import read_all

    if not news:
        return []
    joined = "\n".join(news)
    bounds = []
    pos = 0
    for n in news:
        bounds.append((pos, pos + len(n)))
        pos += len(n) + 1
    try:
        datums = read_all(joined)
    except ReadError:
        datums = None
    if datums is not None and len(datums) == len(news):
        if all(lo <= d.start and d.end <= hi for d, (lo, hi) in zip(datums, bounds, strict=True)):
            return [(joined, [d], lo, hi) for d, (lo, hi) in zip(datums, bounds, strict=True)]
    out: list[tuple[str, list[Any], int, int] | None] = []
    for n in news:
        try:
            out.append((n, read_all(n), 0, len(n)))
        except ReadError:
            out.append(None)
    return out


def verify(
    p: Job,
    back: tuple[str, list[Any], int, int] | None,
    text: str,
    path: str | None,
    proven: bool = False,
) -> tuple[str | None, Diagnostic | None]:
    """``p.new`` if it sends the same JSON, else an info. ``proven``: the new
    text is proven to be the same call (:func:`plistspec.fmt.proof.same_call`), so
    ``back`` is not used."""
    form, new, dialect = p.form, p.new, p.dialect
    start, end = form.start, form.end
    if proven:
        return new, None  # the same call: the same datums, nothing sent can change
    again = _relower(None if back is None else (back[0], back[1]), dialect, p.nested, form)
    if again is True or (again is not None and _sent(again) == _sent(p.tool)):
        return new, None  # the emitters read only these: every backend's JSON is the same
    before = _provider_json([p.tool])
    after_json = _provider_json([again]) if again is not None else None
    if before is None or after_json is None or before != after_json:
        diff = [
            f
            for f in BACKENDS
            if before is None or after_json is None or before[f] != after_json[f]
        ]
        return None, left_alone(
            f"the canonical layout would change the JSON {dialect} sends ({', '.join(diff)})",
            start,
            end,
            path,
        )
    return new, None
