"""Talking to a running Emacs through its server socket (what ``emacsclient --eval`` does).

Owns: finding the socket of a server name (Emacs 28's rules: an absolute name is the
socket itself, otherwise ``$EMACS_SOCKET_NAME``, ``$XDG_RUNTIME_DIR/emacs/NAME`` or
``${TMPDIR:-/tmp}/emacsUID/NAME``), the server protocol (``-eval EXPR`` quoted with
``&``-escapes; the answer ``-emacs-pid``, ``-print``/``-print-nonl`` chunks or
``-error``), loading ``elisp/plistspec-serve.el`` into that Emacs, and one request:
a JSON object printed as an Elisp string literal by :mod:`plistspec.elisp.printer`,
answered by ``plistspec-serve-request`` with base64-encoded UTF-8 JSON (a long answer:
``@FILE``, a file only this user can read, deleted once read — Emacs's own
``server-reply-print`` is quadratic in the length of what it prints).

Speaking the protocol directly over the socket costs well under a millisecond per
request, where spawning ``emacsclient`` costs several (see ``bench/bench_serve.py``).
Every wait has a timeout; a socket that cannot be reached is :class:`EmacsUnavailable`.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

__all__ = [
    "EmacsError",
    "EmacsUnavailable",
    "EmacsClient",
    "socket_path",
    "elisp_file",
    "PROTOCOL_VERSION",
]

PROTOCOL_VERSION = "1"


class EmacsError(Exception):
    """Emacs answered with an error (a message from Emacs, already readable)."""


class EmacsUnavailable(EmacsError):
    """The Emacs server could not be reached or did not answer in time."""


def _auth_dirs() -> list[str]:
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    return [os.path.join(home, ".emacs.d", "server"), os.path.join(xdg, "emacs", "server")]


def socket_path(name: str | None = None) -> str:
    """The socket file of Emacs server ``name`` (default ``server``), as emacsclient finds it.

    For a TCP server (``server-use-tcp``), its server file (``server-auth-dir/NAME``:
    ``HOST:PORT PID`` and the key) when no local socket of that name exists; a path
    names either."""
    if name and ("/" in name):
        return os.path.abspath(name)
    local = _local_socket(name)
    if not os.path.exists(local) and not os.environ.get("EMACS_SOCKET_NAME"):
        if name in (None, "", "server") and os.environ.get("EMACS_SERVER_FILE"):
            return os.path.abspath(os.environ["EMACS_SERVER_FILE"])
        for d in _auth_dirs():
            f = os.path.join(d, name or "server")
            if os.path.isfile(f):
                return f
    return local


def _local_socket(name: str | None) -> str:
    if name in (None, "", "server") and os.environ.get("EMACS_SOCKET_NAME"):
        return os.environ["EMACS_SOCKET_NAME"]
    name = name or "server"
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        candidate = os.path.join(runtime, "emacs", name)
        if os.path.exists(candidate):
            return candidate
    tmp = os.environ.get("TMPDIR") or "/tmp"
    legacy = os.path.join(tmp, f"emacs{os.getuid()}", name)
    if runtime and not os.path.exists(legacy):
        return os.path.join(runtime, "emacs", name)
    return legacy


def elisp_file() -> Path:
    """``plistspec-serve.el``: ``$PLISTSPEC_ELISP_DIR``, else the copy installed with this
    package (package data beside this module; ``elisp/plistspec-serve.el`` of a checkout
    is a symbolic link to it, for ``load-path`` users)."""
    env = os.environ.get("PLISTSPEC_ELISP_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parent)
    for d in candidates:
        f = d / "plistspec-serve.el"
        if f.is_file():
            return f
    raise EmacsError(
        "cannot find plistspec-serve.el: set PLISTSPEC_ELISP_DIR to plistspec's elisp/ folder"
    )


def _quote(arg: str) -> str:
    return arg.replace("&", "&&").replace("-", "&-").replace("\n", "&n").replace(" ", "&_")


def _unquote(arg: str) -> str:
    out = []
    i = 0
    while i < len(arg):
        c = arg[i]
        if c == "&" and i + 1 < len(arg):
            nxt = arg[i + 1]
            out.append({"&": "&", "-": "-", "n": "\n"}.get(nxt, " "))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


class EmacsClient:
    """One Emacs server; each :meth:`eval` is one connection (as emacsclient makes)."""

    def __init__(self, socket_file: str, timeout: float = 30.0) -> None:
        self.socket_file = socket_file
        self.timeout = timeout
        self.pid: int | None = None

    def eval(self, expr: str, timeout: float | None = None) -> str:
        """Evaluate the Elisp text ``expr``; return what Emacs printed (``pp`` of the value)."""
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        auth = ""
        try:
            if os.path.isfile(self.socket_file):  # a TCP server's file: HOST:PORT PID\nKEY
                with open(self.socket_file, "rb") as f:
                    first, _, key = f.read().decode("latin-1").partition("\n")
                host, _, port = first.split(" ")[0].rpartition(":")
                s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
                address: object = (host.strip("[]"), int(port))
                auth = f"-auth {key.strip()} "
            else:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                address = self.socket_file
        except (OSError, ValueError) as e:
            raise EmacsUnavailable(
                f"cannot read the Emacs server file {self.socket_file}: {e}"
            ) from None
        try:
            s.settimeout(limit)
            try:
                s.connect(address)
            except OSError as e:
                raise EmacsUnavailable(
                    f"cannot reach the Emacs server at {self.socket_file}: {e.strerror or e} "
                    "(is Emacs running with (server-start)?)"
                ) from None
            s.sendall((auth + "-eval " + _quote(expr) + "\n").encode("utf-8"))
            chunks: list[bytes] = []
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise EmacsUnavailable(f"Emacs did not answer within {limit:g} s")
                s.settimeout(left)
                try:
                    data = s.recv(65536)
                except TimeoutError:
                    raise EmacsUnavailable(f"Emacs did not answer within {limit:g} s") from None
                except OSError as e:
                    raise EmacsUnavailable(f"the Emacs server connection failed: {e}") from None
                if not data:
                    break
                chunks.append(data)
        finally:
            s.close()
        return self._parse(b"".join(chunks).decode("utf-8", "replace"))

    def _parse(self, text: str) -> str:
        printed: list[str] = []
        error: str | None = None
        for line in text.split("\n"):
            if not line:
                continue
            cmd, _, arg = line.partition(" ")
            if cmd == "-emacs-pid":
                try:
                    self.pid = int(arg)
                except ValueError:
                    pass
            elif cmd == "-print":
                printed.append("\n" + _unquote(arg) if printed else _unquote(arg))
            elif cmd == "-print-nonl":
                printed.append(_unquote(arg))
            elif cmd == "-error":
                error = _unquote(arg).strip()
        if error is not None:
            raise EmacsError(f"Emacs signalled an error: {error}")
        if not printed:
            raise EmacsUnavailable("the Emacs server closed the connection without an answer")
        return "".join(printed)

    def request(self, payload: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """Send ``payload`` to ``plistspec-serve-request``; return its JSON reply."""
        from plistspec.elisp.printer import print_string

        arg = print_string(json.dumps(payload, ensure_ascii=True))
        out = self.eval(f"(plistspec-serve-request {arg})", timeout).strip()
        if not (len(out) >= 2 and out[0] == '"' and out[-1] == '"'):
            raise EmacsError(f"unexpected answer from Emacs: {out[:200]}")
        body = out[1:-1]
        if body.startswith("@"):  # a long reply, in a file only this user can read
            path = body[1:].replace('\\"', '"').replace("\\\\", "\\")
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise EmacsError(f"cannot read Emacs's reply {path}: {e.strerror or e}") from None
            finally:
                try:
                    os.unlink(path)
                except OSError:
                    pass
            return json.loads(data.decode("utf-8"))
        return json.loads(base64.b64decode(body).decode("utf-8"))

    def ensure_loaded(self, timeout: float | None = None, shims: bool = False) -> dict[str, Any]:
        """Load ``plistspec-serve.el`` unless this protocol version is there; return hello.

        ``shims``: also define gptel's/llm's constructors where they are not installed
        and record every tool made from now on (plistspec's own Emacs only)."""
        import hashlib

        from plistspec.elisp.printer import print_string

        f = elisp_file()
        digest = hashlib.sha1(f.read_bytes()).hexdigest()[:16]
        path = print_string(str(f))
        self.eval(
            "(progn (unless (and (equal (bound-and-true-p plistspec-serve-version) "
            f'"{PROTOCOL_VERSION}") (equal (get \'plistspec-serve-version \'hash) "{digest}")) '
            f"(load {path} nil t t) (put 'plistspec-serve-version 'hash \"{digest}\")) "
            + ("(plistspec-serve-install-shims) " if shims else "")
            + "t)",
            timeout,
        )
        return self.request({"op": "hello"}, timeout)
