"""``plistspec from-json``: provider / MCP tool JSON (or the IR) → an Emacs Lisp file.

Owns: the command's options and exit codes (0 written, 1 the input had errors and
nothing was written, 2 usage). Diagnostics go to standard error.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from plistspec.cli._elisp_file import feature_option, variable_option
from plistspec.cli._from_emacs import from_emacs_options
from plistspec.cli._options import (
    Command,
    deprecated_option,
    output_format_option,
    output_option,
    stdin_filename_option,
    target_option,
)
from plistspec.core.formats import ELISP_TARGETS, REPORT_FORMATS
from plistspec.core.formats import FORMATS as FROM_FORMATS


def _load_json(text: str, name: str):
    """``(value, error message or None, duplicate keys)``; any depth, errors positioned."""
    from plistspec.core.jsontext import JsonError, load_json

    try:
        value, dups = load_json(text)
    except JsonError as e:
        line = text.count("\n", 0, e.pos) + 1
        col = e.pos - (text.rfind("\n", 0, e.pos) + 1) + 1
        code, message = e.diagnostic()
        return None, f"{name}:{line}:{col}: error: {message} [{code}]", []
    return value, None, dups


@click.command("from-json", cls=Command)
@click.argument("file", metavar="FILE|-", required=False)
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
    "--trust-functions",
    is_flag=True,
    help="IR input: also write :function and other slot values that run code when the "
    "generated file is loaded (default: they are replaced by a stub, with a warning).",
)
@click.option(
    "--forms-only",
    is_flag=True,
    help="Write only the tool forms (with their ;; comments), separated by blank lines: "
    "no header, Commentary, require, provide or footer (for inserting into a buffer).",
)
@feature_option
@variable_option
@target_option(
    ELISP_TARGETS,
    help="Lower the tools first so that what gptel/llm send this provider is accepted "
    "(every change is reported).",
)
@click.option(
    "--category",
    default=None,
    metavar="NAME",
    help="gptel's :category of every tool written (default: none, which gptel files under "
    '"misc").',
)
@output_option
@stdin_filename_option
@output_format_option()
@deprecated_option(
    "--diagnostics-format", "--output-format", "output_format", type=click.Choice(REPORT_FORMATS)
)
@from_emacs_options
def from_json_cmd(
    file: str,
    dialect: str,
    from_: str | None,
    trust_functions: bool,
    forms_only: bool,
    feature: str | None,
    variable: str | None,
    out: str | None,
    stdin_filename: str | None,
    output_format: str,
    from_emacs: str | None,
    llm_variable: str | None,
    target: str | None = None,
    category: str | None = None,
) -> None:
    """Write an Emacs Lisp file defining the tools in FILE (- for stdin).

    FILE holds tools as OpenAI (chat or Responses), Anthropic, Gemini, Bedrock or MCP
    send them (a single tool, an array, an MCP tools/list result or a whole JSON-RPC
    response), or plistspec's IR. Each :function is a stub that signals `user-error'
    until you write it (tools read from the IR keep their :function when loading the
    file would run nothing; --trust-functions keeps any). The file provides FEATURE, so
    (require 'FEATURE) loads it; llm tools are kept in a variable.
    """
    from plistspec.cli._io import InputError, finish, read_text
    from plistspec.core.diagnostics import Diagnostic, locate
    from plistspec.emit_elisp import to_elisp
    from plistspec.fromjson.detect import from_json
    from plistspec.pipeline.jsonplace import place_diagnostics, renamed, tool_places

    if (file is None) == (from_emacs is None):
        raise click.UsageError("give FILE or --from-emacs")
    if category is not None and dialect != "gptel":
        raise click.UsageError("--category is gptel's: llm tools have no category")
    text: str | None = None
    tool_at: dict[str, tuple[str, Any]] = {}
    if from_emacs is not None:  # the tools registered in a running Emacs, written alike
        from plistspec.cli._from_emacs import registry_tools

        tools, diags = registry_tools(from_emacs, llm_variable)
    else:
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
                    "PS513",
                    "warning",
                    f"duplicate object keys {keys}: the last value of each was used",
                )
            )
        pointers: list[str] = []
        tools, more = from_json(
            value, from_, trust_functions=trust_functions, dialect=dialect, pointers=pointers
        )
        diags.extend(more)
        tool_at = tool_places(tools, pointers, value)
    if target is not None and not any(d.is_error for d in diags):
        from plistspec.pipeline.lowered import lower_for_elisp

        before = tools
        tools, more = lower_for_elisp(tools, target)
        diags.extend(more)
        renamed(tool_at, before, tools)
    elisp = None
    if not any(d.is_error for d in diags):
        import os

        from plistspec.emit_elisp.unwritable import (
            drop_empty_names,
            drop_huge_integers,
            drop_tuple_items,
            first_member,
            typed_any,
        )

        file_name = os.path.basename(out) if out and out != "-" else None
        tools, more = drop_empty_names(tools)
        diags.extend(more)
        tools, more = drop_huge_integers(tools)
        diags.extend(more)
        tools, more = drop_tuple_items(tools, dialect)
        diags.extend(more)
        tools, more = first_member(tools, dialect)
        diags.extend(more)
        tools, more = typed_any(tools, dialect)
        diags.extend(more)
        elisp, more = to_elisp(
            tools,
            dialect,
            file_name=file_name,
            forms_only=forms_only,
            feature=feature,
            variable=variable,
            category=category,
        )
        diags.extend(more)
        if target is not None and elisp is not None:
            from plistspec.pipeline.lowered import verify_elisp

            diags.extend(verify_elisp(elisp, target, dialect))
        if elisp is not None and dialect == "gptel":
            from plistspec.checking.silence import silence, untyped

            if untyped(tools):  # written as the JSON says: check must not call it a slip
                elisp = silence(elisp)
    if text is not None:  # JSON input: diagnostics placed at FILE:LINE:COL
        place_diagnostics(diags, text, tool_at)
        locate(diags, text, name)
    finish(diags, output_format, elisp, out)
