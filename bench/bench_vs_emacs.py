"""``plistspec to-json -t openai`` against Emacs batch doing the same job, side by side.

The job, on the generated tools file (``gen_tools.py``, default 10 MB): read every form,
turn each tool into what the library sends to OpenAI, serialize it all as JSON.

* Python: ``python -m plistspec to-json -t openai FILE -o OUT`` (a whole process).
* Emacs: ``emacs --batch`` loading the real gptel 0.9.9.5 and llm 0.31.1 (from
  ``../shared/elisp-deps`` or ``$PLISTSPEC_ELISP_DEPS``), reading the file with ``read``,
  evaluating each form (``gptel-make-tool`` / ``llm-make-tool`` build the tool structs),
  converting them with gptel's own ``gptel--parse-tools`` (the OpenAI backend) and llm's
  ``llm-provider-utils-openai-tool-spec``, and ``json-serialize`` of the result, written
  to a file. Load time of gptel/llm is excluded (timed inside Emacs from after the
  ``require``s); Python's whole process is included, so the ratio is conservative.

Prints the minimum of ``--runs`` (default 3) runs of each, and the ratio Python / Emacs.

    python bench/bench_vs_emacs.py [--size 10M] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

sys.path.insert(0, str(ROOT / "tests"))

from gen_tools import generate, parse_size  # noqa: E402

from support import elisp_deps, elisp_deps_preamble  # noqa: E402

ELISP = r"""
%(preamble)s
(require 'gptel)
(require 'gptel-openai)
(require 'llm)
(require 'llm-openai)
(setq gc-cons-threshold (* 64 1024 1024))
(let* ((t0 (float-time))
       (backend (gptel--make-openai :name "bench"))
       (forms (with-temp-buffer
                (insert-file-contents %(file)s)
                (goto-char (point-min))
                (let (out)
                  (condition-case nil
                      (while t (push (read (current-buffer)) out))
                    (end-of-file))
                  (nreverse out))))
       (gptel-tools nil)
       (specs nil))
  (dolist (f forms)
    (let ((tool (eval f t)))
      (cond ((gptel-tool-p tool)
             (push (aref (gptel--parse-tools backend (list tool)) 0) specs))
            ((llm-tool-p tool)
             (push (llm-provider-utils-openai-tool-spec tool) specs)))))
  (let ((json (json-serialize (vconcat (nreverse specs))
                              :null-object :null :false-object :json-false)))
    (with-temp-file %(out)s (insert json)))
  (princ (format "%%.3f %%d\n" (- (float-time) t0) (length forms))))
"""


def lisp_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def run_emacs(deps: Path, path: Path, out: Path) -> tuple[float, float]:
    """(whole-process seconds, seconds inside Emacs after loading gptel/llm)."""
    code = ELISP % {
        "preamble": elisp_deps_preamble(deps),
        "file": lisp_string(str(path)),
        "out": lisp_string(str(out)),
    }
    t = time.perf_counter()
    r = subprocess.run(
        ["emacs", "--batch", "-Q", "--eval", "(progn " + code + ")"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit("emacs failed:\n" + r.stderr[-2000:])
    inner = float(r.stdout.split()[0])
    return wall, inner


def run_python(path: Path, out: Path) -> float:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "plistspec", "to-json", "-t", "openai", str(path), "-o", str(out)]
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    wall = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit("plistspec failed:\n" + r.stderr[-2000:])
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="10M")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    deps = elisp_deps()
    if deps is None:
        raise SystemExit("the real gptel/llm are not found (set PLISTSPEC_ELISP_DEPS)")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tools.el"
        text, _ = generate(parse_size(a.size))
        path.write_text(text, encoding="utf-8")
        py, em, em_in = [], [], []
        for _ in range(a.runs):  # interleaved
            py.append(run_python(path, Path(tmp) / "py.json"))
            w, i = run_emacs(deps, path, Path(tmp) / "el.json")
            em.append(w)
            em_in.append(i)
        mb = len(text.encode()) / 1e6
        print(f"input: {mb:.1f} MB, min of {a.runs} runs")
        print(f"plistspec to-json -t openai (whole process): {min(py):6.2f} s")
        print(f"emacs --batch (whole process)              : {min(em):6.2f} s")
        print(f"emacs --batch (after loading gptel/llm)    : {min(em_in):6.2f} s")
        print(f"ratio plistspec / emacs (whole process)    : {min(py) / min(em):6.2f}x")
        print(f"ratio plistspec / emacs (after loading)    : {min(py) / min(em_in):6.2f}x")


if __name__ == "__main__":
    main()
