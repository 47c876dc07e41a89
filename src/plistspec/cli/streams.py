"""The standard streams of a ``plistspec`` process: made safe at start, and failures reported.

Owns: what happens when descriptor 0, 1 or 2 is closed, when standard output cannot be
written (``> /dev/full``, a closed pipe), and when a bug reaches the top (one line, exit
1, never a traceback). Used by the click group (:mod:`plistspec.cli.app`) and by the
editor's ``check --server`` loop, which starts without click.
"""

from __future__ import annotations

import atexit
import errno
import os
import sys
from typing import NoReturn

__all__ = [
    "ClosedStream",
    "STDOUT_ERRNOS",
    "StdoutFailed",
    "flush_stdout",
    "guard_std_streams",
    "internal_error",
    "out_of_memory",
    "report_stdout_failure",
]


def internal_error(e: BaseException) -> None:
    """A bug (or an exhausted resource) reached the top: one line, exit 1. With
    ``PLISTSPEC_TRACEBACK=1`` the traceback is shown instead, for a bug report."""
    if os.environ.get("PLISTSPEC_TRACEBACK"):
        raise e
    if isinstance(e, MemoryError):
        out_of_memory(e)
    text = f"{type(e).__name__}: {e}"
    if not text.isprintable():
        text = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    try:
        sys.stderr.write(
            f"plistspec: error: internal error ({text[:300]}); please report it "
            "(PLISTSPEC_TRACEBACK=1 shows where) [PS903]\n"
        )
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    sys.exit(1)


_OUT_OF_MEMORY = (
    b"plistspec: error: internal error (out of memory); please report it "
    b"(PLISTSPEC_TRACEBACK=1 shows where) [PS903]\n"
)


def out_of_memory(e: MemoryError) -> NoReturn:
    """Memory ran out: say so in one line and end the process at once.

    The frames that held the memory live on in the exception's traceback (and in the
    context of anything raised while handling it), so they are cleared first; the line
    is written with one ``os.write`` of prepared bytes; the exit handlers run (an Emacs
    daemon that ``serve --from-emacs`` started is stopped) and the process ends with
    ``os._exit``: an orderly exit (``SystemExit`` through the interpreter's shutdown)
    allocates, and on a machine still short of memory it failed with a traceback."""
    tb = e.__traceback__
    e.__traceback__ = None
    e.__context__ = None
    while tb is not None:
        try:
            tb.tb_frame.clear()
        except RuntimeError:  # a frame still running (this handler's callers)
            pass
        tb = tb.tb_next
    del tb
    try:
        sys.stderr.flush()
    except (OSError, ValueError, MemoryError):
        pass
    try:
        os.write(2, _OUT_OF_MEMORY)
    except OSError:
        pass
    try:
        atexit._run_exitfuncs()  # what the interpreter's own exit would run
    except BaseException:  # noqa: BLE001 - exiting anyway, and with nothing printed
        pass
    os._exit(1)


STDOUT_ERRNOS = {errno.EPIPE, errno.ENOSPC, errno.EBADF, errno.EIO, errno.EDQUOT, errno.EFBIG}


class StdoutFailed(Exception):
    """Flushing standard output failed (raised from the OSError)."""


class ClosedStream:
    """Stands for a standard stream that was closed when plistspec started: writing to
    it fails as writing to a closed descriptor does (EBADF)."""

    encoding = "utf-8"
    errors = "strict"

    def write(self, data) -> int:
        raise OSError(errno.EBADF, "Bad file descriptor")

    def flush(self) -> None:
        return None

    def isatty(self) -> bool:
        return False

    @property
    def buffer(self):
        return self


def guard_std_streams() -> None:
    """Make the standard streams safe to use. A closed descriptor 0, 1 or 2 gets
    ``/dev/null`` (so no file plistspec opens, and no child process, ever lands on it),
    read-only for 0 and 1: a closed stdout still fails on write (reported, not silently
    lost); a closed stderr is silent. Text streams escape what their encoding cannot hold (a lone surrogate,
    with ``PYTHONIOENCODING=utf-8:strict``) instead of failing."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            try:
                # Read-only on descriptor 1: whatever writes there (even through
                # os.dup(1)) fails with EBADF, as on the closed descriptor.
                null = os.open(os.devnull, os.O_RDONLY if fd < 2 else os.O_WRONLY)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)
            except OSError:
                pass
            if name == "stdout":
                sys.stdout = ClosedStream()  # type: ignore[assignment]
            elif name == "stderr":
                sys.stderr = open(os.devnull, "w")  # noqa: SIM115
            elif sys.stdin is None:
                sys.stdin = open(os.devnull)  # noqa: SIM115
    if sys.stdout is None:
        sys.stdout = ClosedStream()  # type: ignore[assignment]
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "") in FAILING_ERRORS:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # pragma: no cover - a stream already in use
                pass


# Error handlers that fail on a lone surrogate such as U+DC00 (surrogateescape encodes
# only U+DC80..U+DCFF): the streams escape instead.
FAILING_ERRORS = ("strict", "surrogateescape")


def flush_stdout() -> None:
    out = sys.stdout
    if out is None or isinstance(out, ClosedStream):
        return
    try:
        out.flush()
    except OSError as e:
        raise StdoutFailed from e
    except ValueError:  # closed by the command
        pass


def report_stdout_failure(e: BaseException | None) -> None:
    why = getattr(e, "strerror", None) or str(e) or "write failed"
    # Nothing more may reach the broken stream (not even at interpreter exit).
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        pass
    sys.stdout = ClosedStream()  # type: ignore[assignment]
    try:
        sys.stderr.write(f"plistspec: error: cannot write to standard output: {why} [PS902]\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    sys.exit(1)
