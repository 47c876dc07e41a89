"""Shared plumbing of the commands: reading inputs, writing outputs atomically,
printing diagnostics.

Owns: how a path (or ``-`` for standard input) becomes text, how ``-o OUT`` is written
(to a temporary file in the same directory, then renamed, so nothing is ever half
written), and how diagnostics are printed (GNU ``file:line:col: severity: message
[CODE]`` on standard error, or a JSON array).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterable

import click

from plistspec.core.diagnostics import Diagnostic

__all__ = [
    "InputError",
    "Layout",
    "note_input",
    "read_source",
    "read_buffer",
    "read_text",
    "read_text_layout",
    "read_elisp",
    "write_output",
    "write_atomic",
    "encode_bytes",
    "write_stdout",
    "show_path",
    "print_diagnostics",
    "finish",
    "fail",
]


class InputError(Exception):
    """An input could not be read, or an output written: already a full message;
    ``reason`` is its short why (``the file is read-only``) where there is one."""

    def __init__(self, message: str, reason: str | None = None, code: str = "PS902") -> None:
        super().__init__(message)
        self.reason = reason
        self.code = code


class Layout:
    """How a file's text was stored: what :func:`read_source` undid and fmt puts back."""

    __slots__ = ("bom", "eol", "exact", "state", "raw")

    def __init__(self, bom: bool = False, eol: str = "unix") -> None:
        self.bom = bom
        self.eol = eol
        # the file as it was read (plistspec.cli._filestate.FileState), for rewriting it
        self.state = None
        # the bytes read, kept only when encoding the text does not give them back
        self.raw: bytes | None = None
        # False when encoding the decoded text does not give the file back (a coding
        # cookie forcing -dos on a file with bare LFs): fmt then does not rewrite it.
        self.exact = True

    def encode(self, text: str) -> str:
        """``text`` (as the reader saw it) with the file's BOM and line endings back."""
        from plistspec.elisp.eol import encode_eol

        text = encode_eol(text, self.eol)
        return "\ufeff" + text if self.bom else text


# (st_dev, st_ino) of every input file read in this run: -o never overwrites one.
_INPUTS: set[tuple[int, int]] = set()


def note_input(path: str) -> None:
    """Count the file ``path`` among this run's inputs (one read another way than
    :func:`read_buffer`, such as a module ``from-py`` imports): ``-o`` never replaces it."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return
    if stat.S_ISREG(st.st_mode):
        _INPUTS.add((st.st_dev, st.st_ino))


def show_path(path: str) -> str:
    """``path`` fit for a one-line message: undecodable bytes and control characters
    escaped (a name with a newline must not start a second line)."""
    if path.isprintable():
        return path
    out = []
    for c in path:
        if 0xDC80 <= ord(c) <= 0xDCFF:  # an undecodable byte (surrogateescape)
            out.append(f"\\x{ord(c) - 0xDC00:02x}")
        elif not c.isprintable() and c != " ":
            out.append(c.encode("unicode_escape", "backslashreplace").decode("ascii"))
        else:
            out.append(c)
    return "".join(out)


def read_source(
    path: str, stdin_name: str | None = None
) -> tuple[str, str | None, Diagnostic | None]:
    """``(display_name, text, diagnostic)`` of ``path`` (``-`` is standard input).

    ``text`` is None when the file cannot be read (the diagnostic, PS901, says why). Text
    that is not valid UTF-8 is still returned, each invalid byte as a lone surrogate (one
    character, as the reader holds raw bytes), with a PS001 *warning* at the first one:
    callers that cannot go on treat it as an error. The text is what Emacs's buffer holds
    after visiting the file: a leading byte-order mark is dropped and line endings are
    decoded (CRLF or CR alone become LF, :mod:`plistspec.elisp.eol`), so lines, columns
    and string values are Emacs's.
    """
    name, text, diag, _ = read_buffer(path, stdin_name)
    return name, text, diag


def read_buffer(
    path: str, stdin_name: str | None = None
) -> tuple[str, str | None, Diagnostic | None, Layout]:
    """:func:`read_source` plus the file's :class:`Layout` (BOM, line endings)."""
    from plistspec.core.diagnostics import locate

    layout = Layout()
    if path == "-":
        try:
            data = sys.stdin.buffer.read() if sys.stdin is not None else b""
        except OSError as e:
            msg = f"cannot read standard input: {e.strerror or e}"
            return stdin_name or "<stdin>", None, Diagnostic("PS901", "error", msg), layout
        name = show_path(stdin_name) if stdin_name else "<stdin>"
    else:
        name = show_path(path)
        try:
            # O_NONBLOCK: opening a FIFO nobody writes to does not hang (it reads as
            # empty); the descriptor is made blocking again before reading.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            with open(fd, "rb") as f:
                os.set_blocking(fd, True)
                st = os.fstat(fd)
                if stat.S_ISDIR(st.st_mode):
                    raise IsADirectoryError(21, "Is a directory")
                data = f.read()
        except (OSError, ValueError) as e:
            msg = f"cannot read: {getattr(e, 'strerror', None) or e}"
            return name, None, Diagnostic("PS901", "error", msg, path=name), layout
        _INPUTS.add((st.st_dev, st.st_ino))
        from plistspec.cli._filestate import file_state

        layout.state = file_state(path, st, data)
    from plistspec.elisp.source import buffer_text

    buf = buffer_text(data)
    text, diag = buf.text, buf.warning
    layout.bom, layout.eol, layout.exact = buf.bom, buf.eol, buf.exact
    if not buf.exact:
        layout.raw = data
    if diag is not None:
        diag = locate([diag], text, name)[0]
    return name, text, diag, layout


