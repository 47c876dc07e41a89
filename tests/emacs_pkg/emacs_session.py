"""Running the Emacs package as its users do: ``emacs --batch`` and an interactive ``emacs -nw``
on a pseudo-terminal (with keys typed into it), the README's set-up, a project with a .venv.

Helpers shared by the tests of ``tests/emacs_pkg``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ELISP = ROOT / "elisp"


def lisp_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def preamble() -> str:
    """Elisp that loads plistspec.el from this checkout, its CLI from this checkout's src."""
    src = str(ROOT / "src")
    return f"""
(setq load-prefer-newer t)
(setenv "PYTHONPATH" (mapconcat #'identity
                                (delq nil (list {lisp_string(src)} (getenv "PYTHONPATH")))
                                path-separator))
(add-to-list 'load-path {lisp_string(str(ELISP))})
(load {lisp_string(str(ELISP / "plistspec.el"))} nil t)
"""


def run_emacs(emacs, code: str, stdin: str = "", timeout: float = 300) -> str:
    """Evaluate ``code`` in ``emacs --batch -Q``; return its standard output (and stderr on failure).

    Like ``support.Emacs.run``, except that Emacs inherits Python's ignored SIGPIPE: an
    interactive Emacs ignores it, but a batch Emacs left with the default disposition is
    killed when it writes to a program that has already exited (a broken plistspec).
    """
    with tempfile.NamedTemporaryFile("w", suffix=".el", delete=False, encoding="utf-8") as f:
        f.write(";; -*- lexical-binding: t; coding: utf-8 -*-\n" + code)
        script = f.name
    try:
        proc = subprocess.run(
            [emacs.exe, "--batch", "-Q", "-l", script],
            input=stdin.encode("utf-8"),
            capture_output=True,
            timeout=timeout,
            restore_signals=False,
        )
    finally:
        Path(script).unlink()
    out = proc.stdout.decode("utf-8", "replace")
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0, f"emacs exited {proc.returncode}\nstdout:\n{out}\nstderr:\n{err}"
    return out


def run_interactive_emacs(
    emacs,
    code: str,
    out: Path,
    timeout: float = 180,
    env: dict[str, str] | None = None,
    keys: Sequence[tuple[Path, bytes]] = (),
) -> str:
    """Run ``code`` in a real interactive ``emacs -nw -Q`` on a pseudo-terminal, as a user's
    Emacs runs (redisplay shows the buffer, which is when Flymake starts); the code writes
    its report to ``out`` and calls ``kill-emacs``. Return the report.

    ``keys``: (TRIGGER, BYTES) pairs, in order: once the file TRIGGER exists (the code
    creates it when Emacs is ready), BYTES are typed into the terminal, as a user types.
    ``env``: variables to set in Emacs's environment (e.g. PATH)."""
    import pty
    import select
    import signal

    with tempfile.NamedTemporaryFile("w", suffix=".el", delete=False, encoding="utf-8") as f:
        f.write(";; -*- lexical-binding: t; coding: utf-8 -*-\n" + code)
        script = f.name
    pending = list(keys)
    try:
        pid, fd = pty.fork()
        if pid == 0:  # pragma: no cover - the child
            os.environ["TERM"] = "xterm"
            os.environ.update(env or {})
            os.execv(emacs.exe, [emacs.exe, "-nw", "-Q", "-l", script])
        screen = b""
        deadline = time.monotonic() + timeout
        status = None
        while time.monotonic() < deadline:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    screen = (screen + os.read(fd, 65536))[-8192:]
                except OSError:
                    pass
            if pending and pending[0][0].exists():
                os.write(fd, pending.pop(0)[1])
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError(f"emacs -nw did not finish in {timeout} s: {screen[-2000:]!r}")
        os.close(fd)
    finally:
        Path(script).unlink()
    assert status == 0 and out.exists(), f"emacs -nw exited {status}: {screen[-2000:]!r}"
    assert not pending, f"keys never typed: {pending}"
    return out.read_text(encoding="utf-8")


# --- as the README says -------------------------------------------------------------------

