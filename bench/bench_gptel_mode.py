"""What ``plistspec-gptel-mode`` adds to a gptel request, and to each tool call: the real path.

Goals (issue 27), 100 real MCP tools: an unchanged tool set at most 2 ms per request, one
tool changed at most 50 ms, the first request of a session at most 250 ms; 500 tools
unchanged at most 5 ms; one call checked at most 1 ms.

Runs in a real ``emacs --batch`` with the real gptel 0.9.9.5 and the real mcp.el
(``$PLISTSPEC_ELISP_DEPS``) and this checkout's package. The tools are real MCP tools:
the fixtures' ``tools/list`` payloads (GitHub, filesystem, playwright, everything, a
pydantic/FastMCP server with ``$defs``), copied under new names up to N, registered by
mcp.el's own ``mcp-make-text-tool`` from a connection (as ``mcp-hub`` does, category
``mcp-NAME``). Each request is ``gptel-request :dry-run t``, which builds the whole request
(``gptel--realize-query``: the mode's planning, gptel's own JSON) without sending it:

* gptel alone: the median time to build a request with the mode off;
* same: the mode on, the same tool set every time (what a user pays per request);
* 1 tool new: one tool re-registered with another description before each request;
* first: the first request of a session (caches empty, the process started by it);
* first, warmed: the same after the mode's idle warm-up (``plistspec-gptel-warm``: the
  process started and the default tools lowered once Emacs was idle after the mode was
  turned on), what a user who turns the mode on at startup gets;
* call: one tool call checked end to end (arguments written as JSON, the round trip to
  the process, the answer read), a valid call and an invalid one.

    PLISTSPEC_ELISP_DEPS=../shared/elisp-deps python bench/bench_gptel_mode.py [--runs 15]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEPS_DIRS = ["compat", "gptel", "transient/lisp", "cond-let", "llama", "plz", "mcp.el"]
PAYLOADS = [
    "mcp_github_server.json",
    "mcp_filesystem_server.json",
    "mcp_playwright_server.json",
    "mcp_everything_server.json",
    "mcp_fastmcp_pydantic.json",
]

ELISP = r"""
(cl-defmethod mcp--tools ((connection (head bench-stub)))
  "The tools/list of a stubbed CONNECTION."
  (cdr connection))

