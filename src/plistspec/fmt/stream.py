"""``fmt`` of a big file a batch of top-level forms at a time: memory of a batch, not of all.

Owns: :func:`format_stream`. The whole-file path (:func:`plistspec.fmt.rewrite.format_text`)
holds every datum of the file and builds the whole new text as one string next to the
old one (for a 10 MB file with one character beyond U+FFFF, two 40 MB strings). Here the
top-level forms are read a batch at a time (:func:`plistspec.pipeline.stream.batches`), what
fmt changes in them is decided by the same function as on the whole-file path
(:func:`plistspec.fmt.rewrite.rewrites`), and the new text is handed out in pieces (the text
between rewritten forms and their new texts) to a ``sink`` that encodes and keeps them
as it likes, so what is held is the old text, the sink's output and one batch.

It gives exactly the pieces (their concatenation is :func:`format_text`'s text) and the
diagnostics of the whole-file path, or None to say "use the whole-file path" (the sink
may then have been given pieces already: the caller drops them). That is whenever
:func:`plistspec.pipeline.stream.batches` refuses: a syntax error or syntax plistspec refuses
anywhere (the recovering reader decides what fmt says then), or a form the others
depend on (wrappers, spec plists handed to ``apply``), or when the text is small.
"""

from __future__ import annotations

from collections.abc import Callable

from plistspec.core.diagnostics import Diagnostic

__all__ = ["format_stream"]


def format_stream(
    text: str,
    sink: Callable[[str], None],
    path: str | None = None,
    dialect: str | None = None,
    *,
    force: bool = False,
) -> tuple[bool, list[Diagnostic]] | None:
    """Format ``text`` as :func:`plistspec.fmt.rewrite.format_text` does, giving the new text to
    ``sink`` in consecutive pieces. Returns ``(changed, diagnostics)``, or None when this
    path does not apply (module doc). ``force``: stream a text of any size (tests)."""
    from plistspec.pipeline.stream import NotStreamable, streamable

    if not force and not streamable(text):
        return None
    from plistspec.core.gcpause import paused

    with paused():
        try:
            # streamable() found no context word: batches surveys only what it must
            return _stream(text, sink, path, dialect, checked=not force)
        except NotStreamable:
            return None


def _stream(
    text: str,
    sink: Callable[[str], None],
    path: str | None,
    dialect: str | None,
    checked: bool = False,
) -> tuple[bool, list[Diagnostic]]:
    from plistspec.fmt.rewrite import rewrites
    from plistspec.pipeline.stream import batches

    unread: list[Diagnostic] = []
    infos: list[Diagnostic] = []
    pos = 0  # the text before this offset was given to the sink
    changed = False
    last_end = -1  # where the last tool form ends (the next one may share its line)
    for batch in batches(text, checked=checked):
        edits, more_unread, more_infos, last_end = rewrites(
            batch, text, path, dialect, alone=True, prev_end=last_end
        )
        del batch
        unread.extend(more_unread)
        infos.extend(more_infos)
        for start, end, new in edits:
            sink(text[pos:start])
            sink(new)
            pos = end
            changed = True
    sink(text[pos:])
    return changed, unread + infos