BROKEN_TOOLS = """;;; my-tools.el --- Tools  -*- lexical-binding: t; -*-
(gptel-make-tool
 :name "read_file"
 :function #'my-read-file
 :description "Read a file."
 :args (list '(:name "path" :type string :desciption "The file.")))
"""

# An Emacs Lisp file without tools: plistspec has nothing to say there.
OTHER_LISP = """;;; other.el --- Not tools  -*- lexical-binding: t; -*-
(defun other-f (x) x)
"""


def readme_snippet() -> str:
    """The Elisp block of the README's "In Emacs" section for pip users (the one putting the
    directory `plistspec emacs-path` prints on load-path)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## In Emacs\n", 1)[1].split("\n## ", 1)[0]
    blocks = [
        textwrap.dedent(b)
        for b in re.findall(r"```elisp\n(.*?)```", section, re.S)
        if "load-path" in b
    ]
    assert len(blocks) == 1, blocks
    return blocks[0]


def make_project(tmp_path: Path, marker: Path | None = None) -> Path:
    """A project with .git and a .venv whose plistspec is this checkout's; return its broken
    tools file (lisp/my-tools.el; lisp/other.el has no tools). With ``marker``, the .venv's
    program first appends a line to that file: it tells whether it ran."""
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    venv_bin = proj / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    exe = venv_bin / "plistspec"
    mark = f"echo ran >> '{marker}'\n" if marker else ""
    exe.write_text(
        f'#!/bin/sh\n{mark}PYTHONPATH={ROOT / "src"} exec {sys.executable} -m plistspec "$@"\n'
    )
    exe.chmod(0o755)
    tools = proj / "lisp" / "my-tools.el"
    tools.parent.mkdir()
    tools.write_text(BROKEN_TOOLS, encoding="utf-8")
    (proj / "lisp" / "other.el").write_text(OTHER_LISP, encoding="utf-8")
    return tools


def plistspec_on_path(tmp_path: Path) -> Path:
    """A directory holding a ``plistspec`` that runs this checkout's (as pipx installs one)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    exe = bin_dir / "plistspec"
    exe.write_text(
        f'#!/bin/sh\nPYTHONPATH={ROOT / "src"} exec {sys.executable} -m plistspec "$@"\n'
    )
    exe.chmod(0o755)
    return bin_dir


# Visit the tools file (and the file without tools); once Flymake shows plistspec's findings,
# report the modes, the backends, the program plistspec runs and the findings, and exit.
VISIT_AND_REPORT = """
(find-file {tools})
(defvar plistspec-readme-test-deadline (+ (float-time) 120))
(run-with-timer
 0.2 0.2
 (lambda ()
   (with-current-buffer (find-buffer-visiting {tools})
     (let ((found (seq-filter (lambda (d) (eq (flymake-diagnostic-backend d) 'plistspec-flymake))
                              (flymake-diagnostics))))
       (when (or found (> (float-time) plistspec-readme-test-deadline))
         (let ((report (format "MODE %s %s %s\\nBACKENDS %S\\nCMD %S\\n"
                               major-mode (bound-and-true-p plistspec-mode)
                               (bound-and-true-p flymake-mode)
                               flymake-diagnostic-functions
                               (ignore-errors (plistspec-command)))))
           (dolist (d found)
             (setq report (concat report
                                  (format "DIAG %d %s %s\\n"
                                          (line-number-at-pos (flymake-diagnostic-beg d))
                                          (flymake-diagnostic-type d)
                                          (flymake-diagnostic-text d)))))
           (with-current-buffer (find-file-noselect
                                 (expand-file-name "other.el" (file-name-directory {tools})))
             (setq report (concat report (format "OTHER %s %s %s\\n" major-mode
                                                 (bound-and-true-p plistspec-mode)
                                                 (bound-and-true-p flymake-mode)))))
           (with-temp-file {out} (insert report)))
         (kill-emacs 0))))))
"""


def assert_typo_reported(out: str) -> None:
    assert "MODE emacs-lisp-mode t t" in out, out
    diags = [line for line in out.splitlines() if line.startswith("DIAG ")]
    assert any(
        d.startswith("DIAG 6 :warning ") and "did you mean :description?" in d and "[PS301]" in d
        for d in diags
    ), out
