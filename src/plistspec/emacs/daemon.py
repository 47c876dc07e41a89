"""An Emacs that plistspec starts for itself, and always stops.

Owns: starting ``emacs -Q --fg-daemon=SOCKET`` with its socket in a private directory
(``mkdtemp``, mode 0700, so no other user can reach it), waiting until it answers,
preparing it (``load-path`` folders, an init file, ``plistspec-serve.el`` and its
parts, with its shims and recorder) and stopping it: :meth:`OwnEmacs.stop` asks it to exit, then
terminates and kills it; it runs at interpreter exit and on SIGTERM/SIGHUP too. If
plistspec itself is killed outright, the Emacs notices within a second that its parent
is gone, deletes the private directory and exits (``plistspec-serve-watch-parent``): no
orphan Emacs and no directory is left behind.

Why a daemon and not ``emacs --batch`` over a pipe: a daemon keeps its event loop
running between requests, so asynchronous tools (timers, processes, url-retrieve) make
progress while plistspec waits, exactly as in the user's Emacs; and the same socket
client serves both plistspec's own Emacs and ``--emacs`` (the user's).
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import tempfile
import time

from plistspec.emacs.client import EmacsClient, EmacsError, EmacsUnavailable

__all__ = ["OwnEmacs", "InitFileError"]


class InitFileError(EmacsError):
    """The init file signalled an error while loading."""


class OwnEmacs:
    """A private ``emacs --fg-daemon``; use :meth:`start`, then :attr:`client`, then :meth:`stop`."""

    def __init__(
        self,
        emacs: str = "emacs",
        load_path: tuple[str, ...] = (),
        init_file: str | None = None,
        start_timeout: float = 30.0,
    ) -> None:
        self.emacs = emacs
        self.load_path = load_path
        self.init_file = init_file
        self.start_timeout = start_timeout
        self.dir: str | None = None
        self.proc: subprocess.Popen[bytes] | None = None
        self.client: EmacsClient | None = None
        self.hello: dict = {}

    def start(self) -> EmacsClient:
        self.dir = tempfile.mkdtemp(prefix="plistspec-emacs-")
        os.chmod(self.dir, 0o700)
        # The socket's own folder is not directly under /tmp: Emacs 28 deletes an empty
        # /tmp/X/ holding a server socket when a server starts or stops (bug#44644).
        os.mkdir(os.path.join(self.dir, "socket"), 0o700)
        sock = os.path.join(self.dir, "socket", "server")
        log = open(os.path.join(self.dir, "emacs.log"), "wb")
        env = dict(os.environ)
        env.pop("EMACS_SOCKET_NAME", None)
        atexit.register(self.stop)
        for sig in (signal.SIGTERM, signal.SIGHUP):
            try:
                if signal.getsignal(sig) in (signal.SIG_DFL, None):
                    signal.signal(sig, _exit_on_signal)
            except (ValueError, OSError):  # not the main thread
                pass
        try:
            self.proc = subprocess.Popen(
                [self.emacs, "-Q", f"--fg-daemon={sock}"],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                env=env,
                start_new_session=True,
            )
        except OSError as e:
            log.close()
            self.stop()
            raise EmacsUnavailable(f"cannot start {self.emacs}: {e.strerror or e}") from None
        log.close()
        client = EmacsClient(sock, timeout=self.start_timeout)
        deadline = time.monotonic() + self.start_timeout
        while True:
            if self.proc.poll() is not None:
                msg = self._log_tail()
                self.stop()
                raise EmacsUnavailable(f"Emacs exited while starting: {msg}")
            if os.path.exists(sock):
                try:
                    client.eval("t", timeout=max(0.5, deadline - time.monotonic()))
                    break
                except EmacsUnavailable:
                    pass
            if time.monotonic() > deadline:
                self.stop()
                raise EmacsUnavailable(f"Emacs did not start within {self.start_timeout:g} s")
            time.sleep(0.02)
        self.client = client
        try:
            self._prepare(client)
        except EmacsError:
            self.stop()
            raise
        return client

    def _prepare(self, client: EmacsClient) -> None:
        from plistspec.elisp.printer import print_string

        for d in reversed(self.load_path):
            client.eval(f"(push {print_string(os.path.abspath(d))} load-path)")
        self.hello = client.ensure_loaded(shims=False)
        client.eval(f"(plistspec-serve-watch-parent {os.getpid()} {print_string(self.dir or '')})")
        if self.init_file:
            reply = client.request({"op": "load", "file": os.path.abspath(self.init_file)})
            if reply.get("status") != "ok":
                raise InitFileError(f"cannot load the init file: {reply.get('text')}")
        self.hello = client.ensure_loaded(shims=True)

    def load(self, path: str) -> str | None:
        """Load ``path`` into this Emacs; the error message if it failed, else None."""
        assert self.client is not None
        reply = self.client.request({"op": "load", "file": os.path.abspath(path)})
        return None if reply.get("status") == "ok" else str(reply.get("text"))

    def _log_tail(self) -> str:
        try:
            with open(os.path.join(self.dir or "", "emacs.log"), "rb") as f:
                return f.read()[-2000:].decode("utf-8", "replace").strip() or "(no output)"
        except OSError:
            return "(no output)"

    def stop(self, fast: bool = False) -> None:
        """Stop the Emacs (politely, then by force) and remove its private directory.
        ``fast`` (the server got a signal): no polite request, SIGTERM at once (Emacs
        runs ``kill-emacs``), SIGKILL after half a second."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            if self.client is not None and not fast:
                try:
                    self.client.eval("(kill-emacs 0)", timeout=1.0)
                except EmacsError:
                    pass
            if fast:
                proc.terminate()
            try:
                proc.wait(timeout=0.5 if fast else 2.0)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout=2.0)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5.0)
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None


def _exit_on_signal(signum, frame):  # pragma: no cover - exercised by the process tests
    raise SystemExit(128 + signum)
