"""The public library API: small, typed, stable; nothing here prints or exits.

Owns: the functions editor tooling and scripts call. Each one is a composition of the
pipeline's pure stages::

    text --read_elisp--> datums --find_tools--> tool forms --lower--> IR --emit--> JSON
    JSON --from_provider--> IR --to_elisp--> text        Python --from_python--> IR

Every function returns its diagnostics as values (with 1-based line/column filled in
when they come from text); heavy modules are imported only when a function needs them.

Elisp given as ``str`` is taken as Emacs buffer text: what the buffer holds after
visiting the file (line feeds only, no byte-order mark). :func:`read_tools`,
:func:`to_json` and :func:`check` also take the file's ``bytes``, decoded exactly as the
command line decodes a file (:func:`plistspec.elisp.source.buffer_text`: UTF-8 with
invalid bytes kept as raw bytes and a PS001 warning at the first, BOM dropped, CRLF/CR
line endings decoded); lines, columns and offsets of the diagnostics are then those of
that decoded text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from plistspec.core.diagnostics import Diagnostic, locate

if TYPE_CHECKING:  # a TypedDict: building it costs start-up time every command pays
    from plistspec.core.ir import Tool

__all__ = [
    "ToolsResult",
    "JsonResult",
    "TextResult",
    "read_elisp",
    "read_tools",
    "to_provider",
    "to_json",
    "from_provider",
    "to_elisp",
    "format_elisp",
    "check",
    "from_python",
]


class ToolsResult(NamedTuple):
    """IR tools and the diagnostics met while producing them."""

    tools: list[Tool]
    diagnostics: list[Diagnostic]


class JsonResult(NamedTuple):
    """A JSON value (None when errors prevented it) and diagnostics."""

    value: Any
    diagnostics: list[Diagnostic]


class TextResult(NamedTuple):
    """Text (None when errors prevented it) and diagnostics."""

    text: str | None
    diagnostics: list[Diagnostic]


def _buffer(text: str | bytes) -> tuple[str, list[Diagnostic]]:
    """``text`` as buffer text, and the decoding's warning when given invalid UTF-8."""
    if isinstance(text, str):
        return text, []
    if not isinstance(text, (bytes, bytearray, memoryview)):
        raise TypeError(f"Elisp text must be str or bytes, not {type(text).__name__}")
    from plistspec.elisp.source import buffer_text

    buf = buffer_text(bytes(text))
    return buf.text, [buf.warning] if buf.warning is not None else []


def read_elisp(text: str) -> list[Any]:
    """Every top-level datum of ``text``, as Emacs's ``read`` sees it.

    Raises :class:`plistspec.core.diagnostics.ReadError` (with ``line``/``column``) on bad syntax.
    """
    from plistspec.elisp.reader import read_all

    return read_all(text)


def read_tools(
    text: str | bytes,
    path: str | None = None,
    dialect: str | None = None,
    *,
    fmt: str | None = None,
) -> ToolsResult:
    """The tools defined in Emacs Lisp ``text``, in the IR.

    ``dialect`` (``"gptel"`` or ``"llm"``) overrides each form's own library. A syntax
    error is an error diagnostic at its place; the other top-level forms are still read
    (syntax plistspec does not read, such as ``#s(...)``, is an info and costs only its
    form). A tool the library itself would refuse is left out, with error diagnostics at
    the offending datum. ``fmt`` names the provider format the tools are read for: any
    but ``ir`` leaves out of the metadata what only the IR shows (slot texts, the
    ``:function`` source, category/confirm/include/async).
    """
    from plistspec.core.gcpause import paused
    from plistspec.elisp.recover import read_recovering
    from plistspec.extract import find_tools
    from plistspec.replay import lower

    text, decoding = _buffer(text)
    with paused():
        datums, read_diags = read_recovering(text)
        forms, diags = find_tools(datums, text)
        diags = decoding + read_diags + diags
        tools: list[Tool] = []
        for form in forms:
            tool, more = lower(form, dialect, path, full=fmt in (None, "ir"))
            diags.extend(more)
            if tool is not None:
                tools.append(tool)
        return ToolsResult(tools, locate(diags, text, path))


def to_provider(tools: list[Tool], fmt: str) -> JsonResult:
    """``tools`` as provider ``fmt`` receives them (``openai``, ``anthropic``, ``gemini``,
    ``bedrock``, ``ollama``, ``openai-responses``, ``mcp``, ``vertex`` or ``ir``): for tools
    read from Elisp, exactly what gptel / llm would send."""
    from plistspec.core.gcpause import paused
    from plistspec.emit_json import emit

    with paused():
        value, diags = emit(tools, fmt)
    return JsonResult(value, diags)


def to_json(
    text: str | bytes, fmt: str = "ir", path: str | None = None, dialect: str | None = None
) -> JsonResult:
    """Read Elisp ``text`` and emit its tools for ``fmt`` (the whole ``to-json`` job).

    ``value`` is None when any error diagnostic was produced.
    """
    tools, diags = read_tools(text, path, dialect, fmt=fmt)
    if any(d.is_error for d in diags):
        return JsonResult(None, diags)
    value, more = to_provider(tools, fmt)
    diags = diags + list(more)
    if any(d.is_error for d in more):
        return JsonResult(None, diags)
    return JsonResult(value, diags)


def from_provider(value: Any, fmt: str | None = None) -> ToolsResult:
    """Tools from any provider's tool JSON, an MCP ``tools/list`` or plistspec's IR.

    The format is recognised unless ``fmt`` names it.
    """
    from plistspec.fromjson.detect import from_json

    tools, diags = from_json(value, fmt) if fmt else from_json(value)
    return ToolsResult(tools, diags)


def to_elisp(tools: list[Tool], dialect: str = "gptel", file_name: str | None = None) -> TextResult:
    """A whole ``.el`` file defining ``tools`` with ``gptel-make-tool`` or ``llm-make-tool``."""
    from plistspec.emit_elisp import to_elisp as _to_elisp

    text, diags = _to_elisp(tools, dialect, file_name=file_name)
    return TextResult(text, diags)


def format_elisp(text: str, path: str | None = None) -> TextResult:
    """``text`` with every tool form in the canonical layout, everything else unchanged."""
    from plistspec.fmt.rewrite import format_text

    out, diags = format_text(text, path)
    return TextResult(out, locate(diags, text, path))


def check(
    text: str | bytes,
    path: str | None = None,
    target: str | None = None,
    dialect: str | None = None,
) -> list[Diagnostic]:
    """Every diagnostic for Emacs Lisp ``text``: syntax, static reading, library failures,
    spec lints and, with ``target``, what that provider would reject."""
    from plistspec.checking.checker import check_text

    text, decoding = _buffer(text)
    found = check_text(text, path, target=target, dialect=dialect)
    # as the check command: the decoding's warning first, unless the reader says it there
    decoding = [
        w for w in decoding if not any(d.code == w.code and d.start == w.start for d in found)
    ]
    return locate(decoding, text, path) + found if decoding else found


def from_python(target: str, **options: Any) -> ToolsResult:
    """Tools from Python callables named by ``target`` (``module:function``, ``module:Class``,
    ``module:obj.method``, ``module`` or ``path.py:function``). Imports the named module."""
    from plistspec.pyfunc import from_python as _from_python

    tools, diags = _from_python(target, **options)
    return ToolsResult(tools, diags)
