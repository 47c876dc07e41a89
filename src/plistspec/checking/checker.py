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

from plistspec.checking.forms import (  # re-exported: check's per-form stages
    across,
    check_form,
    check_forms,
    compare,
    finish,
    internal,
    soften_found,
)
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


def check_text(
    text: str,
    path: str | None = None,
    target: str | None = None,
    dialect: str | None = None,
    *,
    tally: dict[str, int] | None = None,
    names: object = None,
) -> list[Diagnostic]:
    """Every diagnostic for Emacs Lisp ``text`` (sorted by position, lines/columns filled).

    ``path`` names the text in the diagnostics; ``target`` (one of :data:`TARGETS`) adds
    what that provider would reject in the JSON gptel/llm send it; ``dialect`` (``gptel``
    or ``llm``) overrides each form's own library; ``tally`` (a dict), when given, gets
    ``"tool_forms"``: how many tool forms were found and checked (``check``'s summary
    line); ``names`` (a :class:`plistspec.lint.across_forms.ToolNames`), when given,
    gets PS340 also for the names of files checked before and keeps this file's names as
    its ``pending``. Never raises on any input text.
    """
    if target is not None and target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; expected one of {', '.join(TARGETS)}")
    if dialect is not None and dialect not in ("gptel", "llm"):
        raise ValueError(f"unknown dialect {dialect!r}; expected gptel or llm")
    from plistspec.core.gcpause import paused

    with paused():
        from plistspec.checking.stream import check_streamed

        if tally is not None:
            tally["tool_forms"] = 0
        streamed = check_streamed(text, path, target, dialect, tally, names)
        if streamed is not None:
            return streamed
        return _check(text, path, target, dialect, tally, names)


def _check(
    text: str,
    path: str | None,
    target: str | None,
    dialect: str | None,
    tally: dict[str, int] | None,
    names: object = None,
) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    try:
        datums, read_diags = read_recovering(text)
    except Exception as e:  # noqa: BLE001 - a reader bug must not hide the report
        return locate([internal(e, 0, min(1, len(text)), "reading")], text, path)
    diags.extend(read_diags)
    try:
        from plistspec.extract import find_tools

        forms, found = find_tools(datums, text)
    except Exception as e:  # noqa: BLE001
        diags.append(internal(e, 0, min(1, len(text)), "finding tool forms"))
        return finish(diags, text, path)
    if tally is not None:
        tally["tool_forms"] = len(forms)
    diags.extend(soften_found(found))
    diags.extend(check_forms(forms, path, target, dialect))
    diags.extend(compare(across(forms, datums, text), names, path))
    return finish(diags, text, path)


def diagnostics_json(diags: list[Diagnostic], text: str | None) -> list[dict]:
    """The JSON objects of ``check --output-format json``: :meth:`Diagnostic.to_json` plus, for a
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
