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
    from plistspec.cli._io import InputError, print_diagnostics, read_text_layout, write_output
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
                _check_writable(path, name)
        except InputError as e:
            click.echo(str(e), err=True)
            status = 1
            continue
        new, diags = format_text(text, name, dialect, keep=_errors_of_check(text, name, dialect))
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
                    _rewrite(path, name, layout.encode(new))
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


def _errors_of_check(text: str, name: str, dialect: str | None):
    """``keep`` for :func:`plistspec.fmt.format_text`: a form that ``check`` reports an
    error in is left alone (``check`` runs once, only when some form would change)."""
    errors: list[int] | None = None

    def keep(start: int, end: int) -> str | None:
        nonlocal errors
        if errors is None:
            from plistspec.checker import check_text

            errors = [d.start for d in check_text(text, name, None, dialect) if d.is_error]
        if any(start <= e < end for e in errors):
            return "`plistspec check` reports an error in it (fix that first)"
        return None

    return keep


def _check_writable(path: str, name: str) -> None:
    """Refuse to rewrite what is not a writable regular file (before any work)."""
    import os
    import stat

    from plistspec.cli._io import InputError

    st = os.stat(path)  # read_text_layout just opened it
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{name}: error: cannot rewrite: not a regular file [PS902]")
    if not st.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise InputError(
            f"{name}: error: cannot rewrite: the file is read-only (make it writable "
            "first, or write elsewhere without -i) [PS902]"
        )


def _rewrite(path: str, name: str, text: str) -> None:
    """Replace the file ``path`` (after symbolic links) by ``text``, keeping what the
    file is: its mode (setuid/setgid too), owner and group where allowed, its BOM and
    line endings (``text`` already carries them), and its hard links.

    A file with one link is replaced atomically (temporary file + rename, through
    :func:`plistspec.cli._io.write_atomic`); a symbolic link keeps pointing at its target,
    whose content is replaced. A file with several hard links is written in place through
    the same inode (so every name sees the new text), and so is a file owned by another
    user (a replacement could not be given back its owner); if that write fails the old
    content is written back."""
    import os

    from plistspec.cli._io import InputError, _encode, write_atomic

    data = _encode(text, name)
    target = os.path.realpath(path)
    st = os.stat(target)
    euid = os.geteuid()
    if st.st_nlink <= 1 and (euid == 0 or st.st_uid == euid):
        write_atomic(target, data, name, keep=st)
        return
    # Several links, or another user's file (a new file could not get its owner back):
    # the same inode is rewritten, which keeps links, owner, group and mode.
    try:
        with open(target, "r+b") as f:
            old = f.read()
            try:
                f.seek(0)
                f.write(data)
                f.truncate()
                f.flush()
                os.fsync(f.fileno())
            except OSError:
                f.seek(0)
                f.write(old)
                f.truncate()
                f.flush()
                raise
    except OSError as e:
        raise InputError(f"{name}: error: cannot rewrite: {e.strerror or e} [PS902]") from None
