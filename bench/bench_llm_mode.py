"""What ``plistspec-llm-mode`` adds to an llm request, and to each tool call.

Goals (issue 28): an unchanged tool set of 100 tools costs at most 2 ms more per request;
checking one call at most 1 ms.

Runs in a real ``emacs --batch`` with the real llm 0.31.1 (``$PLISTSPEC_ELISP_DEPS``) and
this checkout's package byte-compiled (as package.el installs it), the ``check --server`` process started once (as in a user's
session). Tool sets of N generated ``llm-make-tool`` tools (each with a nested object, an
optional argument, an integer enum and an array) are turned into a request body by
``llm-provider-chat-request``, what llm calls for every request of every entry point (the
body is then written as JSON and sent, which costs the same with and without the mode):

* llm alone: the median time to build the body with the mode off;
* mode, same tools: with the mode on, the same tool set every time (the package reuses the
  lowered JSON: nothing is asked of the process);
* mode, 1 tool new: one tool's description differs each time (that tool is lowered again);
* call: one tool call checked end to end (its arguments written as JSON, the round trip to
  the process, the answer read, llm's tools wrapped for it), a valid and an invalid one
  (Gemini: the integer enum lowering moved into the description is enforced).

The machine's load shows: take the smallest of a few runs.

    PLISTSPEC_ELISP_DEPS=../shared/elisp-deps python bench/bench_llm_mode.py [--runs 30]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEPS_DIRS = ["compat", "llm", "plz", "plz-media-type", "plz-event-source"]

ELISP = r"""
(defun bench-tool (i tag)
  (llm-make-tool
   :name (format "tool_%d" i) :function #'ignore
   :description (format "Tool number %d %s" i tag)
   :args (list '(:name "query" :type string :description "What to look for")
               '(:name "level" :type integer :enum [1 2 3])
               '(:name "filter" :type object :optional t
                       :properties (:kind (:type string :enum ["a" "b"])
                                    :since (:type string :format "date-time")))
               '(:name "tags" :type array :items (:type string) :optional t))))

(defun bench-tools (n tag) (cl-loop for i below n collect (bench-tool i tag)))

(defun bench-median (xs) (let ((s (sort (copy-sequence xs) #'<))) (nth (/ (length s) 2) s)))

(defun bench-request (provider tools)
  (let ((prompt (llm-make-chat-prompt "hi" :tools tools))
        (t0 (float-time)))
    (llm-provider-chat-request provider prompt nil)
    (* 1000 (- (float-time) t0))))

(defun bench-series (provider n runs mode changed)
  "Median ms of RUNS bodies; CHANGED: one tool new each time."
  (let ((times nil) (tools (bench-tools n "x")))
    (plistspec-llm-mode (if mode 1 -1))
    (bench-request provider tools)        ; warm
    (dotimes (r runs)
      (when changed
        (setq tools (cons (bench-tool 0 (format "run %d %s" r (random))) (cdr tools))))
      (garbage-collect)
      (push (bench-request provider tools) times))
    (bench-median times)))

(defun bench-call (provider runs args)
  "Median ms of checking one call with ARGS (an alist) of tool_7 among 100 tools."
  (let* ((tools (bench-tools 100 "call"))
         (prompt (llm-make-chat-prompt "hi" :tools tools))
         (times nil))
    (plistspec-llm-mode 1)
    (llm-provider-chat-request provider prompt nil)
    (let ((plan (gethash prompt plistspec-llm--plans)))
      (dotimes (_ (1+ runs))
        (let ((use (make-llm-provider-utils-tool-use :id "c" :name "tool_7"
                                                     :args (copy-tree args t)))
              (t0 (float-time)))
          ;; the echo-area message of a blocked call is not timed (batch Emacs writes it
          ;; to standard error, a cost a session does not pay)
          (cl-letf (((symbol-function 'message) #'ignore))
            (plistspec-llm--batch plan prompt (list use)))
          (push (* 1000 (- (float-time) t0)) times))))
    (bench-median (cdr (nreverse times)))))

(let ((out nil) (runs bench-runs))
  (dolist (n '(10 100 500))
    (dolist (p (list (cons "gemini" bench-gemini) (cons "openai-responses" bench-responses)
                     (cons "openai" bench-compatible)))
      (push (list :tools n :provider (car p)
                  :off (bench-series (cdr p) n runs nil nil)
                  :on (bench-series (cdr p) n runs t nil)
                  :one (bench-series (cdr p) n (max 3 (/ runs 3)) t t))
            out)))
  (princ (json-encode
          (list :requests (vconcat (nreverse out))
                :valid (bench-call bench-gemini (* 4 runs) '((query . "q") (level . 2)))
                :invalid (bench-call bench-gemini (* 4 runs)
                                     '((query . 3) (level . 9) (filter (kind . "z"))))))))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    deps = Path(os.environ.get("PLISTSPEC_ELISP_DEPS") or ROOT.parent / "shared" / "elisp-deps")
    if not (deps / "llm" / "llm.el").is_file() or shutil.which("emacs") is None:
        sys.exit("needs emacs and the real llm: set PLISTSPEC_ELISP_DEPS")
    dirs = " ".join(json.dumps(str(deps / d)) for d in DEPS_DIRS)
    # the package byte-compiled, as package.el installs it
    elc = Path(tempfile.mkdtemp(prefix="plistspec-elc-"))
    for f in (ROOT / "elisp").glob("*.el"):
        shutil.copy(f, elc)
    subprocess.run(
        ["emacs", "--batch", "-Q", "-L", str(elc), "-f", "batch-byte-compile",
         *sorted(str(f) for f in elc.glob("*.el"))],
        capture_output=True, check=True, timeout=600,
    )  # fmt: skip
    code = f"""
(dolist (d (list {dirs})) (push d load-path))
(require 'compat) (require 'llm) (require 'llm-openai) (require 'llm-gemini)
(require 'json)
(setenv "PYTHONPATH" {json.dumps(str(ROOT / "src"))})
(push {json.dumps(str(elc))} load-path)
(require 'plistspec)
(setq plistspec-executable (list {json.dumps(sys.executable)} "-m" "plistspec"))
(setq plistspec-llm-wait 60)
(defvar bench-runs {a.runs})
(defvar bench-gemini (make-llm-gemini :key "k" :chat-model "m"))
(defvar bench-responses (make-llm-openai :key "k" :chat-model "m"))
(defvar bench-compatible (make-llm-openai-compatible :url "http://127.0.0.1:9/" :chat-model "m"))
{ELISP}
"""
    with tempfile.NamedTemporaryFile("w", suffix=".el", delete=False) as f:
        f.write(";; -*- lexical-binding: t -*-\n" + code)
    try:
        p = subprocess.run(
            ["emacs", "--batch", "-Q", "-l", f.name], capture_output=True, text=True, timeout=3600
        )
    finally:
        os.unlink(f.name)
        shutil.rmtree(elc, ignore_errors=True)
    if p.returncode != 0:
        sys.exit(p.stderr[-3000:])
    r = json.loads(p.stdout)
    print("one request body built (llm-provider-chat-request), median ms; the mode's cost")
    print("is the difference with llm alone")
    head = ["tools", "provider", "llm alone", "mode: same", "mode - alone", "1 tool new"]
    print(f"{head[0]:>5} {head[1]:<17} {head[2]:>10} {head[3]:>11} {head[4]:>13} {head[5]:>11}")
    for x in r["requests"]:
        print(
            f"{x['tools']:>5} {x['provider']:<17} {x['off']:>10.2f} {x['on']:>11.2f} "
            f"{x['on'] - x['off']:>13.2f} {x['one']:>11.2f}"
        )
    print(f"one call checked: valid {r['valid']:.2f} ms, invalid {r['invalid']:.2f} ms")
    print("goals: same tools <= 2 ms more than llm alone for 100 tools; a call <= 1 ms")


if __name__ == "__main__":
    main()
