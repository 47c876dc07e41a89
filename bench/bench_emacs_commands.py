"""What the user waits for in Emacs: the commands of ``plistspec-mode`` on a real-sized buffer.

From ``emacs --batch`` with the package in ``elisp/`` and this checkout's plistspec, on
``fixtures/elisp/large_tools.el`` (200 KB, default), prints the median of ``--runs`` of:

* ``plistspec-command``: finding the program, the project's trust decided (a trusted
  project's .venv, as a user's; Flymake pays this before each check);
* ``plistspec-tool-json-string``: the JSON of the tool at point (two ``to-json`` runs: the IR
  for the tools' places, then the format), point in the middle tool;
* ``plistspec-json-string``: the JSON of all the buffer's tools (one ``to-json``), for scale;
* ``plistspec-explain``: ``plistspec explain CODE`` into the help buffer.

Goal: the tool at point within 2x the whole buffer's JSON (a second process, not more work per
tool), and ``plistspec-command`` under 1 ms.

    python bench/bench_emacs_commands.py [FILE] [--runs 11]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def lisp_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


CODE = """
(setenv "PYTHONPATH" {src})
(add-to-list 'load-path {elisp})
(require 'plistspec)
(setq plistspec-trusted-projects-file nil)
(plistspec-trust-project {proj})
(defun bench-median (n f)
  (let (times)
    (dotimes (_ n)
      (let ((start (float-time)))
        (funcall f)
        (push (- (float-time) start) times)))
    (nth (/ n 2) (sort times #'<))))
(with-current-buffer (find-file-noselect {file})
  (emacs-lisp-mode)
  (goto-char (/ (point-max) 2))
  (let ((n {runs}))
    (princ (format "plistspec-command: %.3f ms\\n"
                   (* 1000 (bench-median (* 100 n) #'plistspec-command))))
    (princ (format "tool at point (openai-responses): %.0f ms\\n"
                   (* 1000 (bench-median n (lambda ()
                                             (plistspec-tool-json-string "openai-responses"))))))
    (princ (format "whole buffer (openai-responses): %.0f ms\\n"
                   (* 1000 (bench-median n (lambda ()
                                             (plistspec-json-string "openai-responses"))))))
    (princ (format "explain PS301: %.0f ms\\n"
                   (* 1000 (bench-median n (lambda () (plistspec-explain "PS301"))))))))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default=str(ROOT / "fixtures" / "elisp" / "large_tools.el"))
    ap.add_argument("--runs", type=int, default=11)
    a = ap.parse_args()
    emacs = shutil.which("emacs")
    if not emacs:
        sys.exit("no emacs on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        proj = Path(tmp) / "proj"
        venv_bin = proj / ".venv" / "bin"
        venv_bin.mkdir(parents=True)
        (proj / ".git").mkdir()
        exe = venv_bin / "plistspec"
        exe.write_text(f'#!/bin/sh\nexec {sys.executable} -m plistspec "$@"\n')
        exe.chmod(0o755)
        file = proj / Path(a.file).name
        file.write_bytes(Path(a.file).read_bytes())
        code = CODE.format(
            src=lisp_string(str(ROOT / "src")),
            elisp=lisp_string(str(ROOT / "elisp")),
            proj=lisp_string(str(proj)),
            file=lisp_string(str(file)),
            runs=a.runs,
        )
        out = subprocess.run(
            [emacs, "--batch", "-Q", "--eval", f"(progn {code})"],
            capture_output=True,
            text=True,
            timeout=1200,
        )
        print(out.stdout, end="")
        if out.returncode:
            sys.exit(out.stderr[-2000:])


if __name__ == "__main__":
    main()
