"""Helpers of the serve tests: the MCP SDK's client on `plistspec serve`, a real
`emacs --daemon` standing for the user's Emacs, and tool functions called directly in
Emacs with the arguments the real gptel / llm hand over."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from support import ROOT, elisp_deps_preamble

DATA = Path(__file__).resolve().parent / "data"
TOOLS = DATA / "tools.el"


def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EMACS")}
    env["PYTHONPATH"] = str(ROOT / "src")
    return env


def http_env(directory: Path) -> dict[str, str]:
    """`server_env` for `serve --http`: the token it makes is kept under ``directory``
    (``XDG_STATE_HOME``), never in the real home."""
    env = server_env()
    env["XDG_STATE_HOME"] = str(directory / "state")
    return env


def http_token(directory: Path) -> str:
    """The token `serve --http` made with `http_env(directory)`."""
    return (directory / "state" / "plistspec" / "http-token").read_text("ascii").strip()


@contextlib.asynccontextmanager
async def stdio_session(args: list[str], elicitation_callback=None):
    """A ClientSession (official SDK) on `plistspec serve ARGS` over stdio, initialized."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "plistspec", "serve", *args], env=server_env()
    )
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(
                read, write, elicitation_callback=elicitation_callback
            ) as session:
                await session.initialize()
                yield session


def texts(result) -> list[str]:
    return [c.text for c in result.content]


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (our own child not yet reaped) counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def wait_gone(pid: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.05)
    return False


class UserEmacs:
    """A real `emacs -Q --daemon=SOCKET` in a private directory, as a user's Emacs."""

    def __init__(self, exe: str, directory: Path) -> None:
        sock_dir = directory / "socket"  # not directly under /tmp: see plistspec.emacs.daemon
        sock_dir.mkdir(mode=0o700, parents=True)
        self.socket = str(sock_dir / "server")
        self.pid: int | None = None
        subprocess.run(
            [exe, "-Q", f"--daemon={self.socket}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
            check=True,
        )
        from plistspec.emacs.client import EmacsClient

        self.client = EmacsClient(self.socket, timeout=60)
        self.pid = int(self.client.eval("(emacs-pid)").strip())

    def eval(self, expr: str) -> str:
        return self.client.eval(expr)

    def load(self, path: Path) -> None:
        from plistspec.elisp.printer import print_string

        self.eval(f"(load {print_string(str(path))} nil t)")

    def kill(self) -> None:
        if self.pid is None:
            return
        with contextlib.suppress(Exception):
            self.client.eval("(kill-emacs 0)", timeout=2)
        if not wait_gone(self.pid, 5):
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            wait_gone(self.pid, 5)
        self.pid = None


def direct_results(emacs, deps: Path, calls: list[tuple[str, dict]]) -> list[dict]:
    """Each call run directly in `emacs --batch` with the REAL gptel / llm: the arguments
    are what gptel 0.9.9.5 hands a tool on its OpenAI path (`gptel--json-read-string`,
    `gptel--map-tool-args`) or llm 0.31.1 (`llm-provider-utils-parse-openai-tool-arguments`,
    `llm-provider-utils--normalize-args`, each arg by name); the result as gptel and llm
    see it. Returns ``{"ok": bool, "text" | "value": ...}`` per call."""
    from plistspec.elisp.printer import print_string

    items = " ".join(
        f"(cons {print_string(name)} {print_string(json.dumps(args))})" for name, args in calls
    )
    code = (
        elisp_deps_preamble(deps)
        + "(require 'gptel) (require 'llm) (require 'llm-provider-utils)\n"
        + f"(load {print_string(str(TOOLS))} nil t)\n"
        + """
(defun direct--run (fn async args)
  (if (not async)
      (apply fn args)
    (let ((done nil) (value nil) (limit (+ (float-time) 10)))
      (apply fn (lambda (v) (setq value v done t)) args)
      (while (and (not done) (< (float-time) limit)) (accept-process-output nil 0.01))
      value)))
(defun direct--call (name json)
  (let* ((gtool (ignore-errors (gptel-get-tool name)))
         (ltool (seq-find (lambda (tl) (equal (llm-tool-name tl) name)) serve-test-llm-tools)))
    (if gtool
        (direct--run (gptel-tool-function gtool) (gptel-tool-async gtool)
                     (gptel--map-tool-args gtool (gptel--json-read-string json)))
      (let ((args (llm-provider-utils--normalize-args
                   (llm-provider-utils-parse-openai-tool-arguments json))))
        (direct--run (llm-tool-function ltool) (llm-tool-async ltool)
                     (mapcar (lambda (a) (cdr (assq (intern (plist-get a :name)) args)))
                             (llm-tool-args ltool)))))))
(dolist (c (list """
        + items
        + """))
  ;; Emacs 30's json-serialize returns unibyte UTF-8: decoded, it prints as on 28
  (princ (decode-coding-string
          (condition-case err
              (let ((v (direct--call (car c) (cdr c))))
                (json-serialize (list :ok t :string (if (stringp v) t :false)
                                      :text (if (stringp v) v (prin1-to-string v)))))
            (error (json-serialize (list :ok :false :text (error-message-string err)))))
          'utf-8))
  (terpri))
"""
    )
    out = emacs.run(code, timeout=120)
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]
