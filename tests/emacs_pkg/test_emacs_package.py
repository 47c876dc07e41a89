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
# The package's files, each requiring only files before it (plistspec.el, the entry point, last).
PACKAGE_FILES = [
    ELISP / "plistspec-custom.el",
    ELISP / "plistspec-exec.el",
    ELISP / "plistspec-server.el",
    ELISP / "plistspec-flymake.el",
    ELISP / "plistspec-commands.el",
    ELISP / "plistspec-gptel-plan.el",
    ELISP / "plistspec-gptel.el",
    ELISP / "plistspec.el",
]
# What users call: each has an autoload cookie, so the README's one line is enough once installed.
COMMANDS = {
    "plistspec-mode",
    "plistspec-show-problem",
    "plistspec-restart-server",
    "plistspec-fix-at-point",
    "plistspec-fix-buffer",
    "plistspec-show-json",
    "plistspec-insert-from-json",
    "plistspec-gptel-mode",
    "plistspec-gptel-report",
}
ERT_FILES = [
    ELISP / "plistspec-tests.el",
    HERE / "plistspec-user-tests.el",
    HERE / "plistspec-server-tests.el",
]


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


def test_package_files_are_all_listed() -> None:
    """Every plistspec*.el in elisp/ (but the tests and plistspec-serve.el) is a package file."""
    found = {p for p in ELISP.glob("plistspec*.el") if not p.name.endswith("-tests.el")}
    assert found - {ELISP / "plistspec-serve.el"} == set(PACKAGE_FILES)


def test_requires_follow_the_file_order() -> None:
    """Each file requires only package files before it: no cycles, one loading order."""
    features = [p.stem for p in PACKAGE_FILES]
    for i, path in enumerate(PACKAGE_FILES):
        text = path.read_text(encoding="utf-8")
        required = re.findall(r"^\(require '(plistspec[^\s)]*)\)", text, re.M)
        assert set(required) <= set(features[:i]), (path.name, required)
        assert len(text.splitlines()) <= 500, path.name
    # the entry point loads them all, so `(require 'plistspec)` gives every command
    entry = PACKAGE_FILES[-1].read_text(encoding="utf-8")
    assert set(re.findall(r"^\(require '(plistspec[^\s)]*)\)", entry, re.M)) == set(features[:-1])


