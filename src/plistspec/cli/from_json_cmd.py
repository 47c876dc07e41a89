"""``plistspec from-json``: provider / MCP tool JSON (or the IR) → an Emacs Lisp file.

Owns: the command's options and exit codes (0 written, 1 the input had errors and
nothing was written, 2 usage). Diagnostics go to standard error.
"""

from __future__ import annotations

import sys

import click

from plistspec.cli._options import diagnostics_format_option, output_option, stdin_filename_option
from plistspec.formats import FORMATS as FROM_FORMATS


def _load_json(text: str, name: str):
    """``(value, error message or None)``; NaN/Infinity are refused, duplicate keys noted."""
    import json

    dups: list[str] = []

    def pairs(items):
        d = {}
        for k, v in items:
            if k in d:
                dups.append(k)
            d[k] = v
        return d

    def bad_constant(c):
        raise ValueError(f"{c} is not JSON")

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=bad_constant)
    except json.JSONDecodeError as e:
        return None, f"{name}:{e.lineno}:{e.colno}: error: invalid JSON: {e.msg} [PS500]", dups
    except ValueError as e:
        return None, f"{name}: error: invalid JSON: {e} [PS500]", dups
    except RecursionError:
        return None, f"{name}: error: the JSON is nested too deeply to read [PS500]", dups
    return value, None, dups


def _place(diags: list, text: str) -> None:
    """Give each diagnostic that names a JSON pointer (``at /tools/3/...``) the span of
    that value in ``text``, so it prints as ``FILE:LINE:COL``."""
    import re

    from plistspec.providers.jsonpos import pointer_span

    pat = re.compile(r"\bat (/[^\s,:()]*)")
    for d in diags:
        if d.start >= 0:
            continue
        m = pat.search(d.message)
        if m is None:
            continue
        span = pointer_span(text, m.group(1) if m.group(1) != "/" else "")
        if span is not None:
            d.start, d.end = span


@click.command("from-json")
@click.argument("file", metavar="FILE|-")
@click.option(
    "-d",
    "--dialect",
    type=click.Choice(["gptel", "llm"]),
    default="gptel",
    show_default=True,
    help="Write (gptel-make-tool ...) or (llm-make-tool ...) forms.",
)
@click.option(
    "--from",
    "from_",
    type=click.Choice(FROM_FORMATS),
    default=None,
    help="The input format (default: recognised from the JSON).",
)
@click.option(
    "--target",
    type=click.Choice(
        ("gemini", "openai", "openai-strict", "openai-responses")
        + ("anthropic", "anthropic-strict", "bedrock", "ollama")
    ),
    default=None,
    help="Lower the tools first so that what gptel/llm send this provider is accepted "
    "(every change is reported).",
)
@output_option
@stdin_filename_option
@diagnostics_format_option
def from_json_cmd(
    file: str,
    dialect: str,
    from_: str | None,
    out: str | None,
    stdin_filename: str | None,
    diagnostics_format: str,
    target: str | None = None,
) -> None:
    """Write an Emacs Lisp file defining the tools in FILE (- for stdin).

    FILE holds tools as OpenAI (chat or Responses), Anthropic, Gemini, Bedrock or MCP
    send them (a single tool, an array, an MCP tools/list result or a whole JSON-RPC
    response), or plistspec's IR. Each :function is a stub that signals `user-error'
    until you write it (tools read from the IR keep their original :function).
    """
    from plistspec.cli._io import InputError, print_diagnostics, read_text, write_output
    from plistspec.diagnostics import Diagnostic, locate
    from plistspec.emit_elisp import to_elisp
    from plistspec.providers.detect import from_json

    try:
        name, text = read_text(file, stdin_name=stdin_filename)
    except InputError as e:
        click.echo(str(e), err=True)
        sys.exit(1)
    value, err, dups = _load_json(text, name)
    if err is not None:
        click.echo(err, err=True)
        sys.exit(1)
    diags = []
    if dups:
        keys = ", ".join(sorted({repr(k) for k in dups}))
        diags.append(
            Diagnostic(
                "PS513", "warning", f"duplicate object keys {keys}: the last value of each was used"
            )
        )
    tools, more = from_json(value, from_)
    diags.extend(more)
    if target is not None and not any(d.is_error for d in diags):
        from plistspec.lowering.run import lower_for_elisp

        tools, more = lower_for_elisp(tools, target)
        diags.extend(more)
    if not any(d.is_error for d in diags):
        import os

        file_name = os.path.basename(out) if out and out != "-" else None
        elisp, more = to_elisp(tools, dialect, file_name=file_name)
        diags.extend(more)
        if target is not None and elisp is not None:
            from plistspec.lowering.run import verify_elisp

            diags.extend(verify_elisp(elisp, target, dialect))
    _place(diags, text)
    locate(diags, text, name)
    print_diagnostics(diags, diagnostics_format)
    if any(d.is_error for d in diags):
        sys.exit(1)
    try:
        write_output(elisp, out)
    except InputError as e:
        click.echo(str(e), err=True)
        sys.exit(1)
