"""``plistspec check``: diagnostics for tool specs, for people and for editors.

Owns: the command's options, output formats and exit codes. Diagnostics go to standard
output, as GNU ``FILE:LINE:COL: severity: message [CODE]`` lines (what Emacs's
``compilation-mode`` reads) or as one JSON array (what the flymake backend in
``elisp/plistspec.el`` reads; a ``fix`` there has ``start``/``end`` offsets, the
``replacement`` and its ``line``/``column``/``end_line``/``end_column``).

Exit codes, in every format: 1 when any error was found, else 0; 2 for usage errors.
``--exit-zero`` makes it 0 whenever the check ran, errors found or not (as ruff's flag
does): editors pass it, so that any other status means the check itself failed (the
flymake backend in ``elisp/plistspec.el`` does).
"""

from __future__ import annotations

import sys

import click

from plistspec.cli._from_emacs import from_emacs_options
from plistspec.cli._options import stdin_filename_option
from plistspec.formats import TARGETS


@click.command("check")
@click.argument("files", nargs=-1, metavar="FILE...")
@click.option(
    "-t",
    "--target",
    type=click.Choice(TARGETS),
    default=None,
    help="Also report what this provider would reject or ignore in the JSON gptel/llm send it.",
)
@click.option(
    "-d",
    "--dialect",
    type=click.Choice(["gptel", "llm"]),
    default=None,
    help="Check every tool with this library's rules (default: each form's own).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["gnu", "json"]),
    default="gnu",
    show_default=True,
    help="gnu: FILE:LINE:COL: severity: message [CODE]; json: one array of objects.",
)
@stdin_filename_option
@click.option(
    "--exit-zero",
    is_flag=True,
    default=False,
    help="Exit 0 even when errors are found (for editors: any other status is a failure).",
)
@from_emacs_options
def check_cmd(
    files: tuple[str, ...],
    target: str | None,
    dialect: str | None,
    fmt: str,
    stdin_filename: str | None,
    exit_zero: bool,
    from_emacs: str | None,
    llm_variable: str | None,
) -> None:
    """Check the tool definitions in FILE... (- for stdin).

    Reports syntax errors, what gptel/llm would refuse, spec mistakes and surprises
    (unknown keys with did-you-mean, missing :type, :enum as a list...) and, with
    --target, what that provider would reject. `plistspec explain CODE` explains a code.
    """
    from plistspec.checker import check_text, diagnostics_json
    from plistspec.cli._io import print_diagnostics, read_source

    if files.count("-") > 1:
        raise click.UsageError("standard input (-) can be read only once")
    if not files and from_emacs is None:
        raise click.UsageError("give FILE... or --from-emacs")
    diags = []
    objects: list[dict] = []
    sources = []
    if from_emacs is not None:
        from plistspec.cli._from_emacs import registry_entries

        sources = [
            (f"emacs:{e['name']}", e["form"]) for e in registry_entries(from_emacs, llm_variable)
        ]
    for path in list(files) + sources:
        if isinstance(path, tuple):
            name, text, problem = path[0], path[1], None
        else:
            name, text, problem = read_source(path, stdin_filename)
        found = [problem] if problem is not None else []
        if text is not None:
            more = check_text(text, name, target, dialect)
            if problem is not None and any(
                d.code == "PS001" and d.start == problem.start for d in more
            ):
                found = []  # the reader says it at that very place
            found.extend(more)
        diags.extend(found)
        if fmt == "json":
            objects.extend(diagnostics_json(found, text))
    if fmt == "json":
        import json

        sys.stdout.write(json.dumps(objects, indent=2, ensure_ascii=False) + "\n")
    else:
        print_diagnostics(diags, fmt, stream=sys.stdout)
    sys.stdout.flush()
    if exit_zero:
        sys.exit(0)
    sys.exit(1 if any(d.severity == "error" for d in diags) else 0)
