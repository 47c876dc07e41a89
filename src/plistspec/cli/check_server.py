"""``plistspec check --server``: one long-lived checker for an editor (Flymake).

Owns: the request loop and its framing. Starting Python and importing the checker costs
more than checking a 200 KB buffer, so an editor keeps one process and sends it each
buffer. Every request runs the ``check`` command itself in this process, with the
request's arguments, the buffer as its standard input and its standard output and error
captured, so a reply is byte for byte what ``plistspec check ARGS`` prints and its exit
status (whatever options ``check`` has, they work the same here).

Framing (all counts are bytes, text is UTF-8; one request at a time, in order):

* request: one line of JSON ``{"args": [...], "length": N}`` then exactly N bytes, the
  command's standard input (the buffer). ``args`` are ``check``'s arguments, e.g.
  ``["--format", "json", "--exit-zero", "--stdin-filename", "foo.el", "-"]``.
* reply: one line of JSON ``{"exit": STATUS, "stdout": M, "stderr": K}`` then exactly M
  bytes of standard output and K bytes of standard error.

A request line that is not valid gets ``{"exit": 2, "stdout": 0, "stderr": K}`` and a
message; the server goes on. End of input ends the server (exit 0). Nothing in a buffer
is ever evaluated.
"""

from __future__ import annotations

import io
import json
import sys
from typing import Any, BinaryIO

__all__ = ["serve", "run_once"]


def run_once(command: Any, args: list[str], stdin: bytes) -> tuple[int, bytes, bytes]:
    """``(status, stdout, stderr)`` of click ``command`` run with ``args`` on ``stdin``."""
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = io.BytesIO(), io.BytesIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", newline="", write_through=True)
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", newline="", write_through=True)
    status = 0
    try:
        command.main(args=list(args), prog_name="plistspec check", standalone_mode=True)
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except Exception as e:  # noqa: BLE001 - a failed request must not end the server
        sys.stderr.write(f"plistspec: internal error: {type(e).__name__}: {e}\n")
        status = 1
    finally:
        wrappers = (sys.stdin, sys.stdout, sys.stderr)
        sys.stdin, sys.stdout, sys.stderr = saved
        for s in wrappers:
            try:
                s.flush()
                s.detach()  # closing the wrapper must not close the buffers read below
            except (ValueError, AttributeError):  # the command closed or replaced it
                pass
    return status, out.getvalue(), err.getvalue()


def _reply(w: BinaryIO, status: int, out: bytes, err: bytes) -> None:
    head = json.dumps({"exit": status, "stdout": len(out), "stderr": len(err)})
    w.write(head.encode("utf-8") + b"\n" + out + err)
    w.flush()


def _read_exactly(r: BinaryIO, n: int) -> bytes | None:
    chunks, left = [], n
    while left > 0:
        b = r.read(left)
        if not b:
            return None
        chunks.append(b)
        left -= len(b)
    return b"".join(chunks)


def _widen_pipe(r: BinaryIO) -> None:
    """Let a whole buffer fit in the pipe ``r`` reads (Linux; elsewhere nothing happens).

    Emacs writes a request to a full pipe by waiting up to 20 ms and trying again, so a
    200 KB buffer through the default 64 KB pipe spends more time waiting than checking."""
    try:
        import fcntl

        fcntl.fcntl(r.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
    except (AttributeError, ImportError, OSError, ValueError, io.UnsupportedOperation):
        pass  # not a pipe, not Linux, or over the system's limit: the default pipe works


_PIPE_SIZE = 1 << 20  # Linux's default /proc/sys/fs/pipe-max-size for a user


def serve(command: Any, r: BinaryIO | None = None, w: BinaryIO | None = None) -> int:
    """Answer requests from ``r`` (default: standard input) on ``w`` (standard output)
    until end of input; returns the exit status of the server itself (0)."""
    r = r if r is not None else sys.stdin.buffer
    w = w if w is not None else sys.stdout.buffer
    _widen_pipe(r)
    while True:
        line = r.readline()
        if not line:
            return 0
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            args = req["args"]
            n = int(req.get("length", 0))
            if not (isinstance(args, list) and all(isinstance(a, str) for a in args)) or n < 0:
                raise ValueError("args must be a list of strings and length a count of bytes")
        except (ValueError, KeyError, TypeError) as e:
            _reply(w, 2, b"", f"plistspec check --server: bad request: {e}\n".encode())
            continue
        data = _read_exactly(r, n)
        if data is None:
            return 0
        from plistspec.core.gcpause import paused

        with paused():
            status, out, err = run_once(command, args, data)
        _reply(w, status, out, err)
