"""check's stages for tool forms: lower, lint, and how their diagnostics are merged.

Owns: :func:`check_forms` (lower all forms of a batch, then lint them, then merge: the
same stage's code and data stay warm), :func:`soften_found` (PS101 as info),
:func:`finish` (deduplicate, sort, locate) and :func:`internal` (an exception in a stage
becomes a PS332 at its form). The whole-file path (:mod:`plistspec.checking.checker`)
and the streaming one (:mod:`plistspec.checking.stream`) both run these, so their
diagnostics agree.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic, locate

__all__ = ["across", "compare", "check_form", "check_forms", "soften_found", "finish", "internal"]

_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def soften_found(found: list[Diagnostic]) -> list[Diagnostic]:
    """The finding stage's diagnostics as ``check`` reports them: PS101 (cannot be read
    statically) as *info* (changed in place; returned for convenience)."""
    for d in found:
        if d.code == "PS101" and d.severity == "warning":
            d.severity = "info"
    return found


def check_form(form, path: str | None, target: str | None, dialect: str | None) -> list[Diagnostic]:
    """lower() and lint() of one tool form, merged (:func:`_merge`); an exception in
    either becomes a PS332 diagnostic at the form."""
    return check_forms([form], path, target, dialect)


def check_forms(
    forms: list[Any], path: str | None, target: str | None, dialect: str | None
) -> list[Diagnostic]:
    """:func:`check_form` of each of ``forms``, in order. Each stage runs over all of them
    before the next (lower, then lint, then merge): the same stage's code and data stay
    warm."""
    from plistspec.lint import lint
    from plistspec.replay import lower

    lowered: list[tuple[Any, list[Diagnostic]]] = []
    for form in forms:
        try:
            tool, diags = lower(form, dialect, path)
            lowered.append((tool, list(diags)))
        except Exception as e:  # noqa: BLE001
            lowered.append((None, [internal(e, form.start, form.end, "lowering")]))
    linted: list[list[Diagnostic]] = []
    for form, (tool, _) in zip(forms, lowered, strict=True):
        try:
            linted.append(lint(form, tool, target, dialect=dialect))
        except Exception as e:  # noqa: BLE001
            linted.append([internal(e, form.start, form.end, "linting")])
    out: list[Diagnostic] = []
    for (_, diags), mine in zip(lowered, linted, strict=True):
        out.extend(_merge(diags, mine))
    return out


def across(
    forms: list[Any], datums: list[Any], text: str, entries: list[Any] | None = None
) -> list[Any]:
    """The entries (:class:`plistspec.lint.across_forms.Entry`) of ``forms``, found in the
    top-level ``datums`` of ``text``, added to ``entries`` (a streamed file's earlier batches'); an
    exception becomes a PS332 diagnostic at the first form, in the list instead."""
    from plistspec.lint.across_forms import entries as make

    out = [] if entries is None else entries
    try:
        out.extend(make(forms, datums, text))
    except Exception as e:  # noqa: BLE001
        where = forms[0] if forms else datums[0] if datums else None
        at = (where.start, where.end) if where is not None else (0, min(1, len(text)))
        out.append(internal(e, *at, "comparing the tool forms with"))
    return out


def compare(entries: list[Any], names: Any = None, path: str | None = None) -> list[Diagnostic]:
    """PS340 and PS341 across one file's tool forms (:func:`across`'s entries) and, with
    ``names`` (a :class:`plistspec.lint.across_forms.ToolNames`), the names of the files
    checked before it (``path``: this file's name)."""
    from plistspec.lint.across_forms import across_entries

    diags = [e for e in entries if type(e) is Diagnostic]
    found = [e for e in entries if type(e) is not Diagnostic]
    if not found:
        if names is not None:
            names.pending = {}
        return diags
    try:
        return diags + across_entries(found, names, path)
    except Exception as e:  # noqa: BLE001
        return diags + [internal(e, found[0].start, found[0].end, "comparing the tool forms with")]


# Lint codes that can restate a failure of the library itself (lower's PS2xx).
_ECHO = frozenset(
    (
        "PS308",
        "PS310",
        "PS314",
        "PS315",
        "PS316",
        "PS317",
        "PS321",
        "PS329",
        "PS330",
        "PS334",
        "PS335",
    )
)


def _merge(lowered: list[Diagnostic], mine: list[Diagnostic]) -> list[Diagnostic]:
    """lower()'s diagnostics plus the lints that do not repeat one of them.

    A lint repeats a lower() error when both have the same span, or when it is one of
    the :data:`_ECHO` codes and one span contains the other. Same span, or the lint
    inside the error: the error stays (and takes the lint's fix when it has none). The
    lint around the error (``:enum [a b]`` around lower's ``a``): the lint stays, as an
    error naming the library's failure, because it points at the datum to change
    (the anchoring rule of :mod:`plistspec.lint`), and the error goes.
    """
    errors = [d for d in lowered if d.severity == "error" and d.start >= 0]
    dropped: set[int] = set()
    kept: list[Diagnostic] = []
    for d in mine:
        same = None
        outer = False
        for e in errors:
            if (e.start, e.end) == (d.start, d.end) and d.severity != "info":
                same = e
                break
            if d.code in _ECHO:
                if e.start <= d.start and d.end <= e.end:
                    same = e
                    break
                if d.start <= e.start and e.end <= d.end:
                    same, outer = e, True
                    break
        if same is None:
            kept.append(d)
        elif outer:
            if id(same) not in dropped:
                dropped.add(id(same))
                d.severity = "error"
                d.message += _library_failure(same.message)
                if d.fix is None:
                    d.fix = same.fix
            kept.append(d)
        elif same.fix is None and d.fix is not None:
            same.fix = d.fix
    return [d for d in lowered if id(d) not in dropped] + kept


def _library_failure(message: str) -> str:
    """`` (gptel signals (wrong-type-argument ...))`` from a lower() error message."""
    lib = message.split(" ", 1)[0]
    lisp = ""
    if message.endswith(")"):
        depth = 0
        for i in range(len(message) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(message[i], 0)
            if depth == 0:
                lisp = message[i + 1 : -1]
                break
    if lib not in ("gptel", "llm") or not lisp:
        return f" ({message})"
    return f" ({lib} signals {lisp})"


def internal(e: Exception, start: int, end: int, stage: str) -> Diagnostic:
    return Diagnostic(
        "PS332",
        "error",
        f"internal error while {stage} this form ({type(e).__name__}: {e}); please report it",
        start,
        end,
    )


def finish(diags: list[Diagnostic], text: str, path: str | None) -> list[Diagnostic]:
    """``diags`` in the order ``check`` reports them: the first of each (code, span,
    message) kept, sorted by position, then severity, then code (stable: ties keep the
    order they came in), lines and columns filled."""
    seen: set[tuple] = set()
    out: list[Diagnostic] = []
    for d in diags:
        key = (d.code, d.start, d.end, d.message)
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
    out.sort(
        key=lambda d: (d.start if d.start >= 0 else -1, _SEVERITY_ORDER.get(d.severity, 3), d.code)
    )
    for d in out:
        d.path = None if d.path is None else d.path
    return locate(out, text, path)
