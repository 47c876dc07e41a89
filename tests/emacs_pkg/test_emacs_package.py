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

from emacs_pkg.emacs_session import (
    ELISP,
    ROOT,
    VISIT_AND_REPORT,
    assert_typo_reported,
    lisp_string,
    make_project,
    preamble,
    readme_snippet,
    run_emacs,
    run_interactive_emacs,
)
from plistspec.emacs.client import ELISP_FILES

# real Emacs running the real libraries (or every ERT test of the package): seconds each
pytestmark = pytest.mark.slow
HERE = Path(__file__).resolve().parent
# The package's files, each requiring only files before it (plistspec.el, the entry point, last).
PACKAGE_FILES = [
    ELISP / "plistspec-custom.el",
    ELISP / "plistspec-trust.el",
    ELISP / "plistspec-exec.el",
    ELISP / "plistspec-install.el",
    ELISP / "plistspec-server.el",
    ELISP / "plistspec-flymake.el",
    ELISP / "plistspec-commands.el",
    ELISP / "plistspec-json.el",
    ELISP / "plistspec-runtime.el",
    ELISP / "plistspec-gptel-contract.el",
    ELISP / "plistspec-gptel-plan.el",
    ELISP / "plistspec-gptel-calls.el",
    ELISP / "plistspec-gptel.el",
    ELISP / "plistspec-llm-plan.el",
    ELISP / "plistspec-llm-calls.el",
    ELISP / "plistspec-llm.el",
    ELISP / "plistspec.el",
]
# Libraries of the package that plistspec.el does not load: what the files from-py writes require.
LIBRARIES = [ELISP / "plistspec-bridge.el"]
# The Elisp half of `plistspec serve`, shipped with the package: plistspec loads it into Emacs,
# file by file in this order (tests/serve/test_parts.py holds the order).
SERVE_FILES = [ELISP / name for name in ELISP_FILES]
# What users call: each has an autoload cookie, so the README's one line is enough once installed.
COMMANDS = {
    "plistspec-mode",
    "global-plistspec-mode",
    "plistspec-show-problem",
    "plistspec-install-cli",
    "plistspec-restart-server",
    "plistspec-trust-project",
    "plistspec-distrust-project",
    "plistspec-fix-at-point",
    "plistspec-fix-buffer",
    "plistspec-explain",
    "plistspec-show-json",
    "plistspec-show-tool-json",
    "plistspec-insert-from-json",
    "plistspec-gptel-mode",
    "plistspec-gptel-report",
    "plistspec-llm-mode",
    "plistspec-llm-report",
    "plistspec-report",
}
ERT_FILES = [
    ELISP / "plistspec-tests.el",
    HERE / "plistspec-user-tests.el",
    HERE / "plistspec-server-tests.el",
    HERE / "plistspec-trust-tests.el",
    HERE / "plistspec-command-tests.el",
]


def _ert_names() -> list[str]:
    names = []
    for f in ERT_FILES:
        names += re.findall(r"^\(ert-deftest (\S+)", f.read_text(encoding="utf-8"), re.M)
    return names


