"""``plistspec fmt``: lay out tool forms canonically, leaving everything else as it is.

Owns: the command's options and exit codes. Without ``--in-place`` the formatted text
goes to standard output; ``--check`` writes nothing and exits 1 naming the files that
would change; ``--in-place`` replaces each file atomically (never half written), keeping
its byte-order mark, line endings (CRLF stays CRLF, CR stays CR), mode, owner, hard
links and symbolic links (the target is rewritten); a read-only file is refused.
A form with an error (a syntax error anywhere in the file, a spec ``check`` calls an
error) is never rewritten.
Exit 0 on success, 1 when a file could not be read/written (or, with ``--check``,
would change), 2 for usage errors.
"""

from __future__ import annotations

import sys

import click

from plistspec.cli._options import diagnostics_format_option, stdin_filename_option


@click.command("fmt")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 and name the files that would change."
)
@click.option("-i", "--in-place", is_flag=True, help="Rewrite each FILE in place (atomically).")
@click.option(
    "-d",
    "--dialect",
    type=click.Choice(["gptel", "llm"]),
    default=None,
    help="Read every tool with this library's rules (default: each form's own).",
)
@stdin_filename_option
@click.option(
    "-q", "--quiet", is_flag=True, help="Do not print info diagnostics (forms left unchanged)."
)
@diagnostics_format_option
def fmt_cmd(
    files: tuple[str, ...],
    check: bool,
    in_place: bool,
    dialect: str | None,
    stdin_filename: str | None,
    quiet: bool,
    diagnostics_format: str,
) -> None:
    """Rewrite the tool forms of FILE... (- for stdin) in the canonical layout."""
    from plistspec.cli._io import (
        InputError,
        check_rewritable,
        print_diagnostics,
        read_text_layout,
        rewrite_file,
        write_output,
    )
    from plistspec.diagnostics import locate
    from plistspec.fmt import format_text

    if in_place and check:
        raise click.UsageError("--check and --in-place do not go together")
    if in_place and "-" in files:
        raise click.UsageError("--in-place cannot rewrite standard input")
    status = 0
    changed: list[str] = []
    all_diags = []
    for path in files:
        try:
            name, text, layout = read_text_layout(path, stdin_name=stdin_filename)
            if in_place:
                check_rewritable(path, name)
        except InputError as e:
            click.echo(str(e), err=True)
            status = 1
            continue
        new, diags = format_text(text, name, dialect)
        diags = locate(diags, text, name)
        if any(d.is_error for d in diags):
            status = 1
        if quiet:
            diags = [d for d in diags if d.severity != "info"]
        all_diags.extend(diags)
        if new != text and not layout.exact:
            click.echo(
                f"{name}: error: cannot keep this file's mixed line endings (its coding "
                "cookie names an EOL type the file does not use consistently); not "
                "reformatted [PS902]",
                err=True,
            )
            status = 1
            new = text
        if check:
            if new != text:
                changed.append(name)
            continue
        try:
            if in_place:
                if new != text:
                    rewrite_file(path, name, layout.encode(new))
            else:
                write_output(layout.encode(new), None)
        except InputError as e:
            click.echo(str(e), err=True)
            status = 1
    print_diagnostics(all_diags, diagnostics_format)
    if check and changed:
        for name in changed:
            click.echo(f"would reformat {name}", err=True)
        status = 1
    sys.exit(status)
