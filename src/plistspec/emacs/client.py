"""Talking to a running Emacs through its server socket (what ``emacsclient --eval`` does).

Owns: finding the socket of a server name (Emacs 28's rules: an absolute name is the
socket itself, otherwise ``$EMACS_SOCKET_NAME``, ``$XDG_RUNTIME_DIR/emacs/NAME`` or
``${TMPDIR:-/tmp}/emacsUID/NAME``), trusting it only as Emacs itself would (the socket
and its folder owned by this user, the folder closed to others: what ``server.el``
demands of its socket folder and ``emacsclient`` checks, "Invalid permissions on parent
directory"; a TCP server file owned by this user and writable by no one else), the
server protocol (``-eval EXPR`` quoted with ``&``-escapes; the answer ``-emacs-pid``,
``-print``/``-print-nonl`` chunks or ``-error``), and one request: a JSON object printed
as an Elisp string literal by :mod:`plistspec.elisp.printer`, answered by
``plistspec-serve-request`` with base64-encoded UTF-8 JSON.

Every request installs the helper (``plistspec-serve.el`` and the parts it requires,
:data:`ELISP_FILES`) on demand, in the same round trip: the expression checks that this
version of the files is loaded there and loads them, in order, if not (a restarted
Emacs, a file updated since), then asks; a reply saying the helper is missing anyway
is retried once after an explicit load.

A long answer comes as ``@FILE``: Emacs's own ``server-reply-print`` is quadratic in
the length of what it prints, so Emacs writes it to a new file in a folder this client
created for itself (``mkdtemp``, 0700) and named in the request. Only a file directly in
that folder is read, then deleted: a reply naming any other file is refused, untouched.

Speaking the protocol directly over the socket costs well under a millisecond per
request, where spawning ``emacsclient`` costs several (see ``bench/bench_serve.py``).
The blocking :meth:`EmacsClient.eval`/:meth:`~EmacsClient.request` serve the commands;
:meth:`~EmacsClient.arequest` is the same over asyncio streams for the server, so that
a cancelled call closes its connection and nothing waits in a thread. Every wait has a
timeout; a socket that cannot be reached or is not trusted is :class:`EmacsUnavailable`.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = [
    "EmacsError",
    "EmacsUnavailable",
    "EmacsClient",
    "socket_path",
    "elisp_files",
    "ELISP_FILES",
    "PROTOCOL_VERSION",
]

PROTOCOL_VERSION = "2"


class EmacsError(Exception):
    """Emacs answered with an error (a message from Emacs, already readable)."""


class EmacsUnavailable(EmacsError):
    """The Emacs server could not be reached or did not answer in time. ``sent`` says
    whether the request may have reached Emacs (False: refused before connecting)."""

    def __init__(self, message: str, sent: bool = True) -> None:
        super().__init__(message)
        self.sent = sent


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


# The Elisp half, in the order it is loaded: each file requires only those before it, so
# loading them in this order by file name never searches the user's `load-path' (where
# another version of plistspec may be installed).
ELISP_FILES = (
    "plistspec-serve-reply.el",
    "plistspec-serve-tool.el",
    "plistspec-serve-record.el",
    "plistspec-serve-index.el",
    "plistspec-serve-call.el",
    "plistspec-serve-export.el",
    "plistspec-serve.el",
)


def elisp_files() -> list[Path]:
    """The :data:`ELISP_FILES`, all from one folder: ``$PLISTSPEC_ELISP_DIR``, else the copy
    installed with this package (package data beside this module; each ``elisp/`` file of
    a checkout is a symbolic link to it, for ``load-path`` users)."""
    env = os.environ.get("PLISTSPEC_ELISP_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parent)
    for d in candidates:
        files = [d / name for name in ELISP_FILES]
        if all(f.is_file() for f in files):
            return files
    raise EmacsError(
        "cannot find plistspec-serve.el and the files it requires: set PLISTSPEC_ELISP_DIR "
        "to plistspec's elisp/ folder"
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


def check_socket(path: str) -> None:
    """Refuse (:class:`EmacsUnavailable`) a socket or server file Emacs would not trust.

    A local socket must be a socket owned by this user in a folder owned by this user
    that no one else may enter (``server.el`` makes its socket folders so, and refuses
    to start a server in any other; ``emacsclient`` refuses such a socket). A TCP
    server file must be a regular file owned by this user, writable by no one else."""
    uid = os.geteuid()
    try:
        st = os.lstat(path)
    except OSError as e:
        raise EmacsUnavailable(
            f"cannot reach the Emacs server at {path}: {e.strerror or e} "
            "(is Emacs running with (server-start)?)",
            sent=False,
        ) from None
    if stat.S_ISREG(st.st_mode):
        if st.st_uid != uid or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise EmacsUnavailable(
                f"refusing the Emacs server file {path}: it must be owned by you and "
                f"writable by no one else (owner uid {st.st_uid}, mode {st.st_mode & 0o777:o})"
            )
        return
    if not stat.S_ISSOCK(st.st_mode):
        raise EmacsUnavailable(f"refusing {path}: it is not an Emacs server socket")
    parent = os.path.dirname(os.path.abspath(path)) or "/"
    try:
        pst = os.stat(parent)
    except OSError as e:
        raise EmacsUnavailable(f"cannot check the folder of {path}: {e.strerror or e}") from None
    if st.st_uid != uid or pst.st_uid != uid or pst.st_mode & 0o077:
        raise EmacsUnavailable(
            f"refusing the Emacs socket {path}: the socket and its folder must be owned by "
            f"you and the folder closed to others, as Emacs makes them (socket owner uid "
            f"{st.st_uid}, folder owner uid {pst.st_uid}, folder mode "
            f"{pst.st_mode & 0o777:o}; emacsclient says: Invalid permissions on parent "
            "directory)"
        )


class EmacsClient:
    """One Emacs server; each request is one connection (as emacsclient makes)."""

    def __init__(self, socket_file: str, timeout: float = 30.0) -> None:
        self.socket_file = socket_file
        self.timeout = timeout
        self.pid: int | None = None
        self._reply_dir: str | None = None
        self._install: str | None = None
        self._load = ""

    # -- the folder for long replies ----------------------------------------------

    def reply_dir(self) -> str:
        """This client's private folder for long replies (made on first use)."""
        if self._reply_dir is None or not os.path.isdir(self._reply_dir):
            self._reply_dir = tempfile.mkdtemp(prefix="plistspec-replies-")
            os.chmod(self._reply_dir, 0o700)
            import atexit

            atexit.register(self.close)
        return self._reply_dir

    def close(self) -> None:
        """Remove the private reply folder."""
        d, self._reply_dir = self._reply_dir, None
        if d is not None:
            shutil.rmtree(d, ignore_errors=True)

    # -- the connection -------------------------------------------------------------

    def _address(self) -> tuple[int, Any, str]:
        """``(family, address, auth-prefix)`` of the server, after checking it is trusted."""
        check_socket(self.socket_file)
        if os.path.isfile(self.socket_file):  # a TCP server's file: HOST:PORT PID\nKEY
            try:
                with open(self.socket_file, "rb") as f:
                    first, _, key = f.read(4096).decode("latin-1").partition("\n")
                host, _, port = first.split(" ")[0].rpartition(":")
                family = socket.AF_INET6 if ":" in host else socket.AF_INET
                return family, (host.strip("[]"), int(port)), f"-auth {key.strip()} "
            except (OSError, ValueError) as e:
                raise EmacsUnavailable(
                    f"cannot read the Emacs server file {self.socket_file}: {e}"
                ) from None
        return socket.AF_UNIX, self.socket_file, ""

    def _unreachable(self, e: OSError) -> EmacsUnavailable:
        return EmacsUnavailable(
            f"cannot reach the Emacs server at {self.socket_file}: {e.strerror or e} "
            "(is Emacs running with (server-start)?)",
            sent=False,
        )

    def eval(self, expr: str, timeout: float | None = None) -> str:
        """Evaluate the Elisp text ``expr``; return what Emacs printed (``pp`` of the value)."""
        limit = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + limit
        family, address, auth = self._address()
        s = socket.socket(family, socket.SOCK_STREAM)
        try:
            s.settimeout(limit)
            try:
                s.connect(address)
            except OSError as e:
                raise self._unreachable(e) from None
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

    async def aeval(self, expr: str, timeout: float | None = None) -> str:
        """:meth:`eval` over asyncio streams: cancelling it closes the connection."""
        import asyncio

        limit = self.timeout if timeout is None else timeout
        family, address, auth = self._address()

        async def exchange() -> bytes:
            try:
                if family == socket.AF_UNIX:
                    reader, writer = await asyncio.open_unix_connection(address)
                else:
                    reader, writer = await asyncio.open_connection(*address)
            except OSError as e:
                raise self._unreachable(e) from None
            try:
                writer.write((auth + "-eval " + _quote(expr) + "\n").encode("utf-8"))
                await writer.drain()
                return await reader.read()
            except OSError as e:
                raise EmacsUnavailable(f"the Emacs server connection failed: {e}") from None
            finally:
                writer.close()

        try:
            data = await asyncio.wait_for(exchange(), limit)
        except TimeoutError:
            raise EmacsUnavailable(f"Emacs did not answer within {limit:g} s") from None
        return self._parse(data.decode("utf-8", "replace"))

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

    # -- requests to plistspec-serve.el -----------------------------------------------

    def _install_form(self, force: bool = False) -> str:
        """Elisp that loads this version of the helper's files, in order, unless it is
        there (``force``: loads them in any case); then compiles what each defined."""
        if self._install is None:
            import hashlib

            from plistspec.elisp.printer import print_string

            files = elisp_files()
            sha = hashlib.sha1()
            for f in files:
                sha.update(f.name.encode("utf-8") + b"\0" + f.read_bytes() + b"\0")
            digest = sha.hexdigest()[:16]
            # the folder once: this form travels (unevaluated) in every request
            folder = print_string(os.path.join(os.path.abspath(files[0].parent), ""))
            names = " ".join(print_string(f.name) for f in files)
            load = (
                f"(let ((files (mapcar (lambda (f) (concat {folder} f)) '({names})))) "
                "(dolist (f files) (load f nil t t)) "
                "(dolist (f files) (plistspec-serve--compile f))) "
                f"(put 'plistspec-serve-version 'hash \"{digest}\")"
            )
            check = (
                "(and (fboundp 'plistspec-serve-request) (equal (bound-and-true-p "
                f'plistspec-serve-version) "{PROTOCOL_VERSION}") (equal (get '
                f"'plistspec-serve-version 'hash) \"{digest}\"))"
            )
            self._install = f"(unless {check} {load})"
            self._load = f"(progn {load})"
        return self._load if force else self._install

    def _request_expr(self, payload: dict[str, Any]) -> str:
        from plistspec.elisp.printer import print_string

        payload = dict(payload, reply_dir=self.reply_dir())
        arg = print_string(json.dumps(payload, ensure_ascii=True))
        return f"(progn {self._install_form()} (plistspec-serve-request {arg}))"

    def request(self, payload: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """Send ``payload`` to ``plistspec-serve-request``; return its JSON reply."""
        try:
            return self._decode(self.eval(self._request_expr(payload), timeout))
        except EmacsError as e:
            if not _missing_helper(e):
                raise
        # the helper went away under a matching version mark: load it again, once
        self.eval(self._install_form(force=True), timeout)
        return self._decode(self.eval(self._request_expr(payload), timeout))

    async def arequest(
        self, payload: dict[str, Any], timeout: float | None = None
    ) -> dict[str, Any]:
        """:meth:`request` over asyncio streams."""
        try:
            return self._decode(await self.aeval(self._request_expr(payload), timeout))
        except EmacsError as e:
            if not _missing_helper(e):
                raise
        await self.aeval(self._install_form(force=True), timeout)
        return self._decode(await self.aeval(self._request_expr(payload), timeout))

    def _decode(self, out: str) -> dict[str, Any]:
        out = out.strip()
        if not (len(out) >= 2 and out[0] == '"' and out[-1] == '"'):
            raise EmacsError(f"unexpected answer from Emacs: {out[:200]}")
        body = out[1:-1]
        if body.startswith("@"):  # a long reply, in this client's private folder
            path = body[1:].replace('\\"', '"').replace("\\\\", "\\")
            reply = json.loads(self._take_reply_file(path).decode("utf-8"))
        else:
            try:
                reply = json.loads(base64.b64decode(body, validate=True).decode("utf-8"))
            except ValueError as e:
                raise EmacsError(f"unexpected answer from Emacs: {e}") from None
        return reply

    def _take_reply_file(self, path: str) -> bytes:
        """Read and delete reply file ``path``, only if it is directly in the private folder."""
        folder = self._reply_dir
        if (
            folder is None
            or os.path.dirname(path) != folder
            or not os.path.basename(path).startswith("reply-")
        ):
            raise EmacsError(
                f"Emacs named a reply file outside plistspec's private folder ({path[:200]}): "
                "refused, neither read nor deleted"
            )
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError as e:
            raise EmacsError(f"cannot read Emacs's reply {path}: {e.strerror or e}") from None
        try:
            with os.fdopen(fd, "rb") as f:
                return f.read()
        finally:
            try:
                os.unlink(path)
            except OSError:
                pass

    def ensure_loaded(self, timeout: float | None = None, shims: bool = False) -> dict[str, Any]:
        """Load the helper (:data:`ELISP_FILES`) unless this version is there; return hello.

        ``shims``: also define gptel's/llm's constructors where they are not installed
        and record every tool made from now on (plistspec's own Emacs only)."""
        self.eval(
            "(progn "
            + self._install_form()
            + (" (plistspec-serve-install-shims)" if shims else "")
            + " t)",
            timeout,
        )
        return self.request({"op": "hello"}, timeout)


def _missing_helper(e: EmacsError) -> bool:
    """Whether ``e`` says the helper (plistspec-serve.el and its parts) is not (fully)
    loaded in that Emacs."""
    text = str(e)
    return "void-function" in text and "plistspec-serve" in text
