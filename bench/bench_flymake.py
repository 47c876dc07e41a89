"""What Flymake waits for: ``check --output-format json`` of a real-sized tools buffer.

Goal (issue 11): at most 100 ms median wall, process start included, on a ~200 KB tools
file (default ``fixtures/elisp/large_tools.el``, written by ``gen_large_tools.py``).
Prints the median of ``--runs`` of:

* one-shot: ``python -m plistspec check --output-format json --exit-zero --stdin-filename F -``
  with the buffer on standard input (a whole process per check, as Flymake runs it
  without the server);
* server: one ``plistspec check --server`` process kept running (as the Emacs package
  keeps it), each request timed from sending the buffer to the end of the reply; the
  reply is checked to be the one-shot output byte for byte. The server's start-up (once
  per Emacs session) is printed separately;
* from Emacs through the package: ``emacs --batch`` visiting the file and calling the
  ``plistspec-flymake`` backend of the package in ``elisp/``, timed from the call to the
  report of the diagnostics (sending the buffer, the check, parsing the JSON and making
  Flymake diagnostics included), with ``plistspec-use-server`` on (after the server's
  first check) and off (a process per check). Skipped when there is no ``emacs``.

    python bench/bench_flymake.py [FILE] [--runs 21]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ)
ENV["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")
ENV.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode cached


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default=str(ROOT / "fixtures" / "elisp" / "large_tools.el"))
    ap.add_argument("--runs", type=int, default=21)
    a = ap.parse_args()
    data = Path(a.file).read_bytes()
    args = ["--output-format", "json", "--exit-zero", "--stdin-filename", Path(a.file).name, "-"]
    cmd = [sys.executable, "-m", "plistspec", "check", *args]

    one_shot = []
    expected = subprocess.run(
        cmd, input=data, capture_output=True, env=ENV, check=True, timeout=600
    ).stdout
    for _ in range(a.runs):
        t = time.perf_counter()
        subprocess.run(cmd, input=data, capture_output=True, env=ENV, check=True, timeout=600)
        one_shot.append(time.perf_counter() - t)

    t = time.perf_counter()
    server = subprocess.Popen(
        [sys.executable, "-m", "plistspec", "check", "--server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=ENV,
    )
    assert server.stdin is not None and server.stdout is not None
    request = json.dumps({"args": args, "length": len(data)}).encode() + b"\n" + data
    served = []
    started = None
    try:
        for i in range(a.runs + 1):
            t0 = time.perf_counter()
            server.stdin.write(request)
            server.stdin.flush()
            head = json.loads(server.stdout.readline())
            out = server.stdout.read(head["stdout"])
            server.stdout.read(head["stderr"])
            took = time.perf_counter() - t0
            if i == 0:
                started = time.perf_counter() - t  # start-up + first request
            else:
                served.append(took)
            if out != expected:
                raise SystemExit("the server's reply differs from the one-shot output")
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    kb = len(data) / 1000
    print(f"{a.file} ({kb:.0f} KB), median of {a.runs} runs")
    print(
        f"one-shot check --output-format json (process start included): "
        f"{statistics.median(one_shot) * 1000:7.1f} ms"
    )
    print(
        f"check --server, per request                           : "
        f"{statistics.median(served) * 1000:7.1f} ms"
    )
    print(f"check --server, start-up + first request (once)        : {started * 1000:7.1f} ms")
    emacs = shutil.which("emacs")
    if emacs is None:
        print("from Emacs through the package: skipped (no emacs)")
        return
    for server in (True, False):
        times = from_emacs(emacs, Path(a.file).resolve(), a.runs, server)
        label = "server" if server else "one-shot"
        print(
            f"from Emacs, plistspec-flymake ({label:8})             : "
            f"{statistics.median(times) * 1000:7.1f} ms"
        )


EMACS_BENCH = """(progn
(setq load-prefer-newer t)
(add-to-list 'load-path (file-name-directory {package}))
(load {package} nil t)
(setq plistspec-executable (list {python} "-m" "plistspec"))
(setq plistspec-use-server {server})
(defun bench-check ()
  (let ((reported 'none) (deadline (+ (float-time) 60)) (t0 (float-time)))
    (plistspec-flymake (lambda (d &rest _) (setq reported d)))
    (while (and (eq reported 'none) (< (float-time) deadline))
      (accept-process-output nil 0.001))
    (unless (listp reported) (error "plistspec-flymake reported %S" reported))
    (- (float-time) t0)))
(with-current-buffer (find-file-noselect {file})
  (bench-check)
  (dotimes (_ {runs})
    (princ (format "%f\n" (bench-check))))))
"""


def lisp_string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def from_emacs(emacs: str, file: Path, runs: int, server: bool) -> list[float]:
    """Seconds of each ``plistspec-flymake`` check of ``file`` in a batch Emacs."""
    code = EMACS_BENCH.format(
        package=lisp_string(str(ROOT / "elisp" / "plistspec.el")),
        python=lisp_string(sys.executable),
        server="t" if server else "nil",
        file=lisp_string(str(file)),
        runs=runs,
    )
    out = subprocess.run(
        [emacs, "--batch", "-Q", "--eval", code],
        capture_output=True,
        env=ENV,
        timeout=600,
        check=True,
        text=True,
    ).stdout
    return [float(x) for x in out.split()]


if __name__ == "__main__":
    main()
