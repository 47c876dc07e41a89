"""``plistspec check --server``: one long-lived process for an editor (Flymake, gptel).

Owns: the request loop and its framing. Starting Python and importing the checker costs
more than checking a 200 KB buffer, so an editor keeps one process and sends it each
buffer. A ``check`` request runs the ``check`` command itself in this process, with the
request's arguments, the buffer as its standard input and its standard output and error
captured, so a reply is byte for byte what ``plistspec check ARGS`` prints and its exit
status (whatever options ``check`` has, they work the same here). ``plistspec-gptel-mode``
asks the same process two more kinds of question (:mod:`plistspec.calls.toolset`).

Framing (all counts are bytes, text is UTF-8; one request at a time, in order):

* request: one line of JSON (at most 1 MiB), then exactly N bytes (``length``, an integer
  from 0 to 1 GiB; 0 when absent):

  - ``{"args": [...], "length": N}`` (``"kind": "check"`` may be given): the N bytes are
    ``check``'s standard input (the buffer); ``args`` are its arguments, e.g.
    ``["--output-format", "json", "--exit-zero", "--stdin-filename", "foo.el", "-"]``;
  - ``{"kind": "lower", "backend": KIND, "length": N}``: the N bytes are the JSON of the
    tools gptel was about to send to a backend of KIND (``openai``, ``ollama``,
    ``anthropic``, ``gemini``, ``bedrock``...); ``"rewrites": true`` adds every rewrite;
    ``"contracts": M`` (0 < M <= N): the last M bytes are not part of the tools but a JSON
    array of each tool's declared parameters schema, its contract (``null``: the
    tool's own in the tools JSON), which its calls are checked against; ``"compact":
    true`` (or ``"reset"``) answers with ``elements`` instead of ``tools`` (each sent
    tool's entry, null when a compact answer gave that id before; ``wrap``: the key of
    the object holding them, or null);
  - ``{"kind": "call", "id": ID, "emacs": BOOL, "length": N}``: the N bytes are the
    JSON arguments of one call of the tool ID of a lowered set (``emacs``: they were
    written by Emacs, where ``null`` and ``{}`` are both nil).

  Any request may name a ``"file"`` (an absolute path) instead of sending its bytes:
  then ``length`` is 0 and the file's whole content is the N bytes (a client that must
  never block on a full pipe writes large data there; the client removes the file).

* reply: one line of JSON ``{"exit": STATUS, "stdout": M, "stderr": K}`` then exactly M
  bytes of standard output and K bytes of standard error. For ``lower`` and ``call`` the
  standard output is the answer as one JSON object (exit 0; see docs/emacs.md).

A request that is not valid (not JSON, an unknown kind, a length that is not such an
integer, a line over the limit, a ``lower``/``call`` payload that is not what it should
be) gets ``{"exit": 2, "stdout": 0, "stderr": K}`` and a message, and the server goes on
with the next line. End of input ends the server (exit 0). Nothing in a buffer is ever
evaluated.
"""

from __future__ import annotations

import io
import json
import sys
from typing import Any, BinaryIO

__all__ = ["main_server", "serve", "run_once"]


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
        b = r.read(min(left, _CHUNK))  # memory grows with what arrives, not with n
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
_CHUNK = 1 << 20
MAX_LINE = 1 << 20  # a request line
MAX_LENGTH = 1 << 30  # the bytes after it
KINDS = ("check", "lower", "call")


class BadRequest(ValueError):
    """A request line the server refuses (exit 2)."""


def parse_request(line: bytes) -> tuple[str, dict[str, Any], list[str], int]:
    """``(kind, request, args, length)`` of one request line; :class:`BadRequest` says
    what is wrong."""
    try:
        req = json.loads(line)
    except (ValueError, RecursionError) as e:
        raise BadRequest(f"not JSON: {str(e)[:200]}") from None
    if not isinstance(req, dict):
        raise BadRequest("a request is a JSON object")
    kind = req.get("kind", "check")
    if kind not in KINDS:
        raise BadRequest(f"unknown kind {str(kind)[:40]!r} (one of {', '.join(KINDS)})")
    n = req.get("length", 0)
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_LENGTH:
        raise BadRequest(f"length must be an integer from 0 to {MAX_LENGTH}, not {str(n)[:40]}")
    args: list[str] = []
    if kind == "check":
        args = req.get("args")
        if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
            raise BadRequest("args must be a list of strings")
    return kind, req, args, n


def _read_line(r: BinaryIO) -> bytes | None:
    """The next request line (None at end of input); a line over :data:`MAX_LINE` is
    read to its end and returned cut, so that it is refused as it should be."""
    line = r.readline(MAX_LINE + 1)
    if len(line) <= MAX_LINE or line.endswith(b"\n"):
        return line
    while True:  # drop the rest of the line
        more = r.readline(_CHUNK)
        if not more or more.endswith(b"\n"):
            return line[:MAX_LINE] + b"\n"


