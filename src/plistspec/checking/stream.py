"""``check`` of a big file one top-level form at a time: memory of one form, not of all.

Owns: :func:`check_streamed`, the streaming path of :func:`plistspec.checking.checker.check_text`.
The whole-file path reads every datum of the text (:func:`plistspec.checking.checker.read_recovering`),
finds the tools of all of them at once and then lowers and lints each tool form, so
every datum of the file is alive until the end (about 14 times the input for a 10 MB
file). Here the top-level forms are read a small batch at a time
(:func:`plistspec.pipeline.stream.batches`), their tools found and checked
(:func:`plistspec.checking.forms.check_forms`), and only the diagnostics kept, so what is held
is the text, the diagnostics and one batch of forms.

It gives exactly the diagnostics of the whole-file path (same list, order, messages,
fixes, lines and columns), or None to say "use the whole-file path", which it does
whenever they could differ or streaming is not worth it (:func:`plistspec.pipeline.stream.streamable`):

- a syntax error or syntax plistspec refuses anywhere: the recovering reader decides
  what is read and reports it (on a text that reads cleanly it reports nothing, the only
  case streamed, so no reading diagnostic is lost);
- a form defining constants or wrappers or handing spec plists to ``apply``
  (:func:`plistspec.extract.find.needs_whole_file`): tools then depend on other forms;
- a tool whose ``:function`` is a bare symbol (PS338 depends on what the whole file binds);
- an exception while reading or finding tools: the whole-file path reports it (PS332)
  where it happened. An exception inside one tool's checks is a PS332 at that form in
  both paths (:func:`plistspec.checking.forms.check_forms`).

Order: the whole-file path lists every finding diagnostic, then each form's checks, then
deduplicates and sorts stably (:func:`plistspec.checking.forms.finish`); this path keeps the two
lists apart and joins them in the same order, so ties (and duplicates across forms) come
out the same.
"""

from __future__ import annotations

from plistspec.core.diagnostics import Diagnostic

__all__ = ["check_streamed"]


def check_streamed(
    text: str,
    path: str | None,
    target: str | None,
    dialect: str | None,
    tally: dict[str, int] | None = None,
    names: object = None,
) -> list[Diagnostic] | None:
    """:func:`plistspec.checking.checker.check_text`'s diagnostics for ``text`` (arguments already
    validated; ``tally`` as there, set only when this path gives them), or None when the
    whole-file path must give them (see module doc)."""
    from plistspec.pipeline.stream import NotStreamable, streamable

    if not streamable(text):
        return None
    try:
        diags, n = _stream(text, path, target, dialect, names)
    except NotStreamable:
        return None
    except Exception:  # noqa: BLE001 - the whole-file path says where it happened (PS332)
        return None
    if tally is not None:
        tally["tool_forms"] = n
    return diags


def _stream(
    text: str, path: str | None, target: str | None, dialect: str | None, names: object = None
) -> tuple[list[Diagnostic], int]:
    """The diagnostics and the number of tool forms checked."""
    from plistspec.checking.forms import across, check_forms, compare, finish, soften_found
    from plistspec.extract import find_tools
    from plistspec.pipeline.stream import NotStreamable, batches

    found_diags: list[Diagnostic] = []  # every form's finding, as find_tools of the file
    checked: list[Diagnostic] = []  # then each tool form's lowering and lints
    n = 0
    every: list = []  # what PS340/PS341 compare of each tool form
    for batch in batches(text, checked=True):  # check_streamed found it streamable
        forms, found = find_tools(batch, text, alone=True)
        across(forms, batch, text, every)
        del batch
        if any(_names_a_variable(f) for f in forms):
            raise NotStreamable  # PS338 asks what the whole file binds
        n += len(forms)
        found_diags.extend(soften_found(found))
        checked.extend(check_forms(forms, path, target, dialect))
    found_diags.extend(checked)
    found_diags.extend(compare(every, names, path))
    return finish(found_diags, text, path), n


def _names_a_variable(form) -> bool:
    """Whether ``form``'s ``:function`` is a bare symbol Emacs evaluates (``:function
    my-fn``): whether that is a slip depends on what the whole file binds."""
    from plistspec.elisp.datum import Symbol

    s = form.slot(":function")
    return s is not None and s.evaluated and type(s.form) is Symbol
