"""The command line: the only place that reads files, prints and exits.

Owns: the ``plistspec`` click group and the wiring of its commands. Each command lives in
its own small module here, imported only when that command runs (a lazy group), and each
imports the heavy parts of the library only inside its function, so ``plistspec --help``
and ``plistspec to-json`` start about as fast as ``import click``.

Exit codes: 0 success, 1 the input had errors (nothing written), 2 usage errors.

The group's :meth:`LazyGroup.main` is the one place that handles a standard output that
cannot be written (``> /dev/full``, a closed stdout ``>&-``, a closed pipe) for every
command: one line on standard error, exit 1, no traceback. Messages on standard error
and text on standard output never fail to encode (a lone surrogate is escaped).

Layer 10, the top, of docs/architecture.md: may import everything (the library API
:mod:`plistspec.api` included); nothing imports it.
"""

from __future__ import annotations

import errno
import os
import sys
from importlib import import_module

import click

__all__ = ["main"]

# command name -> (module, attribute); modules are imported on first use.
COMMANDS: dict[str, tuple[str, str]] = {
    "to-json": ("plistspec.cli.to_json_cmd", "to_json_cmd"),
    "from-json": ("plistspec.cli.from_json_cmd", "from_json_cmd"),
    "from-py": ("plistspec.cli.from_py_cmd", "from_py_cmd"),
    "call": ("plistspec.cli.from_py_cmd", "call_cmd"),
    "worker": ("plistspec.cli.from_py_cmd", "worker_cmd"),
    "check": ("plistspec.cli.check_cmd", "check_cmd"),
    "fmt": ("plistspec.cli.fmt_cmd", "fmt_cmd"),
    "explain": ("plistspec.cli.explain_cmd", "explain_cmd"),
    "serve": ("plistspec.cli.serve_cmd", "serve_cmd"),
    "emacs-path": ("plistspec.cli.emacs_path_cmd", "emacs_path_cmd"),
}


class LazyGroup(click.Group):
    """A group that imports a command's module only when the command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        return getattr(import_module(spec[0]), spec[1])

    def resolve_command(self, ctx: click.Context, args: list[str]):  # type: ignore[override]
        """A misspelt command is a usage error with a did-you-mean (``tojson`` → to-json),
        as a misspelt option is."""
        name = click.utils.make_str(args[0])
        if name not in COMMANDS and not name.startswith("-"):
            ctx.fail(f"No such command {name!r}.{did_you_mean(name, PUBLIC_COMMANDS)}")
        return super().resolve_command(ctx, args)

    def main(self, *args, **kwargs):  # type: ignore[override]
        """Run the command; a failing standard output is one message and exit 1."""
        _guard_std_streams()
        try:
            try:
                return super().main(*args, **kwargs)
            finally:
                _flush_stdout()
        except _StdoutFailed as e:
            _report_stdout_failure(e.__cause__)
        except OSError as e:
            if e.filename is None and e.errno in _STDOUT_ERRNOS:
                _report_stdout_failure(e)
            _internal_error(e)
        except Exception as e:  # noqa: BLE001 - the last line of defence: never a traceback
            _internal_error(e)


# what a did-you-mean may suggest (worker is the bridge's, not the user's)
PUBLIC_COMMANDS = tuple(c for c in COMMANDS if c != "worker")


def did_you_mean(word: str, choices) -> str:
    """`` Did you mean 'X'?`` (or `` (Possible options: ...)``) for the choices close to
    ``word`` -- ignoring case and the dashes people leave out -- or ``""``."""
    import difflib

    def key(s: str) -> str:
        return s.lower().replace("-", "").replace("_", "")

    keyed = {key(c): c for c in choices}
    if key(word) in keyed:
        return f" Did you mean {keyed[key(word)]!r}?"
    close = [keyed[k] for k in difflib.get_close_matches(key(word), list(keyed), n=3, cutoff=0.6)]
    if not close:
        return ""
    if len(close) == 1:
        return f" Did you mean {close[0]!r}?"
    return f" (Possible options: {', '.join(close)})"


def _internal_error(e: BaseException) -> None:
    """A bug (or an exhausted resource) reached the top: one line, exit 1. With
    ``PLISTSPEC_TRACEBACK=1`` the traceback is shown instead, for a bug report."""
    if os.environ.get("PLISTSPEC_TRACEBACK"):
        raise e
    text = "out of memory" if isinstance(e, MemoryError) else f"{type(e).__name__}: {e}"
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


_STDOUT_ERRNOS = {errno.EPIPE, errno.ENOSPC, errno.EBADF, errno.EIO, errno.EDQUOT, errno.EFBIG}


class _StdoutFailed(Exception):
    """Flushing standard output failed (raised from the OSError)."""


class _ClosedStream:
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


def _guard_std_streams() -> None:
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
                sys.stdout = _ClosedStream()  # type: ignore[assignment]
            elif name == "stderr":
                sys.stderr = open(os.devnull, "w")  # noqa: SIM115
            elif sys.stdin is None:
                sys.stdin = open(os.devnull)  # noqa: SIM115
    if sys.stdout is None:
        sys.stdout = _ClosedStream()  # type: ignore[assignment]
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "") in _FAILING_ERRORS:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # pragma: no cover - a stream already in use
                pass


# Error handlers that fail on a lone surrogate such as U+DC00 (surrogateescape encodes
# only U+DC80..U+DCFF): the streams escape instead.
_FAILING_ERRORS = ("strict", "surrogateescape")


def _flush_stdout() -> None:
    out = sys.stdout
    if out is None or isinstance(out, _ClosedStream):
        return
    try:
        out.flush()
    except OSError as e:
        raise _StdoutFailed from e
    except ValueError:  # closed by the command
        pass


def _report_stdout_failure(e: BaseException | None) -> None:
    why = getattr(e, "strerror", None) or str(e) or "write failed"
    # Nothing more may reach the broken stream (not even at interpreter exit).
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        pass
    sys.stdout = _ClosedStream()  # type: ignore[assignment]
    try:
        sys.stderr.write(f"plistspec: error: cannot write to standard output: {why} [PS902]\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    sys.exit(1)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="plistspec")
def main() -> None:
    """Compile LLM tool specs between Emacs Lisp (gptel, llm) and provider / MCP JSON.

    `plistspec COMMAND --help` describes each command; `plistspec explain CODE` a diagnostic.
    """
