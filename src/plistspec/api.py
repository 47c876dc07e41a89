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
from plistspec.pipeline.tools import (
    JsonResult,
    ToolsResult,
    buffer_of,
    read_tools,
    to_json,
    to_provider,
)

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


class TextResult(NamedTuple):
    """Text (None when errors prevented it) and diagnostics."""

    text: str | None
    diagnostics: list[Diagnostic]


def read_elisp(text: str) -> list[Any]:
    """Every top-level datum of ``text``, as Emacs's ``read`` sees it.

    Raises :class:`plistspec.core.diagnostics.ReadError` (with ``line``/``column``) on bad syntax.
    """
    from plistspec.elisp.reader import read_all

    return read_all(text)


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

    text, decoding = buffer_of(text)
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
