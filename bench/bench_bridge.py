"""Latency of a generated tool's ``:function``, measured from Emacs, over calling the Python
function directly (issue 11 §5: at most 15 ms median overhead for a sync call).

Writes a tools file with ``from-py`` for each bridge (``--bridge worker``, the default: one
persistent Python per module; ``--bridge process``: a new Python per call), loads it in
``emacs --batch`` (into the real gptel when ../shared/elisp-deps or PLISTSPEC_ELISP_DEPS is
there), calls the tool N times synchronously through its ``:function`` and prints the median
and 90th percentile per call, the first call (the worker starting) and the median overhead
over the same call made in Python. Numbers, not pass/fail.

    PYTHONPATH=src python bench/bench_bridge.py [N]
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support import elisp_deps, elisp_deps_preamble  # noqa: E402

TOOL = '''
def lookup(city: str, days: int = 1, metric: bool = True, tags: list[str] | None = None) -> dict:
    """Look a city up.

    Args:
        city: Name of the city.
        days: How many days.
        metric: Metric units.
        tags: Labels.
    """
    return {"city": city, "days": days, "metric": metric, "tags": tags or []}
'''


def _preamble() -> str:
    deps = elisp_deps()
    if deps is None:  # the bridge does not need gptel; a recording constructor will do
        return (
            "(defvar ps-tools nil)\n"
            "(defun gptel-make-tool (&rest slots) (push slots ps-tools) slots)\n"
            "(provide 'gptel)\n"
            "(defun ps-fn (name) (plist-get (seq-find (lambda (s) (equal (plist-get s :name)"
            " name)) ps-tools) :function))\n"
        )
    return (
        elisp_deps_preamble(deps) + "(require 'gptel)\n"
        "(defun ps-fn (name) (gptel-tool-function (gptel-get-tool name)))\n"
    )


def emacs_times(path: Path, n: int) -> list[float]:
    prog = (
        _preamble()
        + f"(load {json.dumps(str(path))} nil t)\n"
        + '(let ((f (ps-fn "lookup")) (times nil))\n'
        f"  (dotimes (i {n + 1})\n"
        '    (let ((t0 (float-time)) (r (funcall f "Zoë" 3 :json-false (vector "a"))))\n'
        "      (push (* 1000 (- (float-time) t0)) times)\n"
        '      (unless (string-prefix-p "{" r) (error "bad result %S" r))))\n'
        "  (princ (json-serialize (vconcat (nreverse times)))))\n"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".el", delete=False, encoding="utf-8") as f:
        f.write(";; -*- lexical-binding: t -*-\n" + prog)
    try:
        out = subprocess.run(
            ["emacs", "--batch", "-Q", "-L", str(ROOT / "elisp"), "-l", f.name],
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout)


def python_ms(d: Path, n: int) -> float:
    sys.path.insert(0, str(d))
    import benchtool

    times = []
    for _ in range(n):
        t = time.perf_counter()
        benchtool.lookup("Zoë", 3, False, ["a"])
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    if shutil.which("emacs") is None:
        raise SystemExit("emacs is not installed")
    env = dict(
        os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")
    )
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "benchtool.py").write_text(TOOL)
        direct = python_ms(d, n)
        print(f"python direct call: median {direct:.4f} ms ({n} calls)")
        print(f"gptel from elisp-deps: {'yes' if elisp_deps() else 'no (recording constructor)'}")
        for bridge in ("worker", "process"):
            out = d / f"tools-{bridge}.el"
            subprocess.run(
                [sys.executable, "-m", "plistspec", "from-py", "benchtool:lookup",
                 "--bridge", bridge, "--python", sys.executable, "-o", str(out)],
                cwd=d, env=env, check=True, capture_output=True, timeout=600,
            )  # fmt: skip
            calls = n if bridge == "worker" else max(10, n // 10)
            os.environ["PYTHONPATH"] = env["PYTHONPATH"]
            times = emacs_times(out, calls)
            first, rest = times[0], sorted(times[1:])
            med = statistics.median(rest)
            p90 = rest[int(len(rest) * 0.9) - 1]
            print(
                f"{bridge:>7}: first call {first:7.1f} ms; then median {med:6.2f} ms, "
                f"p90 {p90:6.2f} ms over {len(rest)} sync calls; "
                f"overhead over Python {med - direct:6.2f} ms (goal <= 15 ms)"
            )


if __name__ == "__main__":
    main()
