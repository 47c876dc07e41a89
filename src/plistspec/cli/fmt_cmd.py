"""``plistspec fmt``: lay out tool forms canonically, leaving everything else as it is.

Owns: the command's options and exit codes. Without ``--in-place`` the formatted text
goes to standard output; ``--check`` writes nothing and exits 1 naming the files that
would change (``Would reformat: FILE``, as ``ruff format --check``); ``--diff`` writes
nothing and prints a unified diff of each file that would change (the file's own bytes,
as ``check --diff``), exit 1 when there is one; a folder is walked for its ``.el`` files
(:mod:`plistspec.cli._paths`) and, given neither ``--check`` nor ``--diff``, its files are
rewritten in place, as ``ruff format DIR`` does (a folder's files never go to standard
output). With ``--check``, ``--diff`` or ``--in-place`` a summary line goes to standard
error (``1 file would be reformatted, 2 files already formatted``).
``--in-place`` replaces each file atomically (never half written), keeping
its byte-order mark, line endings (CRLF stays CRLF, CR stays CR), mode, owner, hard
links and symbolic links (the target is rewritten); a read-only file is refused.
A form with an error (a syntax error anywhere in the file, a spec ``check`` calls an
error) is never rewritten.
Exit 0 on success, 1 when a file could not be read/written (or, with ``--check``,
would change), 2 for usage errors.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from plistspec.cli._options import (
    Command,
    deprecated_option,
    output_format_option,
    stdin_filename_option,
)
from plistspec.cli._paths import force_exclude_option
from plistspec.core.formats import REPORT_FORMATS

if TYPE_CHECKING:
    from plistspec.cli._io import InputError, Layout


@click.command("fmt", cls=Command)
@click.argument("files", nargs=-1, metavar="[FILE|DIR]...")
@click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 and name the files that would change."
)
@click.option(
    "--diff",
    is_flag=True,
    help="Write nothing; print a unified diff of the files that would change (exit 1 if any).",
)
@click.option(
    "-i",
    "--in-place",
    is_flag=True,
    help="Rewrite each FILE in place (atomically); the default for the files of a DIR.",
)
@click.option(
    "-d",
    "--dialect",
    type=click.Choice(["gptel", "llm"]),
    default=None,
    help="Read every tool with this library's rules (default: each form's own).",
)
@stdin_filename_option
@force_exclude_option
@click.option(
    "-q", "--quiet", is_flag=True, help="Do not print info diagnostics (forms left unchanged)."
)
@output_format_option()
@deprecated_option(
    "--diagnostics-format", "--output-format", "output_format", type=click.Choice(REPORT_FORMATS)
)
def fmt_cmd(
    files: tuple[str, ...],
    check: bool,
    diff: bool,
    in_place: bool,
    dialect: str | None,
    stdin_filename: str | None,
    force_exclude: bool,
    quiet: bool,
    output_format: str,
) -> None:
    """Lay out the tool forms of FILE... (- for stdin; the .el files of DIR) canonically.

    Only the blanks between tokens change: strings, comments and code stay as written."""
    from plistspec.cli._diff import print_diff
    from plistspec.cli._io import InputError, print_diagnostics, read_elisp, write_output
    from plistspec.cli._paths import input_files
    from plistspec.cli._rewrite import check_rewritable, rewrite_file

    files = files or (".",)  # as `ruff format`: the current folder
    if in_place and (check or diff):
        raise click.UsageError(
            f"{'--check' if check else '--diff'} and --in-place do not go together"
        )
    if in_place and "-" in files:
        raise click.UsageError("--in-place cannot rewrite standard input")
    files, folders = input_files(files, force_exclude=force_exclude)
    if folders and not (check or diff):
        if "-" in files:
            raise click.UsageError("a DIR is formatted in place: it cannot go with -")
        in_place = True  # as `ruff format DIR`: a folder's files are rewritten
    check = check or diff  # --diff writes nothing either; it shows what would change
    status = 0
    changed_files: list[str] = []
    unchanged = 0
    all_diags = []
    for path in files:
        try:
            name, text, layout, decoding = read_elisp(path, stdin_name=stdin_filename)
            if in_place:
                check_rewritable(path, name)
        except InputError as e:
            click.echo(str(e), err=True)
            status = 1
            continue
        if check:
            target = None
        elif in_place:
            target = name
        else:
            target = "<stdout>"
        data, changed, diags, error, new = _format_one(text, name, layout, dialect, target, diff)
        # invalid UTF-8: read as Emacs does (raw bytes, written back as they were), said once
        diags = decoding + [d for d in diags if not any(_same(d, w) for w in decoding)]
        if any(d.is_error for d in diags):
            status = 1
        if quiet:
            diags = [d for d in diags if d.severity != "info"]
        all_diags.extend(diags)
        if changed and not layout.exact:
            click.echo(
                f"{name}: error: cannot keep this file's mixed line endings (its coding "
                "cookie names an EOL type the file does not use consistently); not "
                "reformatted [PS902]",
                err=True,
            )
            status = 1
            if not in_place and not check:  # the file as it was, byte for byte
                data, error = (
                    ([layout.raw], None)
                    if layout.raw is not None
                    else (_encode_all([text], layout, target))
                )
            changed = False
        if check:
            if changed:
                changed_files.append(name)
                if diff:  # the file's own bytes: its BOM, line endings and raw bytes
                    print_diff(name, layout.encode(text), layout.encode(new or ""))
            else:
                unchanged += 1
            continue
        try:
            if in_place:
                if changed:
                    if error is not None:
                        raise error
                    rewrite_file(path, name, data, layout.state)
                    changed_files.append(name)
                else:
                    unchanged += 1
            else:
                if error is not None:
                    raise error
                write_output(data, None)
        except InputError as e:
            click.echo(str(e), err=True)
            status = 1
    print_diagnostics(all_diags, output_format)
    if check and changed_files:
        if not diff:
            for name in changed_files:
                click.echo(f"Would reformat: {name}", err=True)
        status = 1
    if check or in_place:
        click.echo(_summary(len(changed_files), unchanged, check), err=True)
    sys.exit(status)


def _files(n: int) -> str:
    return f"{n} file{'s' * (n != 1)}"


def _summary(changed: int, unchanged: int, check: bool) -> str:
    """ruff format's last line: ``2 files reformatted, 1 file left unchanged`` (with
    ``--check``/``--diff``: ``... would be reformatted, ... already formatted``)."""
    parts = []
    if check:
        if changed:
            parts.append(f"{_files(changed)} would be reformatted")
        if unchanged or not changed:
            parts.append(f"{_files(unchanged)} already formatted")
    else:
        if changed:
            parts.append(f"{_files(changed)} reformatted")
        if unchanged or not changed:
            parts.append(f"{_files(unchanged)} left unchanged")
    return ", ".join(parts)


def _format_one(
    text: str,
    name: str,
    layout: Layout,
    dialect: str | None,
    target: str | None,
    whole: bool = False,
) -> tuple[list[bytes] | None, bool, list, InputError | None, str | None]:
    """fmt of one input: ``(data, changed, diagnostics, error, new text)``. ``data``: the
    bytes to write (BOM and line endings of ``layout`` back; None when ``target`` is None,
    as for ``--check``); ``error``: an :class:`InputError` when the new text cannot be
    encoded (named ``target``). A big file goes through :mod:`plistspec.fmt.stream` (the
    same result in a fraction of the memory), encoded piece by piece, and its new text is
    None; ``whole`` (``--diff``, which needs the new text): never streamed."""
    from plistspec.core.diagnostics import locate
    from plistspec.fmt.stream import format_stream

    out = _Encoder(layout, target)
    from plistspec.elisp.embedded import elisp_view, literate

    # a .md/.org file: its blocks, whole
    plain = not literate(name) and elisp_view(name, text).text == text
    streamed = None if whole or not plain else format_stream(text, out.add, name, dialect)
    new: str | None = None
    if streamed is not None:
        changed, diags = streamed
        data = out.data
    else:
        from plistspec.fmt.rewrite import format_text

        new, diags = format_text(text, name, dialect)
        changed = new != text
        out = _Encoder(layout, target)
        out.add(new)
        data = out.data
        if not whole:
            new = None  # not kept: a big text is not held twice
    return data, changed, locate(diags, text, name), out.error, new


def _encode_all(
    pieces: list[str], layout: Layout, target: str | None
) -> tuple[list[bytes] | None, InputError | None]:
    out = _Encoder(layout, target)
    for p in pieces:
        out.add(p)
    return out.data, out.error


class _Encoder:
    """The bytes fmt writes, made from the new text's pieces as they come (``add``): the
    layout's line endings and BOM put back, UTF-8 with raw bytes kept. Nothing is kept
    when ``target`` is None; after a piece that cannot be encoded, ``error`` says so."""

    def __init__(self, layout: Layout, target: str | None) -> None:
        self.layout = layout
        self.target = target
        # chunks, never joined: one growing buffer can be copied whole as it grows
        self.data: list[bytes] | None = None if target is None else []
        self.error: InputError | None = None
        if self.data is not None and layout.bom:
            self.data.append("\ufeff".encode())

    def add(self, piece: str) -> None:
        if self.data is None or self.error is not None:
            return
        from plistspec.cli._io import InputError, encode_bytes
        from plistspec.elisp.eol import encode_eol

        try:
            self.data.append(encode_bytes(encode_eol(piece, self.layout.eol), self.target))
        except InputError as e:
            self.error = e
            self.data = None


def _same(d, w) -> bool:
    return d.code == w.code and d.start == w.start