(defun bench-register (server file)
  "Register the tools of the tools/list FILE as mcp-hub does, for SERVER; return them."
  (let* ((data (with-temp-buffer
                 (insert-file-contents file)
                 (json-parse-buffer :object-type 'plist :null-object nil
                                    :false-object :json-false)))
         (tools (append (plist-get data :tools) nil)))
    (puthash server (cons 'bench-stub tools) mcp-server-connections)
    (mapcar (lambda (tl)
              (apply #'gptel-make-tool
                     (append (list :function #'ignore :category (concat "mcp-" server))
                             (mcp-make-text-tool server (plist-get tl :name)))))
            tools)))

(defun bench-median (xs) (let ((s (sort (copy-sequence xs) #'<))) (nth (/ (length s) 2) s)))

(defun bench-request (tools)
  (let ((gptel-tools tools) (gptel-use-tools t) (t0 (float-time)))
    (gptel-request "hi" :dry-run t :callback #'ignore)
    (* 1000 (- (float-time) t0))))

(defun bench-fresh-session ()
  (plistspec-restart-server)
  (clrhash plistspec-gptel--sets)
  (clrhash plistspec-gptel--declared)
  (setq plistspec-gptel--recent nil))

(defun bench-series (backend tools runs mode changed)
  "Median ms of RUNS requests; CHANGED: nil, `one' or `first'."
  (let ((gptel-backend backend) (gptel-model 'm) (times nil))
    (plistspec-gptel-mode (if mode 1 -1))
    (unless (memq changed '(first warm)) (bench-request tools))      ; warm
    (dotimes (r runs)
      (pcase changed
        ('one (let ((new (copy-sequence (car tools))))
                (aset new (cl-struct-slot-offset 'gptel-tool 'description)
                      (format "run %d %s" r (random)))
                (setq tools (cons new (cdr tools)))))
        ('first (bench-fresh-session))
        ('warm (bench-fresh-session)
               (let ((gptel-backend backend) (gptel-tools tools))
                 (plistspec-gptel-warm)
                 (let ((end (+ (float-time) 20)))
                   (while (and (= 0 (hash-table-count plistspec-gptel--sets))
                               (< (float-time) end))
                     (accept-process-output nil 0.01))))))
      (garbage-collect)                   ; each request starts from the same heap
      (push (bench-request tools) times))
    (bench-median times)))

(defun bench-call (tools runs args)
  (let* ((gptel-backend bench-gemini) (gptel-model 'm) (times nil) (fsm nil))
    (plistspec-gptel-mode 1)
    (let ((gptel-tools tools) (gptel-use-tools t))
      (setq fsm (gptel-request "hi" :dry-run t :callback #'ignore)))
    (let* ((plan (gethash fsm plistspec-gptel--plans))
           (entry (gethash "search_tickets_0" (plistspec-gptel--plan-names plan))))
      (dotimes (_ (1+ runs))
        (let ((t0 (float-time)))
          (plistspec-gptel--ask `((kind . "call") (id . ,(cdr entry)) (emacs . t))
                                (plistspec-gptel--encode args))
          (push (* 1000 (- (float-time) t0)) times))))
    (bench-median (cdr (nreverse times)))))

(let ((out nil) (runs bench-runs) (all nil))
  (dolist (n '(100 500))
    (setq all (bench-register (format "many%d" n) (cdr (assoc n bench-files))))
    (dolist (b (list (cons "gemini" bench-gemini) (cons "openai-responses" bench-responses)
                     (cons "openai" bench-openai)))
      (push (list :tools n :backend (car b)
                  :off (bench-series (cdr b) all runs nil nil)
                  :on (bench-series (cdr b) all runs t nil)
                  :one (bench-series (cdr b) all runs t 'one)
                  :first (bench-series (cdr b) all (max 3 (/ runs 3)) t 'first)
                  :warm (bench-series (cdr b) all (max 3 (/ runs 3)) t 'warm))
            out)))
  (princ (json-encode
          (list :requests (vconcat (nreverse out))
                :valid (bench-call all (* 4 runs)
                                   '(:query "q" :tags [(:key "k" :value "v")]))
                :invalid (bench-call all (* 4 runs)
                                     '(:query 3 :tags [(:key "k")] :sort "random"))))))
"""


def tools_file(n: int, folder: Path) -> Path:
    """``n`` real MCP tools: the fixtures' payloads copied under new names, as tools/list."""
    tools = []
    for name in PAYLOADS:
        data = json.loads((ROOT / "fixtures" / "json" / name).read_text())
        tools.extend(data.get("result", data)["tools"])
    out = [
        dict(t, name=f"{t['name']}_{i // len(tools)}")
        for i, t in zip(range(n), itertools.cycle(tools), strict=False)
    ]
    # the call benchmark's tool comes first (search_tickets_0)
    out.sort(key=lambda t: t["name"] != "search_tickets_0")
    path = folder / f"tools_{n}.json"
    path.write_text(json.dumps({"tools": out}))
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    deps = Path(os.environ.get("PLISTSPEC_ELISP_DEPS") or ROOT.parent / "shared" / "elisp-deps")
    if not (deps / "mcp.el" / "mcp.el").is_file() or shutil.which("emacs") is None:
        sys.exit("needs emacs and the real gptel and mcp.el: set PLISTSPEC_ELISP_DEPS")
    dirs = " ".join(json.dumps(str(deps / d)) for d in DEPS_DIRS)
    with tempfile.TemporaryDirectory() as tmp:
        files = {n: tools_file(n, Path(tmp)) for n in (100, 500)}
        alist = " ".join(f"({n} . {json.dumps(str(p))})" for n, p in files.items())
        code = f"""
(dolist (d (list {dirs})) (push d load-path))
(require 'compat) (require 'gptel) (require 'gptel-gemini) (require 'gptel-openai-responses)
(require 'mcp) (require 'json)
(setenv "PYTHONPATH" {json.dumps(str(ROOT / "src"))})
(push {json.dumps(str(ROOT / "elisp"))} load-path)
(require 'plistspec)
(require 'plistspec-gptel)
(setq plistspec-executable (list {json.dumps(sys.executable)} "-m" "plistspec"))
(setq plistspec-gptel-wait 60)
(defvar bench-runs {a.runs})
(defvar bench-files '({alist}))
(defvar bench-gemini (gptel-make-gemini "g" :key "k" :models '(m)))
(defvar bench-responses (gptel-make-openai-responses "r" :key "k" :models '(m)))
(defvar bench-openai (gptel-make-openai "o" :key "k" :models '(m)))
{ELISP}
"""
        script = Path(tmp) / "bench.el"
        script.write_text(";; -*- lexical-binding: t -*-\n" + code)
        p = subprocess.run(
            ["emacs", "--batch", "-Q", "-l", str(script)],
            capture_output=True,
            text=True,
            timeout=3600,
        )
    if p.returncode != 0:
        sys.exit(p.stderr[-3000:])
    r = json.loads(p.stdout.strip().splitlines()[-1])
    print("one request built by the real gptel (gptel-request :dry-run t) with N real MCP tools")
    print("registered by mcp.el; median wall ms (garbage collection included)")
    head = ["gptel alone", "mode: same", "1 tool new", "first", "first warmed"]
    print(f"{'tools':>5} {'backend':<17} " + " ".join(f"{h:>12}" for h in head))
    for x in r["requests"]:
        cells = " ".join(f"{x[k]:>12.2f}" for k in ("off", "on", "one", "first", "warm"))
        print(f"{x['tools']:>5} {x['backend']:<17} {cells}")
    print(f"one call checked: valid {r['valid']:.2f} ms, invalid {r['invalid']:.2f} ms")
    print(
        "goals: 100 tools: same <= 2 ms, 1 tool new <= 50 ms, first <= 250 ms; "
        "500 tools: same <= 5 ms; a call <= 1 ms"
    )


if __name__ == "__main__":
    main()
