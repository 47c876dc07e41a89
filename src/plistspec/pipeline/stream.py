"""``to-json`` of a big file a batch of top-level forms at a time: memory of a batch, not of all.

Owns: :func:`batches` (the top-level forms of a big text, a batch at a time, for every
command that streams: ``to-json`` here, ``check`` and ``fmt``) and
:func:`provider_json_bytes`. The whole-file path holds every datum, every IR tool
and the whole JSON text at once (about 20 times the input for a 10 MB file); here the
top-level forms are read in batches of :data:`BATCH_FORMS` forms or :data:`BATCH_CHARS`
characters (:func:`plistspec.elisp.reader.read_some`), each batch's
tools found, lowered and emitted (each stage over the whole batch: warm code and data),
and their JSON appended as UTF-8 bytes before the next batch is read, so what is held is
the text, the output bytes and one batch.

It gives exactly the bytes and diagnostics of the whole-file path, or None to say "use
the whole-file path", which it does whenever the per-form result could differ or the
shortcut does not apply: a syntax error or syntax plistspec refuses anywhere (the
recovering reader decides what is read), a form defining constants or wrappers or
handing spec plists to ``apply`` (tools then depend on other forms:
:func:`plistspec.extract.find.needs_whole_file`), a format whose array is not one entry
per tool (``ir``, ``gemini``, ``vertex``), or output that has no UTF-8 encoding.
"""

from __future__ import annotations

from collections.abc import Iterator

from plistspec.core.diagnostics import Diagnostic, ReadError, locate
from plistspec.elisp.datum import Datum

__all__ = [
    "provider_json_bytes",
    "batches",
    "streamable",
    "NotStreamable",
    "STREAMED_FORMATS",
    "MIN_SIZE",
    "CONTEXT_WORDS",
]

# formats whose JSON is a flat array with one entry per tool, each made from its tool alone
STREAMED_FORMATS = frozenset(
    ("openai", "openai-responses", "anthropic", "bedrock", "ollama", "mcp")
)
# below this many characters the whole-file path costs little memory: not worth a path
MIN_SIZE = 1 << 20


# every head of CONTEXT_HEADS contains one of these (checked by the tests)
CONTEXT_WORDS = ("apply", "defconst", "defvar", "defun", "defsubst", "defmacro")
_NOT_DEF_WORDS = tuple(w for w in CONTEXT_WORDS if "def" not in w)
# forms found at a time (a batch ends at either limit; one form is never cut)
BATCH_FORMS = 32
BATCH_CHARS = 1 << 17
# symbol names the reads of one text share at most (each form adds its own new names)
_SYMS_KEPT = 4096


class NotStreamable(Exception):
    """The text must be handled whole: a syntax error or refused syntax (the recovering
    reader decides what is read), or a form the others depend on (constants, wrappers,
    spec plists handed to ``apply``)."""


def streamable(text: str) -> bool:
    """Worth streaming and not surely in need of the whole file: ``text`` is big and
    has no context head's name anywhere (even in a string; only speed depends on this
    quick look, :func:`batches` decides)."""
    if len(text) < MIN_SIZE:
        return False
    # every context word but "apply" holds "def": one search rules five of them out
    return not any(w in text for w in (CONTEXT_WORDS if "def" in text else _NOT_DEF_WORDS))