def main_server() -> None:
    """``plistspec check --server`` as the program (:func:`plistspec.cli.run`): the
    standard streams made safe, the lowering made ready while no request waits, then
    :func:`serve` until end of input; click is imported by the first ``check`` request."""
    from plistspec.cli.streams import guard_std_streams, internal_error

    guard_std_streams()
    try:
        sys.exit(serve(None, toolsets=warm_when_idle(sys.stdin.buffer)))
    except Exception as e:  # noqa: BLE001 - the last line of defence: never a traceback
        internal_error(e)


# one tool, lowered once at start so that the first real request finds the modules
# imported and the lowering's first-use work done
_WARM_TOOLS = (
    '[{"type":"function","function":{"name":"w","description":"w","parameters":'
    '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}}}]'
)


def warm_when_idle(r: BinaryIO) -> Any:
    """A :class:`~plistspec.calls.toolset.Toolsets` ready to answer, made now if nothing
    is waiting on ``r`` yet (an editor that starts the process ahead of its first
    request); None when a request is already there (it goes first: Flymake's check
    needs none of this) or the check cannot be made."""
    import select

    try:
        if select.select([r], [], [], 0)[0]:
            return None
    except (OSError, ValueError, TypeError, io.UnsupportedOperation):
        return None  # no telling whether a request waits: it may
    try:
        from plistspec.calls.toolset import Toolsets
        from plistspec.core.gcpause import paused

        with paused():
            Toolsets().lower("openai", _WARM_TOOLS)  # a throw-away set: nothing is kept
            return Toolsets()
    except Exception:  # noqa: BLE001 - getting ready early is an optimisation, never a failure
        return None


def serve(
    command: Any,
    r: BinaryIO | None = None,
    w: BinaryIO | None = None,
    toolsets: Any = None,
) -> int:
    """Answer requests from ``r`` (default: standard input) on ``w`` (standard output)
    until end of input; returns the exit status of the server itself (0).

    ``command`` is the click ``check`` command that ``check`` requests run (None: it is
    imported at the first one); ``toolsets`` the tool sets ``lower`` and ``call``
    requests use (None: made at the first one)."""
    r = r if r is not None else sys.stdin.buffer
    w = w if w is not None else sys.stdout.buffer
    _widen_pipe(r)
    while True:
        line = _read_line(r)
        if not line:
            return 0
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            _bad(w, f"a request line is at most {MAX_LINE} bytes")
            continue
        try:
            kind, req, args, n = parse_request(line)
        except BadRequest as e:
            _bad(w, str(e))
            continue
        data = _read_exactly(r, n)
        if data is None:
            return 0
        if "file" in req:
            try:
                data = _read_file(req["file"], n)
            except BadRequest as e:
                _bad(w, str(e))
                continue
        from plistspec.core.gcpause import paused

        with paused():
            if kind == "check":
                if command is None:
                    from plistspec.cli.check_cmd import check_cmd as command
                status, out, err = run_once(command, args, data)
            else:
                if toolsets is None:
                    from plistspec.calls.toolset import Toolsets

                    toolsets = Toolsets()
                status, out, err = _answer(toolsets, kind, req, data)
        _reply(w, status, out, err)


def _read_file(path: Any, n: int) -> bytes:
    """The content of the request's ``file`` (see the module)."""
    if not isinstance(path, str) or not path.startswith("/") or n:
        raise BadRequest('"file" must be an absolute path, with length 0')
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LENGTH + 1)
    except OSError as e:
        raise BadRequest(f"cannot read {path}: {e.strerror}") from None
    if len(data) > MAX_LENGTH:
        raise BadRequest(f"{path} is over {MAX_LENGTH} bytes")
    return data


def _contracts(req: dict, data: bytes) -> tuple[bytes, str | None]:
    """The tools' bytes and the contracts' text of a ``lower`` request's ``data``."""
    m = req.get("contracts")
    if m is None:
        return data, None
    if isinstance(m, bool) or not isinstance(m, int) or not 0 < m <= len(data):
        raise ValueError('"contracts" must be an integer from 1 to the length of the data')
    return data[:-m], data[-m:].decode("utf-8")


def _bad(w: BinaryIO, why: str) -> None:
    _reply(w, 2, b"", f"plistspec check --server: bad request: {why}\n".encode())


def _answer(toolsets: Any, kind: str, req: dict, data: bytes) -> tuple[int, bytes, bytes]:
    """A ``lower`` or ``call`` request answered: (status, JSON answer, message)."""
    try:
        if kind == "lower":
            tools, contracts = _contracts(req, data)
            answer = toolsets.lower(
                req.get("backend"),
                tools.decode("utf-8"),
                req.get("rewrites") is True,
                contracts,
                req.get("compact") if req.get("compact") in (True, "reset") else False,
            )
        else:
            answer = toolsets.call(req.get("id"), data.decode("utf-8"), req.get("emacs") is True)
    except (ValueError, RecursionError) as e:
        return 2, b"", f"plistspec check --server: bad {kind} request: {str(e)[:500]}\n".encode()
    except Exception as e:  # noqa: BLE001 - a failed request must not end the server
        return 1, b"", f"plistspec: internal error: {type(e).__name__}: {e}\n".encode()
    return 0, json.dumps(answer, ensure_ascii=False).encode("utf-8"), b""
