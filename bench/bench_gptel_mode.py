"""What ``plistspec-gptel-mode`` adds to a gptel request, and to each tool call.

Goals (issue 21): an unchanged tool set costs at most 5 ms per request for 100 tools, a
changed one at most 150 ms; checking one call at most 2 ms.

Runs in a real ``emacs --batch`` with the real gptel 0.9.9.5 (``$PLISTSPEC_ELISP_DEPS``)
and this checkout's package, the ``check --server`` process started once (as in a user's
session). Tool sets of N generated tools (each with a nested object, an optional
argument, an integer enum and a type list: every one needs lowering for Gemini and for
OpenAI Responses' strict mode) are sent with ``gptel-request :dry-run t``, which builds the
whole request (gptel's own ``gptel--parse-tools`` and JSON included) without sending it:

* gptel alone: the median time to build a request with the mode off;
* same: with the mode on, the same tool set every time (the package reuses the lowered
  JSON: no JSON is made, nothing is asked of the process);
* 1 tool new: one tool's description differs each time (gptel's JSON is made and sent to
  the process, which lowers only that tool again: its caches are keyed by content);
* all new: every tool differs (the whole set lowered again);
* call: one tool call checked end to end (arguments written as JSON, the round trip to
  the process, the answer read), a valid call and an invalid one.

    PLISTSPEC_ELISP_DEPS=../shared/elisp-deps python bench/bench_gptel_mode.py [--runs 15]
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
DEPS_DIRS = ["compat", "gptel", "transient/lisp", "cond-let", "llama", "plz"]

ELISP = r"""
(defun bench-tool (i tag)
  (gptel--make-tool
   :name (format "tool_%d" i) :function #'ignore
   :description (format "Tool number %d %s" i tag)
   :args (list '(:name "query" :type string :description "What to look for")
               '(:name "level" :type integer :enum [1 2 3])
               (list :name "filter" :type 'object :optional t
                     :properties '(:kind (:type string :enum ["a" "b"])
                                   :since (:type ["string" "null"] :format "date-time")))
               '(:name "tags" :type array :items (:type string) :optional t))))

(defun bench-tools (n tag) (cl-loop for i below n collect (bench-tool i tag)))

(defun bench-median (xs) (let ((s (sort (copy-sequence xs) #'<))) (nth (/ (length s) 2) s)))

(defvar bench-gc nil "GC milliseconds of each request, newest first.")

(defun bench-request (tools)
  (let ((gptel-tools tools) (gptel-use-tools t))
    (let ((t0 (float-time)) (gc gc-elapsed))
      (gptel-request "hi" :dry-run t :callback #'ignore)
      (push (* 1000 (- gc-elapsed gc)) bench-gc)
      (* 1000 (- (float-time) t0)))))

(defun bench-series (backend n runs mode changed)
  "Median ms of RUNS requests; CHANGED: nil, `one' or `all' tools new each time."
  (let ((gptel-backend backend) (gptel-model 'm) (times nil) (tools (bench-tools n "x")))
    (plistspec-gptel-mode (if mode 1 -1))
    (setq bench-gc nil)
    (bench-request tools)                 ; warm
    (dotimes (r runs)
      (pcase changed
        ('all (setq tools (bench-tools n (format "run %d %s" r (random)))))
        ('one (setq tools (cons (bench-tool 0 (format "run %d %s" r (random))) (cdr tools)))))
      (garbage-collect)                   ; each request starts from the same heap
      (push (bench-request tools) times))
    (list (bench-median times) (bench-median (cl-mapcar #'- times bench-gc)))))

(defun bench-call (runs args)
  (let* ((gptel-backend bench-gemini) (gptel-model 'm) (tools (bench-tools 100 "call"))
         (times nil) (fsm nil))
    (plistspec-gptel-mode 1)
    (let ((gptel-tools tools) (gptel-use-tools t))
      (setq fsm (gptel-request "hi" :dry-run t :callback #'ignore)))
    (let* ((plan (gethash fsm plistspec-gptel--plans))
           (entry (gethash "tool_7" (plistspec-gptel--plan-names plan))))
      (dotimes (_ (1+ runs))
        (let ((t0 (float-time)))
          (plistspec-gptel--ask `((kind . "call") (id . ,(cdr entry)) (emacs . t))
                                (plistspec-gptel--encode args))
          (push (* 1000 (- (float-time) t0)) times))))
    (bench-median (cdr (nreverse times)))))

(let ((out nil) (runs bench-runs))
  (dolist (n '(10 100 500))
    (dolist (b (list (cons "gemini" bench-gemini) (cons "openai-responses" bench-responses)))
      (let* ((off (bench-series (cdr b) n runs nil nil))
             (cached (bench-series (cdr b) n runs t nil))
             (one (bench-series (cdr b) n runs t 'one))
             (all (bench-series (cdr b) n (max 3 (/ runs 3)) t 'all)))
        (push (list :tools n :backend (car b) :off off :on cached :one one :all all) out))))
  (princ (json-encode
          (list :requests (vconcat (nreverse out))
                :valid (bench-call (* 4 runs) '(:query "q" :level 2))
                :invalid (bench-call (* 4 runs) '(:query 3 :level 9 :filter (:kind "z")))))))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    deps = Path(os.environ.get("PLISTSPEC_ELISP_DEPS") or ROOT.parent / "shared" / "elisp-deps")
    if not (deps / "gptel" / "gptel.el").is_file() or shutil.which("emacs") is None:
        sys.exit("needs emacs and the real gptel: set PLISTSPEC_ELISP_DEPS")
    dirs = " ".join(json.dumps(str(deps / d)) for d in DEPS_DIRS)
    code = f"""
(dolist (d (list {dirs})) (push d load-path))
(require 'compat) (require 'gptel) (require 'gptel-gemini) (require 'gptel-openai-responses)
(require 'json)
(setenv "PYTHONPATH" {json.dumps(str(ROOT / "src"))})
(push {json.dumps(str(ROOT / "elisp"))} load-path)
(require 'plistspec)
(require 'plistspec-gptel)
(setq plistspec-executable (list {json.dumps(sys.executable)} "-m" "plistspec"))
(setq plistspec-gptel-wait 60)
(defvar bench-runs {a.runs})
(defvar bench-gemini (gptel-make-gemini "g" :key "k" :models '(m)))
(defvar bench-responses (gptel-make-openai-responses "r" :key "k" :models '(m)))
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
    if p.returncode != 0:
        sys.exit(p.stderr[-3000:])
    r = json.loads(p.stdout)
    print("one request built (gptel-request :dry-run t), median ms: wall (without the time")
    print("Emacs's garbage collector took during it); the mode's cost is the difference with")
    print("gptel alone (smaller: the mode reuses the JSON gptel would make anew)")
    head = ["tools", "backend", "gptel alone", "mode: same", "1 tool new", "all new"]
    print(f"{head[0]:>5} {head[1]:<17} {head[2]:>15} {head[3]:>15} {head[4]:>15} {head[5]:>15}")

    def cell(v: list[float]) -> str:
        return f"{v[0]:.1f} ({v[1]:.1f})"

    for x in r["requests"]:
        print(
            f"{x['tools']:>5} {x['backend']:<17} {cell(x['off']):>15} {cell(x['on']):>15} "
            f"{cell(x['one']):>15} {cell(x['all']):>15}"
        )
    print(f"one call checked: valid {r['valid']:.2f} ms, invalid {r['invalid']:.2f} ms")
    print("goals: cached <= 5 ms and changed <= 150 ms for 100 tools; a call <= 2 ms")


if __name__ == "__main__":
    main()