def read_text(path: str, *, stdin_name: str | None = None) -> tuple[str, str]:
    """Return ``(display_name, text)`` of ``path`` (``-`` is standard input).

    Raises :class:`InputError` (a full ``file:line:col: error: ...`` message) when the
    file cannot be read or is not valid UTF-8.
    """
    name, text, _ = read_text_layout(path, stdin_name=stdin_name)
    return name, text


def read_text_layout(path: str, *, stdin_name: str | None = None) -> tuple[str, str, Layout]:
    """:func:`read_text` plus the file's :class:`Layout`."""
    name, text, diag, layout = read_buffer(path, stdin_name)
    if diag is not None:
        diag.severity = "error"
        raise InputError(diag.render())
    assert text is not None
    return name, text, layout


def read_elisp(
    path: str, *, stdin_name: str | None = None
) -> tuple[str, str, Layout, list[Diagnostic]]:
    """``(display_name, text, layout, warnings)`` of an Emacs Lisp input: as
    :func:`read_text_layout`, but text that is not valid UTF-8 is read as Emacs reads it
    (each invalid byte a raw byte, :mod:`plistspec.elisp.source`) with its PS001
    *warning*. Raises :class:`InputError` only when the file cannot be read."""
    name, text, diag, layout = read_buffer(path, stdin_name)
    if text is None:
        assert diag is not None
        raise InputError(diag.render())
    return name, text, layout, [diag] if diag is not None else []


def json_not_elisp(name: str, text: str, command: str) -> Diagnostic | None:
    """A PS512 warning when a command that reads Emacs Lisp was given JSON (a ``.json``
    file, or text that starts like JSON and is JSON): read as Elisp it holds no tool,
    which would otherwise pass in silence. None otherwise."""
    i, n = 0, len(text)
    while i < n and text[i] in " \t\r\n\ufeff":  # no copy of a big text to look at it
        i += 1
    if not (name.endswith(".json") or text[i : i + 1] in ("{", "[")):
        return None
    from plistspec.core.jsontext import JsonError, load_json

    try:
        load_json(text)
    except JsonError as e:
        if not e.too_deep:  # (JSON nested past the limit is JSON all the same)
            return None
    return Diagnostic(
        "PS512",
        "warning",
        f"this is JSON, not Emacs Lisp: {command} reads tool forms from .el files; for tool "
        "JSON use `plistspec from-json` (Elisp) or `plistspec to-json -t TARGET --lower` "
        "(JSON for one provider)",
        0,
        min(1, len(text)),
        path=name,
    )


