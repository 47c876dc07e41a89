"""The Emacs package: its ERT suite in a real ``emacs --batch``, against this repo's plistspec."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ELISP = ROOT / "elisp"


def _lisp_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


@pytest.mark.emacs
def test_ert_suite(emacs) -> None:
    code = f"""
(setq load-prefer-newer t)
(add-to-list 'load-path {_lisp_string(str(ELISP))})
(load {_lisp_string(str(ELISP / "plistspec.el"))} nil t)
(setq plistspec-executable (list {_lisp_string(sys.executable)} "-m" "plistspec"))
(load {_lisp_string(str(ELISP / "plistspec-tests.el"))} nil t)
(let ((stats (ert-run-tests-batch t)))
  (princ (format "RESULT %d %d\\n" (ert-stats-completed-expected stats)
                 (ert-stats-completed-unexpected stats))))
"""
    out = emacs.run(code, timeout=300)
    m = re.search(r"RESULT (\d+) (\d+)", out)
    assert m, out
    passed, failed = int(m.group(1)), int(m.group(2))
    assert failed == 0, out
    assert passed >= 14


@pytest.mark.emacs
def test_package_headers_and_prefixes() -> None:
    text = (ELISP / "plistspec.el").read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first.startswith(";;; plistspec.el --- ") and "lexical-binding: t" in first
    for header in (
        ";; Version:",
        ";; Package-Requires:",
        ";; URL:",
        ";;; Commentary:",
        ";;; Code:",
    ):
        assert header in text
    assert text.rstrip().endswith(";;; plistspec.el ends here")
    assert "(provide 'plistspec)" in text
    names = re.findall(
        r"^\((?:defun|defvar|defvar-local|defcustom|defconst|defgroup) (\S+)", text, re.M
    )
    assert names and all(n.startswith("plistspec") for n in names), names
