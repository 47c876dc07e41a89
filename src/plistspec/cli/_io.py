"""Shared plumbing of the commands: reading inputs, writing outputs atomically,
printing diagnostics.

Owns: how a path (or ``-`` for standard input) becomes text, how ``-o OUT`` is written
(to a temporary file in the same directory, then renamed, so nothing is ever half
written), and how diagnostics are printed (GNU ``file:line:col: severity: message
[CODE]`` on standard error, or a JSON array).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable

import click

from plistspec.diagnostics import Diagnostic

__all__ = ["InputError", "read_text", "write_output", "print_diagnostics", "fail"]


class InputError(Exception):
    """An input could not be read: already a full message."""


def read_text(path: str, *, stdin_name: str | None = None) -> tuple[str, str]:
    """Return ``(display_name, text)`` of ``path`` (``-`` is standard input).

    The text is decoded as UTF-8; invalid UTF-8 raises :class:`InputError` naming the
    line and column of the first bad byte.
    """
    if path == "-":
        data = sys.stdin.buffer.read()
        name = stdin_name or "<stdin>"
    else:
        name = path
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise InputError(f"{path}: error: cannot read: {e.strerror or e} [PS901]") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        before = data[: e.start]
        line = before.count(b"\n") + 1
        col = len(before[before.rfind(b"\n") + 1 :].decode("utf-8", "replace")) + 1
        raise InputError(
            f"{name}:{line}:{col}: error: invalid UTF-8 (byte 0x{data[e.start]:02x}) [PS001]"
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
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
    """Print diagnostics in GNU form (one per line) or as one JSON array."""
    stream = stream if stream is not None else sys.stderr
    diags = list(diags)
    if fmt == "json":
        stream.write(json.dumps([d.to_json() for d in diags], indent=2, ensure_ascii=False) + "\n")
        return
    for d in diags:
        stream.write(d.render() + "\n")


def fail(message: str, code: int = 1) -> None:
    """Print a one-line error on standard error and exit."""
    click.echo(message, err=True)
    sys.exit(code)