def batches(text: str, *, checked: bool = False) -> Iterator[list[Datum]]:
    """The top-level datums of ``text`` in order, a batch of at most :data:`BATCH_FORMS`
    forms or about :data:`BATCH_CHARS` characters at a time (one form is never cut),
    read when asked for. Raises :class:`NotStreamable` (possibly after some batches) when
    the text must be handled whole; the caller then drops what it made and runs its
    whole-file path. Batches, not single forms: each stage of the caller runs over a
    whole batch (warm code and data), and the tools found in forms that need no other
    form are the concatenation of theirs.

    ``checked``: the caller found no context word in ``text`` (:func:`streamable`). Then
    a symbol whose name holds one can only be written with escapes (``def\\const``:
    every other symbol's name is its text), so no form can need the whole file until the
    reader has met such a symbol, and each form is surveyed only from then on."""
    from plistspec.elisp.datum import Symbol
    from plistspec.elisp.reader import ReadCache, check_text, read_some
    from plistspec.extract.find import needs_whole_file

    try:
        check_text(text)  # once, in big chunks: no read looks at its part again
    except ReadError as e:
        raise NotStreamable from e
    cache = ReadCache(clean=True)
    syms = cache.syms
    atoms = cache.atoms  # the escaped symbols of each read are among its values
    survey = not checked
    pos = 0
    while True:
        try:  # a batch of forms per call (a read error anywhere in it: NotStreamable)
            datums, pos = read_some(text, pos, BATCH_FORMS, BATCH_CHARS, cache)
        except ReadError as e:
            raise NotStreamable from e
        if not datums:
            return
        if atoms:  # rare (numbers, escaped symbols): looked at once, then forgotten
            if not survey:
                survey = any(
                    c is Symbol and any(w in v for w in CONTEXT_WORDS)  # type: ignore[operator]
                    for c, v in atoms.values()
                )
            atoms.clear()
        if len(syms) > _SYMS_KEPT:  # the names every form repeats are soon learnt again
            syms.clear()
        if survey and any(needs_whole_file([d]) for d in datums):
            raise NotStreamable
        yield datums
        del datums  # the caller holds the batch as long as it needs it


def provider_json_bytes(
    text: str, fmt: str, path: str | None = None, dialect: str | None = None
) -> tuple[list[bytes] | None, list[Diagnostic]] | None:
    """What ``to-json -t fmt`` writes for ``text`` (UTF-8 bytes in chunks, never joined:
    one growing buffer can be copied whole as it grows; None when an error
    prevents it) and its diagnostics, exactly as the whole-file path
    (:func:`plistspec.api.to_json` then :func:`plistspec.core.jsonout.dumps`) gives them; or
    None when this path does not apply (see module doc)."""
    if fmt not in STREAMED_FORMATS or not streamable(text):
        return None
    from plistspec.core.gcpause import paused

    with paused():
        try:
            return _stream(text, fmt, path, dialect)
        except NotStreamable:
            return None


def _stream(
    text: str, fmt: str, path: str | None, dialect: str | None
) -> tuple[list[bytes] | None, list[Diagnostic]] | None:
    from plistspec.core.jsonout import dumps_nested
    from plistspec.emit_json import emit
    from plistspec.extract import find_tools
    from plistspec.replay import lower

    out = [b"["]
    # as the whole-file path orders them: every form's finding first, then the lowering
    found_diags: list[Diagnostic] = []
    lower_diags: list[Diagnostic] = []
    emitted: list[Diagnostic] = []  # the emitters': they count only without errors above
    erred = False  # an error while reading a tool: nothing is emitted any more
    void = False  # an emitter refused a tool: nothing is written, its diagnostics are
    first = True
    for batch in batches(text, checked=True):  # provider_json_bytes checked it
        forms, found = find_tools(batch, text, alone=True)
        del batch
        if found:
            found_diags.extend(found)
            erred = erred or any(d.is_error for d in found)
        tools = []
        for form in forms:  # each stage over the whole batch: warmer still
            tool, more = lower(form, dialect, path, full=False)
            if more:
                lower_diags.extend(more)
                erred = erred or any(d.is_error for d in more)
            if tool is not None:
                tools.append(tool)
        del forms
        if erred:
            continue
        for tool in tools:
            entries, more = emit([tool], fmt, owned=True)  # the tool is dropped after
            if more:
                emitted.extend(more)
                void = void or any(d.is_error for d in more)
            if entries is None:
                void = True
            if void:
                continue
            for entry in entries:
                chunk = dumps_nested(entry, "  ")
                try:
                    data = chunk.encode("utf-8", "surrogateescape")
                except UnicodeEncodeError:
                    return None  # the whole-file path says so, with the output's name
                out.append(b"\n  " if first else b",\n  ")
                out.append(data)
                first = False
        del tools
    located = locate(found_diags + lower_diags, text, path)
    if erred or any(d.is_error for d in located):
        return None, located
    located += emitted
    if void:
        return None, located
    out.append(b"]\n" if first else b"\n]\n")
    return out, located
