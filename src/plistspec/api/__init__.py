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
that decoded text (:func:`format_elisp` given bytes gives bytes back: the file as ``fmt``
writes it).

The provider or target is named ``target=`` everywhere, as the command line's ``-t``
(``fmt=``, the name of earlier releases, still works with a :class:`DeprecationWarning`).
:func:`lower` and :func:`check_call` (:mod:`plistspec.api.runtime`) are the run-time engine
of ``plistspec-gptel-mode`` for Python: the tools a provider accepts, and each call judged
against the tool's own schema.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any, Literal, NamedTuple, overload

from plistspec.api.runtime import CallCheck, LowerResult, Problem, check_call, lower
from plistspec.core.diagnostics import Diagnostic, locate
from plistspec.core.ir import Tool  # at run time: typing.get_type_hints sees every signature
from plistspec.pipeline.tools import JsonResult, ToolsResult, buffer_of, read_tools

__all__ = [
    "ToolsResult",
    "JsonResult",
    "TextResult",
    "BytesResult",
    "LowerResult",
    "CallCheck",
    "Problem",
    "read_elisp",
    "read_tools",
    "to_provider",
    "to_json",
    "from_provider",
    "to_elisp",
    "format_elisp",
    "check",
    "from_python",
    "lower",
    "check_call",
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


def _target_of(target: str | None, fmt: str | None, default: str | None = None) -> str | None:
    """``target``, or the deprecated ``fmt=`` (with a warning); both given must agree."""
    if fmt is not None:
        warnings.warn(
            "fmt= is deprecated, use target= (the name the command line's -t has)",
            DeprecationWarning,
            stacklevel=3,
        )
        if target is not None and target != fmt:
            raise TypeError(f"target={target!r} and fmt={fmt!r} disagree: give target= only")
        return fmt
    return default if target is None else target


def to_provider(
    tools: list[Tool], target: str | None = None, *, fmt: str | None = None
) -> JsonResult:
    """``tools`` as provider ``target`` receives them (``openai``, ``anthropic``, ``gemini``,
    ``bedrock``, ``ollama``, ``openai-responses``, ``mcp``, ``vertex`` or ``ir``): for tools
    read from Elisp, exactly what gptel / llm would send. A target that exists only
    lowered (``openai-strict``, ``gemini-jsonschema``, ``anthropic-strict``, an ``mcp-DATE``
    revision) is :func:`lower`'s job, done here as ``to-json -t`` does it."""
    from plistspec.core.formats import FORMATS
    from plistspec.pipeline.tools import to_provider as _to_provider

    target = _target_of(target, fmt)
    if target in FORMATS:
        return _to_provider(tools, target)
    value, diags, _tools = lower(tools, _known_lowering(target))
    return JsonResult(value, diags)


def _known_lowering(target: Any) -> str:
    """``target``, a lowering target; else :class:`ValueError` naming every target."""
    from plistspec.core.formats import FORMATS, LOWER_TARGETS

    if target not in LOWER_TARGETS:
        known = FORMATS + tuple(t for t in LOWER_TARGETS if t not in FORMATS)
        raise ValueError(f"unknown target {target!r}; expected one of {', '.join(known)}")
    return target


def to_json(
    text: str | bytes,
    target: str | None = None,
    path: str | None = None,
    dialect: str | None = None,
    *,
    fmt: str | None = None,
) -> JsonResult:
    """Read Elisp ``text`` and emit its tools for ``target`` (default ``ir``; the whole
    ``to-json -t TARGET`` job). ``value`` is None when any error diagnostic was produced."""
    from plistspec.core.formats import FORMATS
    from plistspec.pipeline.tools import to_json as _to_json

    target = _target_of(target, fmt, "ir")
    if target in FORMATS:
        return _to_json(text, target, path, dialect)
    from plistspec.pipeline.lowered import lower_inputs

    _known_lowering(target)
    text, decoding = buffer_of(text)  # a lowering target: to-json -t TARGET --lower's job
    tools, diags = read_tools(text, path, dialect)
    diags = locate(decoding, text, path) + diags
    if any(d.is_error for d in diags):
        return JsonResult(None, diags)
    value, more = lower_inputs([(path or "", text, list(tools), True)], target)
    for d in more:
        d.path = d.path or path
    return JsonResult(value, diags + more)


def from_provider(value: Any, target: str | None = None, *, fmt: str | None = None) -> ToolsResult:
    """Tools from any provider's tool JSON, an MCP ``tools/list`` or plistspec's IR.

    The format is recognised unless ``target`` names it."""
    from plistspec.fromjson.detect import from_json

    target = _target_of(target, fmt)
    tools, diags = from_json(value, target) if target else from_json(value)
    return ToolsResult(tools, diags)


def to_elisp(tools: list[Tool], dialect: str = "gptel", file_name: str | None = None) -> TextResult:
    """A whole ``.el`` file defining ``tools`` with ``gptel-make-tool`` or ``llm-make-tool``."""
    from plistspec.emit_elisp import to_elisp as _to_elisp

    text, diags = _to_elisp(tools, dialect, file_name=file_name)
    return TextResult(text, diags)


class BytesResult(NamedTuple):
    """File bytes (None when errors prevented them) and diagnostics."""

    data: bytes | None
    diagnostics: list[Diagnostic]


@overload
def format_elisp(text: str, path: str | None = None, dialect: str | None = None) -> TextResult: ...
@overload
def format_elisp(
    text: bytes, path: str | None = None, dialect: str | None = None
) -> BytesResult: ...
def format_elisp(
    text: str | bytes, path: str | None = None, dialect: str | None = None
) -> TextResult | BytesResult:
    """``text`` with every tool form in the canonical layout, everything else unchanged.

    Given a file's ``bytes``, they are decoded as :func:`read_tools` decodes them and the
    result is the file's new bytes, as ``plistspec fmt`` writes them: byte-order mark,
    line endings and invalid bytes as they were (the diagnostics' places are in the
    decoded text). A file whose line endings cannot be kept gives ``None`` and a PS902
    error. ``dialect`` forces the library whose rules are used."""
    from plistspec.fmt.rewrite import format_text

    if isinstance(text, str):
        out, diags = format_text(text, path, dialect)
        return TextResult(out, locate(diags, text, path))
    if not isinstance(text, (bytes, bytearray, memoryview)):
        raise TypeError(f"Elisp text must be str or bytes, not {type(text).__name__}")
    from plistspec.elisp.eol import encode_eol
    from plistspec.elisp.source import buffer_text

    data = bytes(text)
    buf = buffer_text(data)
    out, diags = format_text(buf.text, path, dialect)
    decoding = [w for w in [buf.warning] if w is not None]
    decoding = [
        w for w in decoding if not any(d.code == w.code and d.start == w.start for d in diags)
    ]
    diags = locate(decoding + list(diags), buf.text, path)
    if out == buf.text:
        return BytesResult(data, diags)
    if not buf.exact:
        why = (
            "cannot keep this file's mixed line endings (its coding cookie names an EOL type "
            "the file does not use consistently); not reformatted"
        )
        return BytesResult(None, [*diags, Diagnostic("PS902", "error", why, path=path)])
    try:
        new = encode_eol(out, buf.eol).encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as e:
        why = f"the output holds a character that has no UTF-8 encoding (U+{ord(out[e.start]):04X})"
        return BytesResult(None, [*diags, Diagnostic("PS902", "error", why, path=path)])
    return BytesResult(b"\xef\xbb\xbf" + new if buf.bom else new, diags)


def check(
    text: str | bytes,
    path: str | None = None,
    target: str | None = None,
    dialect: str | None = None,
) -> list[Diagnostic]:
    """Every diagnostic for Emacs Lisp ``text``: syntax, static reading, library failures,
    spec lints and, with ``target``, what that provider would reject. Each fix says its
    ``applicability`` (``safe`` or ``unsafe``), as ``check --output-format json`` does."""
    from plistspec.checking.checker import check_text
    from plistspec.checking.fixes import is_safe

    text, decoding = buffer_of(text)
    found = check_text(text, path, target=target, dialect=dialect)
    for d in found:  # as the JSON of `check --output-format json`
        if d.fix is not None:
            d.fix.applicability = "safe" if is_safe(d.code, d.severity) else "unsafe"
    # as the check command: the decoding's warning first, unless the reader says it there
    decoding = [
        w for w in decoding if not any(d.code == w.code and d.start == w.start for d in found)
    ]
    return locate(decoding, text, path) + found if decoding else found


def from_python(
    target: str | list[str],
    *,
    python: str | None = None,
    async_: bool = False,
    function: str | None = None,
    dialect: Literal["gptel", "llm"] = "gptel",
    cwd: str | None = None,
    strict_types: bool = False,
    lenient_defaults: bool = False,
    skip: Iterable[str] = (),
    bridge: Literal["worker", "process"] = "worker",
    timeout: float | None = None,
    root: str | None = None,
) -> ToolsResult:
    """Tools from Python callables named by ``target`` (``module:function``, ``module:Class``,
    ``module:obj.method``, ``module`` or ``path.py:function``; or a list of them). Imports
    the named module. The keywords are ``from-py``'s options:

    ``python``: the interpreter the generated ``:function`` runs (default: the one
    ``plistspec-bridge.el`` finds when the tool is called); ``async_``: write the
    non-blocking ``make-process`` form; ``function``: write ``#'FUNCTION`` instead of a
    lambda; ``dialect``: ``gptel`` or ``llm``; ``cwd``: the directory the module is
    imported from (default: the current one); ``strict_types``: unannotated parameters
    and ``Any`` are errors; ``lenient_defaults``: drop defaults JSON cannot hold (a
    warning), not an error; ``skip``: parameters (by name or type name) kept out of the
    schema (each needs a default); ``bridge``: ``worker`` (one persistent Python per
    module) or ``process`` (one per call); ``timeout``: the seconds a call may take;
    ``root``: the variable the lambdas read the modules' directory from."""
    options = {k: v for k, v in locals().items() if k != "target"}  # the keywords above
    from plistspec.pyfunc import from_python as _from_python

    tools, diags = _from_python(target, **options)
    return ToolsResult(tools, diags)
