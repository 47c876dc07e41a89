"""Elisp text → IR tools → provider JSON: the ``to-json`` job as pure functions.

Owns: :func:`read_tools` (read → extract → replay, with recovery: a bad form costs only
itself), :func:`to_provider` (IR → the JSON a provider receives, for tools read from
Elisp exactly what gptel / llm send), :func:`to_json` (both), :func:`buffer_of` (Elisp
given as bytes, decoded as visiting the file decodes it) and their result types. The
library API (:mod:`plistspec.api`) re-exports them; a running Emacs's registry, ``serve``
and the lowering jobs read Elisp through them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from plistspec.core.diagnostics import Diagnostic, locate

if TYPE_CHECKING:  # a TypedDict: building it costs start-up time every command pays
    from plistspec.core.ir import Tool

__all__ = ["ToolsResult", "JsonResult", "buffer_of", "read_tools", "to_provider", "to_json"]


class ToolsResult(NamedTuple):
    """IR tools and the diagnostics met while producing them."""

    tools: list[Tool]
    diagnostics: list[Diagnostic]


class JsonResult(NamedTuple):
    """A JSON value (None when errors prevented it) and diagnostics."""

    value: Any
    diagnostics: list[Diagnostic]


def buffer_of(text: str | bytes) -> tuple[str, list[Diagnostic]]:
    """``text`` as buffer text, and the decoding's warning when given invalid UTF-8."""
    if isinstance(text, str):
        return text, []
    if not isinstance(text, (bytes, bytearray, memoryview)):
        raise TypeError(f"Elisp text must be str or bytes, not {type(text).__name__}")
    from plistspec.elisp.source import buffer_text

    buf = buffer_text(bytes(text))
    return buf.text, [buf.warning] if buf.warning is not None else []


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

    text, decoding = buffer_of(text)
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
