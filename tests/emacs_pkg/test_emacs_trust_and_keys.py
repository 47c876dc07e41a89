"""The Emacs package in a real Emacs, as a user meets it: an untrusted repository visited with the
README's set-up (its program never runs until the user trusts it, by typing the command), the
keys of ``plistspec-mode`` typed into an interactive ``emacs -nw``, and the JSON format of the
current backend of the real gptel 0.9.9.5.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from emacs_pkg.emacs_session import (
    ROOT,
    lisp_string,
    make_project,
    plistspec_on_path,
    preamble,
    readme_snippet,
    run_emacs,
    run_interactive_emacs,
)
from support import elisp_deps_preamble

C_C = b"\x03"
RET = b"\r"


def git_init(proj: Path) -> None:
    """Make PROJ a real git repository, as a cloned one is (where git is installed)."""
    if shutil.which("git"):
        shutil.rmtree(proj / ".git")
        subprocess.run(["git", "init", "-q", str(proj)], check=True, timeout=60)


# Phase 1: once Flymake shows plistspec's findings, report and create READY (the keys of
# M-x plistspec-trust-project are then typed). Phase 2: once the project's program has run
# (MARKER) and the findings are back, report and exit.
HOSTILE_VISIT = """
(find-file {tools})
(defvar hostile-phase 1)
(defvar hostile-deadline (+ (float-time) 150))
(defun hostile-report (tag)
  (with-current-buffer (find-buffer-visiting {tools})
    (format "%s marker=%s cmd=%S diags=%S messages=%S\\n" tag (file-exists-p {marker})
            (ignore-errors (plistspec-command))
            (mapcar #'flymake-diagnostic-text
                    (seq-filter (lambda (d) (eq (flymake-diagnostic-backend d) 'plistspec-flymake))
                                (flymake-diagnostics)))
            (with-current-buffer "*Messages*" (buffer-string)))))
(run-with-timer
 0.3 0.3
 (lambda ()
   (let ((found (with-current-buffer (find-buffer-visiting {tools})
                  (seq-filter (lambda (d) (eq (flymake-diagnostic-backend d) 'plistspec-flymake))
                              (flymake-diagnostics)))))
     (cond ((> (float-time) hostile-deadline)
            (with-temp-file {out} (insert (hostile-report "TIMEOUT")))
            (kill-emacs 0))
           ((and (= hostile-phase 1) found)
            (setq hostile-phase 2)
            (with-temp-file {out} (insert (hostile-report "UNTRUSTED")))
            (with-temp-file {ready} (insert "go")))
           ((and (= hostile-phase 2) (file-exists-p {marker}) found)
            (write-region (hostile-report "TRUSTED") nil {out} t)
            (kill-emacs 0))))))
"""


@pytest.mark.slow
@pytest.mark.emacs
def test_untrusted_repository_never_runs_in_a_real_emacs(emacs, tmp_path) -> None:
    """The README's set-up, verbatim, in an interactive ``emacs -nw``; a cloned repository whose
    .venv/bin/plistspec would leave a marker. Visiting its tools file checks it with the
    plistspec on PATH and the marker never appears; the user types ``M-x
    plistspec-trust-project RET RET yes RET``; from then on the project's program is used, and
    the choice is remembered in the user's Emacs directory."""
    marker = tmp_path / "MARKER"
    tools = make_project(tmp_path, marker)
    proj = tools.parents[1]
    git_init(proj)
    home = tmp_path / "home"
    home.mkdir()
    bin_dir = plistspec_on_path(tmp_path)
    out = tmp_path / "report.txt"
    ready = tmp_path / "ready"
    code = readme_snippet().replace("/path/to/plistspec", str(ROOT)) + HOSTILE_VISIT.format(
        tools=lisp_string(str(tools)),
        marker=lisp_string(str(marker)),
        out=lisp_string(str(out)),
        ready=lisp_string(str(ready)),
    )
    report = run_interactive_emacs(
        emacs,
        code,
        out,
        timeout=200,
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(home)},
        keys=[(ready, b"\x1bxplistspec-trust-project" + RET + RET + b"yes" + RET)],
    )
    untrusted, _, trusted = report.partition("\nTRUSTED ")
    assert untrusted.startswith("UNTRUSTED marker=nil "), report
    assert f'cmd=("{bin_dir / "plistspec"}")' in untrusted, report
    assert "[PS301]" in untrusted, report
    # the user was told why the project's program did not run, and how to let it
    assert "not trusted (M-x plistspec-trust-project trusts it)" in untrusted, report
    assert "\nTRUSTED marker=t " in report, report
    assert f'cmd=("{proj / ".venv" / "bin" / "plistspec"}")' in trusted, report
    assert "[PS301]" in trusted, report
    remembered = (home / ".emacs.d" / "plistspec-trusted-projects.eld").read_text()
    assert f'"{proj}/"' in remembered, remembered


KEYS_SESSION = """
{deps}
(require 'gptel)
{snippet}
(defvar keys-prompts nil)
(advice-add 'completing-read :before (lambda (prompt &rest _) (push prompt keys-prompts)))
(find-file {tools})
(defvar keys-step 0)
(defvar keys-deadline (+ (float-time) 150))
(defun keys-log (fmt &rest args)
  (write-region (concat (apply #'format fmt args) "\\n") nil {out} t))
(defun keys-ready (n)
  (setq keys-step n)
  (with-temp-file (format "%s%d" {ready} n) (insert "go")))
(defun keys-buffer-text (name)
  (and (get-buffer name) (with-current-buffer name (buffer-string))))
(run-with-timer
 0.3 0.3
 (lambda ()
   (with-current-buffer (find-buffer-visiting {tools})
     (cond
      ((> (float-time) keys-deadline)
       (keys-log "TIMEOUT at step %d" keys-step)
       (kill-emacs 0))
      ((and (= keys-step 0)
            (seq-find (lambda (d) (string-match-p "PS301" (flymake-diagnostic-text d)))
                      (flymake-diagnostics)))
       (goto-char (point-min))
       (search-forward ":desciption")
       (keys-ready 1))                  ; C-c , e
      ((and (= keys-step 1) (string-match-p "PS301 (warning)"
                                            (or (keys-buffer-text "*Help*") "")))
       (keys-log "HELP %S" (substring (keys-buffer-text "*Help*") 0 40))
       (keys-ready 2))                  ; C-c , j RET
      ((and (= keys-step 2) (keys-buffer-text "*plistspec-json*"))
       (keys-log "PROMPTS %S" keys-prompts)
       (keys-log "JSON %s" (json-encode (keys-buffer-text "*plistspec-json*")))
       (keys-log "HEADER %S" (with-current-buffer "*plistspec-json*" header-line-format))
       (keys-ready 3))                  ; C-c , F
      ((and (= keys-step 3) (string-match-p "plistspec: fixed"
                                            (keys-buffer-text "*Messages*")))
       (keys-log "FIXED-BUFFER %S %S"
                 (with-current-buffer "*Messages*"
                   (goto-char (point-max))
                   (search-backward "plistspec: fixed")
                   (buffer-substring (point) (line-end-position)))
                 (string-match-p "ignore\\\\[" (buffer-string)))
       (keys-ready 4))                  ; C-c , f
      ((and (= keys-step 4) (string-match-p ":description \\"The file" (buffer-string)))
       (keys-log "FIXED-AT-POINT %s"
                 (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
       (set-buffer-modified-p nil)
       (kill-emacs 0))))))
"""

KEYS_TOOLS = """;;; my-tools.el --- Tools  -*- lexical-binding: t; -*-
(gptel-make-tool
 :name "read_file"
 :function #'my-read-file
 :description "Read a file."
 :args (list '(:name "path" :type string :desciption "The file.") ; plistspec: ignore[PS333]
             '(:name "n" :type integer :description "Lines." :required t)))
"""


@pytest.mark.slow
@pytest.mark.emacs
def test_keys_drive_the_commands_in_a_real_emacs(emacs, elisp_deps_dir, tmp_path) -> None:
    """In ``emacs -nw`` with the real gptel loaded and the README's set-up, the keys typed:
    ``C-c , e`` explains the finding at point, ``C-c , j RET`` shows the tool's JSON in the
    format of gptel's default backend (the Responses API), ``C-c , F`` applies the safe fix and
    says how to apply the unsafe ones, ``C-c , f`` fixes the key at point."""
    tools = make_project(tmp_path)
    tools.write_text(KEYS_TOOLS, encoding="utf-8")
    bin_dir = plistspec_on_path(tmp_path)
    out = tmp_path / "report.txt"
    ready = tmp_path / "ready"
    code = KEYS_SESSION.format(
        deps=elisp_deps_preamble(elisp_deps_dir),
        snippet=readme_snippet().replace("/path/to/plistspec", str(ROOT)),
        tools=lisp_string(str(tools)),
        out=lisp_string(str(out)),
        ready=lisp_string(str(ready)),
    )
    report = run_interactive_emacs(
        emacs,
        code,
        out,
        timeout=200,
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)},
        keys=[
            (Path(f"{ready}1"), C_C + b",e"),
            (Path(f"{ready}2"), C_C + b",j" + RET),
            (Path(f"{ready}3"), C_C + b",F"),
            (Path(f"{ready}4"), C_C + b",f"),
        ],
    )
    lines = dict(line.partition(" ")[::2] for line in report.splitlines())
    assert "TIMEOUT" not in lines, report
    assert lines["HELP"].startswith('"PS301 (warning): unknown keyword'), report
    assert "Format (default openai-responses): " in lines["PROMPTS"], report
    tool = json.loads(json.loads(lines["JSON"]))
    assert tool["type"] == "function" and tool["name"] == "read_file", report
    assert "function" not in tool  # the Responses shape, not Chat Completions'
    assert lines["HEADER"] == '"Tool read_file: openai-responses"', report
    assert "fixed 1 finding; 2 findings left, 2 with an unsafe fix" in lines["FIXED-BUFFER"]
    assert "C-u C-c , F applies them" in lines["FIXED-BUFFER"], report
    assert lines["FIXED-BUFFER"].endswith(" nil"), report  # the unused suppression went
    assert ':description "The file."' in lines["FIXED-AT-POINT"], report


GPTEL_BACKENDS = """
{deps}
(require 'gptel)
(dolist (lib '(gptel-openai gptel-anthropic gptel-gemini gptel-ollama gptel-bedrock gptel-gh
               gptel-openai-extras gptel-kagi))
  (require lib))
{preamble}
(setq plistspec-executable (list {python} "-m" "plistspec"))
(defvar gptel-formats-tools nil)
(advice-add 'gptel-make-tool :filter-return (lambda (tool) (push tool gptel-formats-tools) tool))
(load {tools} nil t)
(defun gptel-formats-write (name backend)
  (let ((format (plistspec-backend-format backend)))
    (with-temp-file (expand-file-name (concat name ".json") {out})
      (insert (json-encode
               (list (cons 'format format)
                     (cons 'gptel (gptel--json-encode
                                   (gptel--parse-tools backend (reverse gptel-formats-tools))))
                     (cons 'plistspec (with-current-buffer (find-file-noselect {tools})
                                        (plistspec-json-string format)))))))))
;; gptel's own default, before any backend is defined: the "ChatGPT" it makes
(with-temp-file (expand-file-name "default.txt" {out})
  (insert (plistspec-backend-format)))
(dolist (backend (list (gptel-make-openai "ChatGPT" :key "k")
                       (gptel-make-openai "local" :host "localhost:8080" :key "k")
                       (gptel-make-azure "azure" :host "x.openai.azure.com" :key "k")
                       (gptel-make-anthropic "Claude" :key "k")
                       (gptel-make-gemini "Gemini" :key "k")
                       (gptel-make-ollama "Ollama")
                       (gptel-make-bedrock "Bedrock" :aws-bearer-token "t")
                       (gptel-make-deepseek "DeepSeek" :key "k")
                       (gptel-make-perplexity "Perplexity" :key "k")))
  (gptel-formats-write (gptel-backend-name backend) backend))
(let ((copilot (gptel-make-gh-copilot "Copilot")))
  (let ((gptel-model 'gpt-5-mini)) (gptel-formats-write "Copilot-gpt-5-mini" copilot))
  (let ((gptel-model 'gpt-4o)) (gptel-formats-write "Copilot-gpt-4o" copilot)))
;; the backend the user chose is the default of the prompt
(setq gptel-backend (gptel-get-backend "Claude"))
(with-temp-buffer
  (insert "(gptel-make-tool :name \\"f\\" :description \\"F.\\" :function #'ignore)")
  (call-interactively #'plistspec-show-json))
"""

TOOLS_FOR_FORMATS = """;;; t.el --- Tools  -*- lexical-binding: t; -*-
(gptel-make-tool
 :name "get_weather"
 :function (lambda (location unit) (list location unit))
 :description "Weather."
 :args (list '(:name "location" :type string :description "Where.")
             '(:name "unit" :type string :enum ["c" "f"] :description "Unit." :optional t)))
(gptel-make-tool :name "now" :function #'ignore :description "The time.")
"""


@pytest.mark.slow
@pytest.mark.emacs
def test_default_format_is_what_the_real_gptel_sends(emacs, elisp_deps_dir, tmp_path) -> None:
    """For each backend of the real gptel 0.9.9.5, ``plistspec-backend-format`` names the format
    whose JSON (``plistspec to-json``) is the tools JSON that backend builds
    (``gptel--parse-tools``); the prompt of ``plistspec-show-json`` offers the current one."""
    tools = tmp_path / "t.el"
    tools.write_text(TOOLS_FOR_FORMATS, encoding="utf-8")
    out = tmp_path / "formats"
    out.mkdir()
    stdout = run_emacs(
        emacs,
        GPTEL_BACKENDS.format(
            deps=elisp_deps_preamble(elisp_deps_dir),
            preamble=preamble(),
            python=lisp_string(sys.executable),
            tools=lisp_string(str(tools)),
            out=lisp_string(str(out)),
        ),
        stdin="\n",
    )
    assert "Format (default anthropic): " in stdout
    assert (out / "default.txt").read_text() == "openai-responses"
    expected = {
        "ChatGPT": "openai-responses",
        "local": "openai",
        "azure": "openai",
        "Claude": "anthropic",
        "Gemini": "gemini",
        "Ollama": "ollama",
        "Bedrock": "bedrock",
        "DeepSeek": "openai",
        "Perplexity": "openai",
        "Copilot-gpt-5-mini": "openai-responses",
        "Copilot-gpt-4o": "openai",
    }
    for name, fmt in expected.items():
        got = json.loads((out / f"{name}.json").read_text())
        assert got["format"] == fmt, name
        assert json.loads(got["plistspec"]) == json.loads(got["gptel"]), name