@pytest.mark.emacs
@pytest.mark.parametrize("path", PACKAGE_FILES, ids=lambda p: p.name)
def test_package_headers_and_prefixes(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first.startswith(f";;; {path.name} --- ") and "lexical-binding: t" in first
    headers = [";;; Commentary:", ";;; Code:", ";; SPDX-License-Identifier: GPL-3.0-or-later"]
    if path.name == "plistspec.el":
        headers += [";; Version:", ';; Package-Requires: ((emacs "28.1"))', ";; URL:"]
    for header in headers:
        assert header in text
    assert text.rstrip().endswith(f";;; {path.name} ends here")
    assert f"(provide '{path.stem})" in text
    names = re.findall(
        r"^\((?:defun|defmacro|defvar|defvar-local|defcustom|defconst|defgroup|define-minor-mode"
        r"|define-error) '?([^\s)]+)(?=\s)",
        text,
        re.M,
    )
    # a bare (defvar OTHER-PACKAGE-VAR) only declares a variable: it is not a definition
    assert names and all(n.startswith("plistspec") for n in names), names
    assert "json-object-type" not in names


def compile_in_fresh_emacs(emacs, tmp_path: Path, names: list[str]) -> str:
    """Byte-compile ``names`` (copies of the package files, in that order) in one new batch Emacs
    with ``byte-compile-error-on-warn``; return its messages."""
    import subprocess

    for p in PACKAGE_FILES:
        (tmp_path / p.name).write_bytes(p.read_bytes())
    proc = subprocess.run(
        [emacs.exe, "--batch", "-Q", "-L", str(tmp_path)]
        + ["--eval", "(setq byte-compile-error-on-warn t)", "-f", "batch-byte-compile"]
        + [str(tmp_path / n) for n in names],
        capture_output=True,
        timeout=300,
    )
    out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    assert proc.returncode == 0, out
    for n in names:
        assert (tmp_path / n).with_suffix(".elc").exists(), (n, out)
    return out


@pytest.mark.emacs
@pytest.mark.parametrize("path", PACKAGE_FILES, ids=lambda p: p.name)
def test_each_file_byte_compiles_alone(emacs, tmp_path, path: Path) -> None:
    """Compiled by itself in a new Emacs: its requires bring in everything it uses."""
    compile_in_fresh_emacs(emacs, tmp_path, [path.name])


@pytest.mark.emacs
def test_all_files_byte_compile_together(emacs, tmp_path) -> None:
    compile_in_fresh_emacs(emacs, tmp_path, [p.name for p in PACKAGE_FILES])


@pytest.mark.emacs
def test_every_command_is_autoloaded() -> None:
    """package-lint's rule: each interactive command and the mode have an autoload cookie."""
    commands = []
    for path in PACKAGE_FILES:
        forms = re.split(r"\n(?=\()", path.read_text(encoding="utf-8"))
        for i, form in enumerate(forms):
            m = re.match(r"\((defun|define-minor-mode) (plistspec-[^\s-][^\s]*)", form)
            if not m or "--" in m.group(2):
                continue
            if m.group(1) == "define-minor-mode" or "(interactive" in form:
                commands.append(m.group(2))
                before = forms[i - 1].rstrip().splitlines()[-1] if i else ""
                assert before == ";;;###autoload", f"{m.group(2)} has no ;;;###autoload cookie"
    assert COMMANDS == set(commands)


# --- as the README says -------------------------------------------------------------------

BROKEN_TOOLS = """;;; my-tools.el --- Tools  -*- lexical-binding: t; -*-
(gptel-make-tool
 :name "read_file"
 :function #'my-read-file
 :description "Read a file."
 :args (list '(:name "path" :type string :desciption "The file.")))
"""


def readme_snippet() -> str:
    """The Elisp block of the README's "In Emacs" section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## In Emacs\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```elisp\n(.*?)```", section, re.S)
    assert len(blocks) == 1, blocks
    return blocks[0]


def make_project(tmp_path: Path) -> Path:
    """A project with a .venv whose plistspec is this checkout's; return its broken tools file."""
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    venv_bin = proj / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    exe = venv_bin / "plistspec"
    exe.write_text(
        f'#!/bin/sh\nPYTHONPATH={ROOT / "src"} exec {sys.executable} -m plistspec "$@"\n'
    )
    exe.chmod(0o755)
    tools = proj / "lisp" / "my-tools.el"
    tools.parent.mkdir()
    tools.write_text(BROKEN_TOOLS, encoding="utf-8")
    return tools


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
         (let ((report (format "MODE %s %s %s\n" major-mode (bound-and-true-p plistspec-mode)
                               (bound-and-true-p flymake-mode))))
           (dolist (d found)
             (setq report (concat report
                                  (format "DIAG %d %s %s\n"
                                          (line-number-at-pos (flymake-diagnostic-beg d))
                                          (flymake-diagnostic-type d)
                                          (flymake-diagnostic-text d)))))
           (with-temp-file {out} (insert report)))
         (kill-emacs 0))))))
