"""The Emacs package: its ERT suites in a real ``emacs --batch``, against this checkout's plistspec.

Every ERT test is one pytest test here (a skipped ERT test is a pytest skip with its reason).
They all run in one Emacs, once per session, with ``PYTHONPATH`` pointing at this checkout's
``src`` so the package runs this checkout's CLI.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ELISP = ROOT / "elisp"
HERE = Path(__file__).resolve().parent
ERT_FILES = [ELISP / "plistspec-tests.el", HERE / "plistspec-user-tests.el"]


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
    import subprocess
    import tempfile

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


def _ert_names() -> list[str]:
    names = []
    for f in ERT_FILES:
        names += re.findall(r"^\(ert-deftest (\S+)", f.read_text(encoding="utf-8"), re.M)
    return names


@pytest.fixture(scope="module")
def ert_results(emacs, tmp_path_factory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("ert") / "results.json"
    loads = "\n".join(f"(load {lisp_string(str(f))} nil t)" for f in ERT_FILES)
    code = f"""
{preamble()}
(setq plistspec-executable (list {lisp_string(sys.executable)} "-m" "plistspec"))
(setq plistspec-user-tests-python {lisp_string(sys.executable)})
{loads}
(let ((results nil))
  (dolist (test (ert-select-tests t t))
    (let* ((r (ert-run-test test))
           (status (cond ((ert-test-passed-p r) "passed")
                         ((ert-test-skipped-p r) "skipped")
                         (t "failed"))))
      (push (list (cons 'name (symbol-name (ert-test-name test)))
                  (cons 'status status)
                  (cons 'condition
                        (if (ert-test-result-with-condition-p r)
                            (pp-to-string (ert-test-result-with-condition-condition r))
                          ""))
                  (cons 'messages (or (ert-test-result-messages r) "")))
            results)))
  (with-temp-file {lisp_string(str(out))}
    (insert (json-encode results))))
"""
    run_emacs(emacs, code, timeout=600)
    return {r["name"]: r for r in json.loads(out.read_text(encoding="utf-8"))}


@pytest.mark.emacs
@pytest.mark.parametrize("name", _ert_names())
def test_ert(ert_results, name: str) -> None:
    r = ert_results.get(name)
    assert r is not None, f"ERT test {name} did not run"
    if r["status"] == "skipped":
        pytest.skip(f"{name}: {r['condition'].strip()}")
    assert r["status"] == "passed", f"{r['condition']}\nmessages:\n{r['messages']}"


@pytest.mark.emacs
def test_package_headers_and_prefixes() -> None:
    text = (ELISP / "plistspec.el").read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first.startswith(";;; plistspec.el --- ") and "lexical-binding: t" in first
    for header in (
        ";; Version:",
        ';; Package-Requires: ((emacs "28.1"))',
        ";; URL:",
        ";;; Commentary:",
        ";;; Code:",
    ):
        assert header in text
    assert text.rstrip().endswith(";;; plistspec.el ends here")
    assert "(provide 'plistspec)" in text
    names = re.findall(
        r"^\((?:defun|defmacro|defvar|defvar-local|defcustom|defconst|defgroup|define-minor-mode"
        r"|define-error) '?(\S+)",
        text,
        re.M,
    )
    assert names and all(n.startswith("plistspec") for n in names), names


@pytest.mark.emacs
def test_every_command_is_autoloaded() -> None:
    """package-lint's rule: each interactive command and the mode have an autoload cookie."""
    text = (ELISP / "plistspec.el").read_text(encoding="utf-8")
    forms = re.split(r"\n(?=\()", text)
    commands = []
    for i, form in enumerate(forms):
        m = re.match(r"\((defun|define-minor-mode) (plistspec-[^\s-][^\s]*)", form)
        if not m or "--" in m.group(2):
            continue
        if m.group(1) == "define-minor-mode" or "(interactive" in form:
            commands.append(m.group(2))
            before = forms[i - 1].rstrip().splitlines()[-1] if i else ""
            assert before == ";;;###autoload", f"{m.group(2)} has no ;;;###autoload cookie"
    assert {"plistspec-mode", "plistspec-fix-buffer", "plistspec-insert-from-json"} <= set(commands)
