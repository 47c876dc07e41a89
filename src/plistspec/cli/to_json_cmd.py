"""``plistspec to-json``: Emacs Lisp tool definitions → the IR or provider JSON.

Owns: the command's options and exit codes. All tools of all files go into one array,
in source order; diagnostics go to standard error; with any error nothing is written.
"""

from __future__ import annotations

import click

from plistspec.cli._from_emacs import from_emacs_options
from plistspec.cli._options import (
    Command,
    deprecated_option,
    output_format_option,
    output_option,
    stdin_filename_option,
    target_option,
)
from plistspec.core.formats import FORMATS, LOWER_TARGETS, REPORT_FORMATS

_TARGETS = FORMATS + tuple(t for t in LOWER_TARGETS if t not in FORMATS)


@click.command("to-json", cls=Command)
@click.argument("files", nargs=-1, metavar="FILE|DIR...")
@target_option(
    _TARGETS,
    default="ir",
    help="ir (plistspec's JSON Schema IR) or the provider whose tools array to print; "
    f"{', '.join(t for t in _TARGETS if t not in FORMATS)} exist only lowered (--lower implied).",
)
@deprecated_option("-f", "-t", "target", type=click.Choice(_TARGETS))
@deprecated_option("--format", "--target", "target", type=click.Choice(_TARGETS))
@click.option(
    "--lower",
    is_flag=True,
    help="Rewrite the tools into what the -t target accepts, reporting every change "
    "(FILE may then be tool JSON ending in .json).",
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
@output_format_option()
@deprecated_option(
    "--diagnostics-format", "--output-format", "output_format", type=click.Choice(REPORT_FORMATS)
)
@from_emacs_options
def to_json_cmd(
    files: tuple[str, ...],
    target: str,
    dialect: str | None,
    out: str | None,
    stdin_filename: str | None,
    output_format: str,
    from_emacs: str | None,
    llm_variable: str | None,
    lower: bool = False,
) -> None:
    """Compile the tool definitions in FILE... (- for stdin; the .el files of DIR) to JSON.

    For a provider format the output is exactly the `tools` value gptel 0.9.9.5 sends
    (for gptel-make-tool forms) or llm 0.31.1 sends (llm-make-tool forms).
    """
    from plistspec.cli._io import InputError
    from plistspec.core.diagnostics import locate
    from plistspec.pipeline.tools import read_tools, to_provider

    fmt = target
    if fmt not in FORMATS:
        lower = True  # a target that exists only lowered (openai-strict, mcp-2025-06-18...)
    if lower and fmt not in LOWER_TARGETS:
        raise click.UsageError(f"--lower needs -t TARGET, one of {', '.join(LOWER_TARGETS)}")
    inputs = []
    places: dict[str, list[tuple[str, str]]] = {}  # JSON inputs: where each tool is
    tools = []
    diags = []
    failed = False
    if not files and from_emacs is None:
        raise click.UsageError("give FILE... or --from-emacs")
    from plistspec.cli._paths import input_files

    files, _ = input_files(files)  # a folder: its .el files, as check and fmt walk it
    if from_emacs is not None:
        from plistspec.cli._from_emacs import registry_tools

        tools, diags = registry_tools(from_emacs, llm_variable)
        if lower:  # lowered like JSON input: each diagnostic names the Emacs, by pointer
            inputs.append((f"emacs:{from_emacs}", "", list(tools), False))
    for path in files:
        from plistspec.cli._io import read_elisp

        try:
            name, text, _, decoding = read_elisp(path, stdin_name=stdin_filename)
        except InputError as e:
            click.echo(str(e), err=True)
            failed = True
            continue
        diags.extend(decoding)  # invalid UTF-8: read as Emacs does, with a warning
        hint = None
        if not lower:
            from plistspec.cli._io import json_not_elisp

            hint = json_not_elisp(name, text, "to-json")
            if hint is not None:  # no tool form in it: an error, nothing is printed
                hint.severity = "error"
                diags.extend(locate([hint], text, name))
                continue
        from plistspec.elisp.embedded import (
            elisp_view,
            not_elisp,
            to_file_offsets,
            tools_at_file_positions,
        )

        view = elisp_view(name, text)
        if view.text is None:  # another language, or Markdown/Org without an elisp block
            d = not_elisp(name, text, view.language, "to-json")
            diags.append(d)
            failed = failed or d.is_error
            continue
        file_text, text = text, view.text  # a Markdown/Org file: its blocks, as tangled
        if (
            len(files) == 1
            and text is file_text
            and from_emacs is None
            and not lower
            and hint is None
        ):
            from plistspec.pipeline.stream import provider_json_bytes

            streamed = provider_json_bytes(text, fmt, name, dialect)
            if streamed is not None:  # a big file, one form at a time: the same output
                from plistspec.cli._io import finish

                data, sdiags = streamed
                sdiags = decoding + [d for d in sdiags if not _same(d, decoding)]
                finish(sdiags, output_format, data, out, failed=data is None)
                return
        if lower:
            from plistspec.pipeline.lowered import read_for_lowering

            places[name] = []
            found, more, is_elisp = read_for_lowering(text, name, dialect, places[name])
            more = to_file_offsets(more, text, file_text)
            inputs.append((name, text, found, is_elisp))
        else:
            found, more = read_tools(text, name, dialect, fmt=fmt)
            more = to_file_offsets(more, text, file_text)
            tools_at_file_positions(found, text, file_text)
        tools.extend(found)
        diags.extend(more)
    if not failed and not any(d.is_error for d in diags):
        if lower:
            from plistspec.pipeline.lowered import lower_inputs

            value, more = lower_inputs(inputs, fmt, places)
        else:
            value, more = to_provider(tools, fmt)
        diags.extend(more)
    from plistspec.cli._io import finish
    from plistspec.core.jsonout import dumps

    finish(diags, output_format, lambda: dumps(value), out, failed)


def _same(d, decoding) -> bool:
    """``d`` is the reader's word for the decoding warning already said (same place)."""
    return any(d.code == w.code and d.start == w.start for w in decoding)
