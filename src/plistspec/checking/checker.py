"""``check``: every diagnostic for one Emacs Lisp text, located for an editor.

(Named ``checker``, not ``check``: a submodule ``plistspec.check`` would replace the
public function ``plistspec.check`` on the package as soon as it was imported.)

Owns: the checking pipeline read → extract → lower → lint, and how its diagnostics are
merged: syntax errors (with recovery, so one bad form does not hide the others), static
reading (PS1xx), what gptel/llm would refuse (PS2xx, from :mod:`plistspec.replay`), spec
lints (PS3xx) and, with ``target``, provider lints (PS4xx). A lint finding at exactly the
span of a lower() error is not repeated; its suggested fix is given to that error instead.

Decisions: PS101 ("cannot be read statically") is reported as *info* here: the file is
not wrong, plistspec just cannot see into it. Nothing in the text is ever evaluated, and
an exception inside one form's checks becomes a PS332 diagnostic at that form.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic, locate
from plistspec.core.formats import TARGETS
from plistspec.elisp.recover import read_recovering, skip_form  # noqa: F401 (re-exported)

__all__ = [
    "check_text",
    "check_form",
    "check_forms",
    "soften_found",
    "finish",
    "read_recovering",
    "skip_form",
    "diagnostics_json",
    "TARGETS",
]


_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def check_text(
    text: str,
    path: str | None = None,
    target: str | None = None,
    dialect: str | None = None,
) -> list[Diagnostic]:
    """Every diagnostic for Emacs Lisp ``text`` (sorted by position, lines/columns filled).

    ``path`` names the text in the diagnostics; ``target`` (one of :data:`TARGETS`) adds
    what that provider would reject in the JSON gptel/llm send it; ``dialect`` (``gptel``
    or ``llm``) overrides each form's own library. Never raises on any input text.
    """
    if target is not None and target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; expected one of {', '.join(TARGETS)}")
    if dialect is not None and dialect not in ("gptel", "llm"):
        raise ValueError(f"unknown dialect {dialect!r}; expected gptel or llm")
    from plistspec.core.gcpause import paused

    with paused():
        from plistspec.checking.stream import check_streamed

        streamed = check_streamed(text, path, target, dialect)
        if streamed is not None:
            return streamed
        return _check(text, path, target, dialect)


def _check(
    text: str, path: str | None, target: str | None, dialect: str | None
) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    try:
        datums, read_diags = read_recovering(text)
    except Exception as e:  # noqa: BLE001 - a reader bug must not hide the report
        return locate([_internal(e, 0, min(1, len(text)), "reading")], text, path)
    diags.extend(read_diags)
    try:
        from plistspec.extract import find_tools

        forms, found = find_tools(datums, text)
    except Exception as e:  # noqa: BLE001
        diags.append(_internal(e, 0, min(1, len(text)), "finding tool forms"))
        return finish(diags, text, path)
    diags.extend(soften_found(found))
    diags.extend(check_forms(forms, path, target, dialect))
    return finish(diags, text, path)


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
            lowered.append((None, [_internal(e, form.start, form.end, "lowering")]))
    linted: list[list[Diagnostic]] = []
    for form, (tool, _) in zip(forms, lowered, strict=True):
        try:
            linted.append(lint(form, tool, target, dialect=dialect))
        except Exception as e:  # noqa: BLE001
            linted.append([_internal(e, form.start, form.end, "linting")])
    out: list[Diagnostic] = []
    for (_, diags), mine in zip(lowered, linted, strict=True):
        out.extend(_merge(diags, mine))
    return out


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


def _internal(e: Exception, start: int, end: int, stage: str) -> Diagnostic:
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


def diagnostics_json(diags: list[Diagnostic], text: str | None) -> list[dict]:
    """The JSON objects of ``check --format json``: :meth:`Diagnostic.to_json` plus, for a
    fix, its ``line``/``column``/``end_line``/``end_column`` (1-based, characters, end
    exclusive like the diagnostic's own) computed from ``text``, so an editor can apply
    it without converting offsets."""
    from plistspec.core.diagnostics import LineIndex

    index = None
    out = []
    for d in diags:
        obj = d.to_json()
        fix = obj.get("fix")
        if fix is not None and text is not None and 0 <= d.fix.start <= d.fix.end <= len(text):
            if index is None:
                index = LineIndex(text)
            fix["line"], fix["column"] = index.position(d.fix.start)
            fix["end_line"], fix["end_column"] = index.position(d.fix.end)
        out.append(obj)
    return out