@pytest.fixture(scope="module")
def ert_results(emacs, tmp_path_factory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("ert") / "results.json"
    trust_file = out.parent / "trusted-projects.eld"
    loads = "\n".join(f"(load {lisp_string(str(f))} nil t)" for f in ERT_FILES)
    code = f"""
{preamble()}
(setq plistspec-executable (list {lisp_string(sys.executable)} "-m" "plistspec"))
(setq plistspec-user-tests-python {lisp_string(sys.executable)})
;; never the user's own list of trusted projects
(setq plistspec-trusted-projects-file {lisp_string(str(trust_file))})
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
@pytest.mark.xdist_group("ert")  # one worker runs the ERT suite (the fixture) once
@pytest.mark.parametrize("name", _ert_names())
def test_ert(ert_results, name: str) -> None:
    r = ert_results.get(name)
    assert r is not None, f"ERT test {name} did not run"
    if r["status"] == "skipped":
        pytest.skip(f"{name}: {r['condition'].strip()}")
    assert r["status"] == "passed", f"{r['condition']}\nmessages:\n{r['messages']}"


def test_package_files_are_all_listed() -> None:
    """Every plistspec*.el in elisp/ (but the tests) is a package file, a library or a file
    of the serve half."""
    found = {p for p in ELISP.glob("plistspec*.el") if not p.name.endswith("-tests.el")}
    assert found == set(PACKAGE_FILES) | set(LIBRARIES) | set(SERVE_FILES)


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
@pytest.mark.parametrize("path", PACKAGE_FILES + LIBRARIES + SERVE_FILES, ids=lambda p: p.name)
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
        r"|define-globalized-minor-mode|define-error) '?([^\s)]+)(?=\s)",
        text,
        re.M,
    )
    # a bare (defvar OTHER-PACKAGE-VAR) only declares a variable: it is not a definition
    assert names and all(n.startswith(("plistspec", "global-plistspec-")) for n in names), names
    assert "json-object-type" not in names


def compile_in_fresh_emacs(emacs, tmp_path: Path, names: list[str]) -> str:
    """Byte-compile ``names`` (copies of the package files, in that order) in one new batch Emacs
    with ``byte-compile-error-on-warn``; return its messages."""
    import subprocess

    for p in PACKAGE_FILES + LIBRARIES + SERVE_FILES:
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
@pytest.mark.parametrize("path", PACKAGE_FILES + LIBRARIES + SERVE_FILES, ids=lambda p: p.name)
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
            m = re.match(
                r"\((defun|define-minor-mode|define-globalized-minor-mode) "
                r"((?:global-)?plistspec-[^\s-][^\s]*)",
                form,
            )
            if not m or "--" in m.group(2):
                continue
            if m.group(1) != "defun" or "(interactive" in form:
                commands.append(m.group(2))
                before = forms[i - 1].rstrip().splitlines()[-1] if i else ""
                assert before == ";;;###autoload", f"{m.group(2)} has no ;;;###autoload cookie"
    assert COMMANDS == set(commands)


@pytest.mark.emacs
def test_package_lint_clean(emacs, elisp_deps_dir) -> None:
    """package-lint as a MELPA reviewer runs it (`package-lint-main-file` = plistspec.el), on
    every file of the package, the serve half included: no error, no warning."""
    import subprocess

    lint = elisp_deps_dir / "package-lint"
    proc = subprocess.run(
        [emacs.exe, "--batch", "-Q", "-L", str(lint), "--eval",
         "(progn (require 'package) (setq package-archives nil) (package-initialize)"
         " (require 'package-lint) (setq package-lint-main-file \"plistspec.el\"))",
         "-f", "package-lint-batch-and-exit"]
        + [p.name for p in PACKAGE_FILES + LIBRARIES + SERVE_FILES],
        cwd=ELISP, capture_output=True, timeout=300,
    )  # fmt: skip
    out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    assert proc.returncode == 0 and ": error:" not in out and ": warning:" not in out, out


# --- as the README says -------------------------------------------------------------------


def trusting(proj: Path, trust_file: Path) -> str:
    """Elisp trusting PROJ as the README says (M-x plistspec-trust-project), remembered in
    TRUST_FILE rather than the user's own file."""
    return f"""
(setq plistspec-trusted-projects-file {lisp_string(str(trust_file))})
(plistspec-trust-project {lisp_string(str(proj))})
"""


def assert_set_up_as_documented(report: str, tools: Path) -> None:
    """The project's .venv ran the check, Flymake ran plistspec's backend only, and the file
    without tools was left alone."""
    venv = tools.parents[1] / ".venv" / "bin" / "plistspec"
    assert f'CMD ("{venv}")' in report, report
    assert "BACKENDS (plistspec-flymake)" in report, report
    assert "OTHER emacs-lisp-mode nil nil" in report, report


@pytest.mark.emacs
def test_readme_snippet_shows_diagnostics(emacs, tmp_path) -> None:
    """The README's snippet, as written (with the directory `plistspec emacs-path` prints, this
    checkout's elisp/ for its editable install), the project trusted, then visiting a broken
    tools file: Flymake shows plistspec's finding, found through the project's .venv, without
    Emacs's own Elisp backends; a file without tools is left alone."""
    import subprocess

    snippet = readme_snippet()
    assert "/path/to/plistspec/elisp" in snippet and "(global-plistspec-mode)" in snippet
    printed = subprocess.run(
        [sys.executable, "-m", "plistspec", "emacs-path"],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout.strip()  # fmt: skip
    assert printed == str(ELISP)
    line = subprocess.run(
        [sys.executable, "-m", "plistspec", "emacs-path", "--load-path"],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    assert line.strip() == snippet.splitlines()[0].split(";")[0].strip().replace(
        "/path/to/plistspec/elisp", printed
    )
    tools = make_project(tmp_path)
    out = tmp_path / "report.txt"
    code = (
        snippet.replace("/path/to/plistspec/elisp", printed)
        + trusting(tools.parents[1], tmp_path / "trusted.eld")
        + VISIT_AND_REPORT.format(tools=lisp_string(str(tools)), out=lisp_string(str(out)))
    )
    report = run_interactive_emacs(emacs, code, out, env={"PATH": "/usr/bin:/bin"})
    assert_typo_reported(report)
    assert_set_up_as_documented(report, tools)


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
(global-plistspec-mode)
"""
        + trusting(tools.parents[1], tmp_path / "trusted.eld")
        + VISIT_AND_REPORT.format(tools=lisp_string(str(tools)), out=lisp_string(str(out))),
        out,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert_typo_reported(report)
    assert_set_up_as_documented(report, tools)


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


@pytest.mark.emacs
def test_checkdoc_clean(emacs) -> None:
    """checkdoc, as a MELPA reviewer runs it, finds nothing in any shipped file (the serve
    half included), on this Emacs."""
    import subprocess

    shipped = PACKAGE_FILES + LIBRARIES + SERVE_FILES
    forms = " ".join(f"(checkdoc-file {lisp_string(p.name)})" for p in shipped)
    proc = subprocess.run(
        [emacs.exe, "--batch", "-Q", "--eval", f"(progn (require 'checkdoc) {forms})"],
        cwd=ELISP, capture_output=True, timeout=300,
    )  # fmt: skip
    out = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    assert proc.returncode == 0, out
    found = re.findall(r"^plistspec[^:\s]*\.el:\d+: .*$", out, re.M)
    assert not found, "\n".join(found)