"""


def run_interactive_emacs(emacs, code: str, out: Path, timeout: float = 180) -> str:
    """Run ``code`` in a real interactive ``emacs -nw -Q`` on a pseudo-terminal, as a user's
    Emacs runs (redisplay shows the buffer, which is when Flymake starts); the code writes
    its report to ``out`` and calls ``kill-emacs``. Return the report."""
    import os
    import pty
    import select
    import signal
    import tempfile
    import time

    with tempfile.NamedTemporaryFile("w", suffix=".el", delete=False, encoding="utf-8") as f:
        f.write(";; -*- lexical-binding: t; coding: utf-8 -*-\n" + code)
        script = f.name
    try:
        pid, fd = pty.fork()
        if pid == 0:  # pragma: no cover - the child
            os.environ["TERM"] = "xterm"
            os.execv(emacs.exe, [emacs.exe, "-nw", "-Q", "-l", script])
        screen = b""
        deadline = time.monotonic() + timeout
        status = None
        while time.monotonic() < deadline:
            if select.select([fd], [], [], 0.2)[0]:
                try:
                    screen += os.read(fd, 65536)[-4096:]
                except OSError:
                    pass
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
    return out.read_text(encoding="utf-8")


def assert_typo_reported(out: str) -> None:
    assert "MODE emacs-lisp-mode t t" in out, out
    diags = [line for line in out.splitlines() if line.startswith("DIAG ")]
    assert any(
        d.startswith("DIAG 6 :warning ") and "did you mean :description?" in d and "[PS301]" in d
        for d in diags
    ), out


@pytest.mark.emacs
def test_readme_snippet_shows_diagnostics(emacs, tmp_path) -> None:
    """The README's snippet, as written (the checkout's path filled in), then visiting a broken
    tools file: Flymake shows plistspec's finding, found through the project's .venv."""
    snippet = readme_snippet()
    assert "/path/to/plistspec/elisp" in snippet and "plistspec-mode" in snippet
    tools = make_project(tmp_path)
    out = tmp_path / "report.txt"
    code = snippet.replace("/path/to/plistspec", str(ROOT)) + VISIT_AND_REPORT.format(
        tools=lisp_string(str(tools)), out=lisp_string(str(out))
    )
    assert_typo_reported(run_interactive_emacs(emacs, code, out))


@pytest.mark.emacs
def test_installed_from_the_recipe_one_line(emacs, tmp_path) -> None:
    """What the recipe ships, installed with package.el: autoloads make the one line enough."""
    recipe = (ROOT / "recipes" / "plistspec").read_text(encoding="utf-8")
    m = re.fullmatch(
        r'\(plistspec :fetcher github :repo "([^"]+)"\s+:files \("([^"]+)" \(:exclude "([^"]+)"\)\)\)\s*',
        recipe,
    )
    assert m, recipe
    assert f"https://github.com/{m.group(1)}" in (ELISP / "plistspec.el").read_text()
    shipped = sorted(set(ROOT.glob(m.group(2))) - set(ROOT.glob(m.group(3))), key=lambda p: p.name)
    assert set(PACKAGE_FILES) <= set(shipped)
    assert not [p for p in shipped if p.name.endswith("-tests.el")]
    pkg_src = tmp_path / "build" / "plistspec"
    pkg_src.mkdir(parents=True)
    for f in shipped:
        (pkg_src / f.name).write_bytes(f.read_bytes())
    elpa = tmp_path / "elpa"
    run_emacs(
        emacs,
        f"""
(require 'package)
(setq package-user-dir {lisp_string(str(elpa))})
(package-initialize)
(package-install-file {lisp_string(str(pkg_src) + "/")})
""",
    )
    assert (elpa / "plistspec-0.1.0" / "plistspec-autoloads.el").exists()
    tools = make_project(tmp_path)
    out = tmp_path / "report.txt"
    report = run_interactive_emacs(
        emacs,
        f"""
(require 'package)
(setq package-user-dir {lisp_string(str(elpa))})
(package-initialize)
(dolist (command '({" ".join(sorted(COMMANDS))}))
  (unless (autoloadp (symbol-function command)) (error "%s is not autoloaded" command)))
(add-hook 'emacs-lisp-mode-hook #'plistspec-mode)
"""
        + VISIT_AND_REPORT.format(tools=lisp_string(str(tools)), out=lisp_string(str(out))),
        out,
    )
    assert_typo_reported(report)


@pytest.mark.emacs
def test_show_json_prompt_shows_its_default(emacs) -> None:
    """`M-x plistspec-show-json RET RET`: the prompt names the default, and RET takes it."""
    weather = (ROOT / "fixtures" / "elisp" / "get_weather.el").read_text(encoding="utf-8")
    code = f"""{preamble()}
(setq plistspec-executable (list {lisp_string(sys.executable)} "-m" "plistspec"))
(with-temp-buffer
  (insert {lisp_string(weather)})
  (call-interactively #'plistspec-show-json))
(princ (concat "\\nJSON " (with-current-buffer "*plistspec-json*" (buffer-string))))
"""
    out = run_emacs(emacs, code, stdin="\n")
    assert "Format (default openai): " in out
    data = json.loads(out.split("\nJSON ", 1)[1])
    assert data[0]["type"] == "function" and data[0]["function"]["name"] == "get_weather"
