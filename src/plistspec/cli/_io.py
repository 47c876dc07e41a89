"""Shared plumbing of the commands: reading inputs, writing outputs atomically,
printing diagnostics.

Owns: how a path (or ``-`` for standard input) becomes text, how ``-o OUT`` is written
(to a temporary file in the same directory, then renamed, so nothing is ever half
written), and how diagnostics are printed (GNU ``file:line:col: severity: message
[CODE]`` on standard error, or a JSON array).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

import click

from plistspec.diagnostics import Diagnostic

__all__ = ["InputError", "read_text", "write_output", "print_diagnostics", "fail"]


class InputError(Exception):
    """An input could not be read: already a full message."""


def read_source(
    path: str, stdin_name: str | None = None
) -> tuple[str, str | None, Diagnostic | None]:
    """``(display_name, text, diagnostic)`` of ``path`` (``-`` is standard input).

    ``text`` is None when the file cannot be read (the diagnostic, PS901, says why). Text
    that is not valid UTF-8 is still returned, each invalid byte as a lone surrogate (one
    character, as the reader holds raw bytes), with a PS001 *warning* at the first one:
    callers that cannot go on treat it as an error. A leading byte-order mark is dropped,
    as Emacs drops it, so columns are the buffer's.
    """
    from plistspec.diagnostics import locate

    if path == "-":
        data = sys.stdin.buffer.read()
        name = stdin_name or "<stdin>"
    else:
        name = path
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            msg = f"cannot read: {e.strerror or e}"
            return name, None, Diagnostic("PS901", "error", msg, path=name)
    diag: Diagnostic | None = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        text = data.decode("utf-8", "surrogateescape")
        prefix = data[: e.start].decode("utf-8", "replace")
        diag = Diagnostic(
            "PS001",
            "warning",
            f"invalid UTF-8 (byte 0x{data[e.start]:02x}): Emacs reads this file as utf-8-emacs "
            "or Latin-1; the rest is read with the invalid bytes as raw bytes",
            len(prefix),
            len(prefix) + 1,
        )
    if text.startswith("\ufeff"):
        text = text[1:]
        if diag is not None:
            diag.start -= 1
            diag.end -= 1
    if diag is not None:
        diag = locate([diag], text, name)[0]
    return name, text, diag


def read_text(path: str, *, stdin_name: str | None = None) -> tuple[str, str]:
    """Return ``(display_name, text)`` of ``path`` (``-`` is standard input).

    Raises :class:`InputError` (a full ``file:line:col: error: ...`` message) when the
    file cannot be read or is not valid UTF-8.
    """
    name, text, diag = read_source(path, stdin_name)
    if diag is not None:
        diag.severity = "error"
        raise InputError(diag.render())
    assert text is not None
    return name, text


def write_output(text: str, out: str | None) -> None:
    """Write ``text`` to ``out`` atomically, or to standard output when ``out`` is None/``-``."""
    if out is None or out == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    import tempfile

    directory = os.path.dirname(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(prefix=".plistspec-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        try:
            mode = os.stat(out).st_mode & 0o777
        except OSError:
            mode = 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, out)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise InputError(f"{out}: error: cannot write: {e.strerror or e} [PS902]") from None


def print_diagnostics(diags: Iterable[Diagnostic], fmt: str = "gnu", stream=None) -> None:
    """Print diagnostics in an output format of :mod:`plistspec.report` (gnu, json...)."""
    from plistspec.report import render

    (stream if stream is not None else sys.stderr).write(render(list(diags), fmt))


def fail(message: str, code: int = 1) -> None:
    """Print a one-line error on standard error and exit."""
    click.echo(message, err=True)
    sys.exit(code)
