"""``plistspec to-json``: Emacs Lisp tool definitions → the IR or provider JSON.

Owns: the command's options and exit codes. All tools of all files go into one array,
in source order; diagnostics go to standard error; with any error nothing is written.
"""

from __future__ import annotations

import sys

import click

from plistspec.cli._from_emacs import from_emacs_options
from plistspec.cli._options import diagnostics_format_option, output_option, stdin_filename_option
from plistspec.formats import FORMATS


@click.command("to-json")
@click.argument("files", nargs=-1, metavar="FILE...")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="ir",
    show_default=True,
    help="ir (plistspec's JSON Schema IR) or the provider whose tools array to print.",
)
@click.option(
    "-d",
    "--dialect",
    type=click.Choice(["gptel", "llm"]),
    default=None,
    help="Read every tool with this library's rules (default: each form's own: "
    "gptel-make-tool → gptel, llm-make-tool → llm).",
)
@output_option
@stdin_filename_option
@diagnostics_format_option
@from_emacs_options
def to_json_cmd(
    files: tuple[str, ...],
    fmt: str,
    dialect: str | None,
    out: str | None,
    stdin_filename: str | None,
    diagnostics_format: str,
    from_emacs: str | None,
    llm_variable: str | None,
) -> None:
    """Compile the tool definitions in FILE... (- for stdin) to JSON.

    For a provider format the output is exactly the `tools` value gptel 0.9.9.5 sends
    (for gptel-make-tool forms) or llm 0.31.1 sends (llm-make-tool forms).
    """
    from plistspec.api import read_tools, to_provider
    from plistspec.cli._io import InputError, print_diagnostics

    tools = []
    diags = []
    failed = False
    if not files and from_emacs is None:
        raise click.UsageError("give FILE... or --from-emacs")
    if from_emacs is not None:
        from plistspec.cli._from_emacs import registry_tools

        tools, diags = registry_tools(from_emacs, llm_variable)
    for path in files:
        from plistspec.cli._io import read_text

        try:
            name, text = read_text(path, stdin_name=stdin_filename)
        except InputError as e:
            click.echo(str(e), err=True)
            failed = True
            continue
        if len(files) == 1 and from_emacs is None:
            from plistspec.streaming import provider_json_bytes

            streamed = provider_json_bytes(text, fmt, name, dialect)
            if streamed is not None:  # a big file, one form at a time: the same output
                _finish(streamed[0], streamed[1], out, diagnostics_format)
                return
        found, more = read_tools(text, name, dialect, fmt=fmt)
        tools.extend(found)
        diags.extend(more)
    if not failed and not any(d.is_error for d in diags):
        value, more = to_provider(tools, fmt)
        diags.extend(more)
    if failed or any(d.is_error for d in diags):
        print_diagnostics(diags, diagnostics_format)
        sys.exit(1)
    from plistspec.jsonout import dumps

    _finish(dumps(value), diags, out, diagnostics_format)


def _finish(
    data: str | bytes | None, diags: list, out: str | None, diagnostics_format: str
) -> None:
    """Print the diagnostics; write ``data`` (None: an error prevented it) or exit 1."""
    from plistspec.cli._io import InputError, print_diagnostics, write_output

    print_diagnostics(diags, diagnostics_format)
    if data is None or any(d.is_error for d in diags):
        sys.exit(1)
    try:
        write_output(data, out)
    except InputError as e:
        click.echo(str(e), err=True)
        sys.exit(1)