def encode_bytes(text: str, shown: str) -> bytes:
    """UTF-8 bytes of ``text``; raw bytes (lone surrogates U+DC80..U+DCFF, as read from
    a file that is not valid UTF-8) are written back as those bytes."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as e:
        raise InputError(
            f"{shown}: error: cannot write: the output holds a character that has no UTF-8 "
            f"encoding (U+{ord(text[e.start]):04X}) [PS902]"
        ) from None


def _write_all(f, data: bytes | bytearray | list[bytes]) -> None:
    """Write ``data`` (bytes, or a list of chunks: a big output is never joined) to ``f``."""
    for chunk in data if isinstance(data, list) else (data,):
        f.write(chunk)


def write_stdout(data: bytes | bytearray | list[bytes]) -> None:
    """Write ``data`` (bytes or a list of chunks) to standard output (errors reach the
    CLI's one handler)."""
    out = sys.stdout
    if out is None:
        raise OSError(errno.EBADF, "standard output is closed")
    out.flush()
    buf = getattr(out, "buffer", None)
    if buf is None:  # a text stream without bytes underneath (a test harness)
        for chunk in data if isinstance(data, list) else (data,):
            out.write(chunk.decode("utf-8", "surrogateescape"))
    else:
        _write_all(buf, data)
        buf.flush()


def write_output(text: str | bytes | bytearray | list[bytes], out: str | None) -> None:
    """Write ``text`` to ``out`` atomically, or to standard output when ``out`` is None/``-``.

    ``text`` may be the UTF-8 bytes already (as :func:`encode_bytes` makes them), or a
    list of such chunks.

    ``out`` must be a regular file or not exist; a symbolic link is followed to the regular
    file it names (the link stays, its target is replaced), unless the kernel's
    ``fs.protected_symlinks`` would not follow it (:mod:`._links`); a dangling link, a link into
    /dev, /proc or /sys, a directory, a device, a FIFO or socket, a read-only file and
    any file read as input in this run are refused
    (:class:`InputError`, PS902). The text goes to a temporary file in the target's
    directory that is renamed over the target (the old file's mode and, where allowed,
    owner kept); on any failure the temporary file is removed and the target is untouched.
    """
    if out is None or out == "-":
        write_stdout(text if not isinstance(text, str) else encode_bytes(text, "<stdout>"))
        return
    shown = show_path(out)
    target = _output_target(out, shown)
    write_atomic(target, text if not isinstance(text, str) else encode_bytes(text, shown), shown)


def _refuse(shown: str, why: str, verb: str = "write") -> InputError:
    return InputError(f"{shown}: error: cannot {verb}: {why} [PS902]", why)


def _output_target(out: str, shown: str) -> str:
    """The regular file (or new path) that ``-o out`` writes, or InputError."""
    from plistspec.cli._links import protected_link

    why = protected_link(out)
    if why is not None:
        raise _refuse(shown, why)
    try:
        lst = os.lstat(out)
    except FileNotFoundError:
        return out
    except OSError as e:
        raise _refuse(shown, e.strerror or str(e)) from None
    target = out
    if stat.S_ISLNK(lst.st_mode):
        target = _follow_links(out, shown)
        try:
            st = os.stat(target)
        except OSError:
            raise _refuse(shown, "it is a symbolic link to a file that does not exist") from None
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(shown, "it is a symbolic link to something other than a regular file")
    else:
        st = lst
    if stat.S_ISDIR(st.st_mode):
        raise _refuse(shown, "it is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(shown, "it is not a regular file (a device, FIFO or socket); use - or a file")
    if (st.st_dev, st.st_ino) in _INPUTS or (st.st_dev, st.st_ino) in _argv_inputs():
        raise _refuse(shown, "it is an input file of this command")
    if not st.st_mode & 0o222:
        raise _refuse(shown, "the file is read-only (make it writable first)")
    return target


_SPECIAL_DIRS = ("/proc/", "/dev/", "/sys/")


def _follow_links(path: str, shown: str) -> str:
    """The file a chain of symbolic links ends at. A link into ``/proc``, ``/dev`` or
    ``/sys`` (``/dev/stdout``, ``/proc/self/fd/1``: whatever the process's descriptors
    are) is refused, as is a loop."""
    p = os.path.abspath(path)
    for _ in range(40):
        try:
            link = os.readlink(p)
        except OSError:
            break  # not a link (any more): p is the end of the chain
        p = os.path.normpath(os.path.join(os.path.dirname(p), link))
        if p.startswith(_SPECIAL_DIRS) or os.path.realpath(p).startswith(_SPECIAL_DIRS):
            raise _refuse(shown, "it is a symbolic link into /dev, /proc or /sys")
    else:
        raise _refuse(shown, "too many levels of symbolic links")
    return os.path.realpath(p)


def _argv_inputs() -> set[tuple[int, int]]:
    """(st_dev, st_ino) of the files the command line names as inputs: every argument but
    the ``-o`` value, also ``FILE:function`` targets (``from-py m.py:f -o m.py`` must not
    replace the module it reads, which it imports rather than reads through here)."""
    found: set[tuple[int, int]] = set()
    args = sys.argv[1:]
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "--output"):
            skip = True
            continue
        if a.startswith("--output=") or (a.startswith("-o") and not a.startswith("--")):
            continue
        for cand in (a, a.rsplit(":", 1)[0]) if ":" in a else (a,):
            try:
                st = os.stat(cand)
            except (OSError, ValueError):
                continue
            if stat.S_ISREG(st.st_mode):
                found.add((st.st_dev, st.st_ino))
    return found


def write_atomic(
    target: str,
    data: bytes | bytearray | list[bytes],
    shown: str,
    keep: os.stat_result | None = None,
) -> None:
    """Replace ``target`` by ``data`` through a temporary file in its directory.

    The new file gets ``keep``'s (else the existing file's) permission bits, including
    setuid/setgid/sticky, and its owner and group where the system allows. The
    temporary file never outlives a failure."""
    import tempfile

    directory = os.path.dirname(os.path.abspath(target))
    if keep is None:
        try:
            keep = os.stat(target)
        except OSError:
            keep = None
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".plistspec-", suffix=".tmp", dir=directory)
        with os.fdopen(fd, "wb") as f:
            _write_all(f, data)
            f.flush()
            os.fsync(f.fileno())
        if keep is not None:
            try:
                os.chown(tmp, keep.st_uid, keep.st_gid)
            except OSError:
                try:
                    os.chown(tmp, -1, keep.st_gid)
                except OSError:
                    pass
            os.chmod(tmp, stat.S_IMODE(keep.st_mode))  # after chown, which clears setgid
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
        tmp = None
    except (OSError, ValueError) as e:
        raise _refuse(shown, getattr(e, "strerror", None) or str(e)) from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def print_diagnostics(diags: Iterable[Diagnostic], fmt: str = "gnu", stream=None) -> None:
    """Print diagnostics in an output format of :mod:`plistspec.checking.report` (gnu, json...)."""
    from plistspec.core.formats import report_is_empty

    diags = list(diags)
    if report_is_empty(len(diags), fmt):
        return  # nothing to print: not even the report module is loaded
    from plistspec.checking.report import render

    (stream if stream is not None else sys.stderr).write(render(diags, fmt))


def finish(
    diags: list[Diagnostic], diagnostics_format: str, output, out: str | None, failed: bool = False
) -> None:
    """The end of a command that writes one output: print the diagnostics; when one is an
    error (or ``failed``) exit 1 with nothing written; else write ``output`` (text, or a
    function making it, called only then) to ``out`` atomically, exiting 1 if it cannot be."""
    print_diagnostics(diags, diagnostics_format)
    if failed or any(d.is_error for d in diags):
        sys.exit(1)
    try:
        write_output(output() if callable(output) else output, out)
    except InputError as e:
        sys.stderr.write(str(e) + "\n")
        sys.exit(1)


def fail(message: str, code: int = 1) -> None:
    """Print a one-line error on standard error and exit."""
    click.echo(message, err=True)
    sys.exit(code)
