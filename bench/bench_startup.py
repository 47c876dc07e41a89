"""Start-up cost of the CLI: `plistspec to-json` on a 1 KB file against `python -c "import click"`.

Goal (issues 2 and 11): to-json and check on a 1 KB file take at most 1.3x the time of
importing click (median of at least 20 runs each, interleaved).
Run: python bench/bench_startup.py [--runs N]. Prints medians in milliseconds; a number,
never a pass/fail. The package's bytecode is compiled first and the child processes run
with bytecode caching on (as an installed package runs), whatever PYTHONDONTWRITEBYTECODE
says in this shell: without cached bytecode every start recompiles the sources.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
# this checkout's package, not whatever plistspec is installed
ENV["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")


def once(cmd: list[str]) -> float:
    """Wall seconds of one run of ``cmd``. Waited for without ``timeout=``: Python waits
    for a child with a timeout by polling, with sleeps growing to 50 ms, which rounded
    every start-up here up to the next step (64 and 114 ms where the commands take 45 and
    65); a watchdog thread kills a run that hangs instead."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    watchdog = threading.Timer(600, proc.kill)
    watchdog.start()
    try:
        proc.wait()
    finally:
        watchdog.cancel()
    return time.perf_counter() - t


def timed_all(cmds: list[list[str]], runs: int) -> list[float]:
    """Median ms of each command, the runs interleaved (round-robin) so that a change of
    load on the machine hits every command alike."""
    for cmd in cmds:
        once(cmd)  # warm the OS caches
    samples: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            samples[i].append(once(cmd))
    return [statistics.median(s) * 1000 for s in samples]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    compileall.compile_dir(str(ROOT / "src"), quiet=1)
    fixture = ROOT / "fixtures" / "elisp" / "get_weather.el"
    py = sys.executable
    rows = [
        ("python -c pass", [py, "-c", "pass"]),
        ("python -c 'import click'", [py, "-c", "import click"]),
        ("plistspec --help", [py, "-m", "plistspec", "--help"]),
        ("plistspec to-json (ir), 1 KB", [py, "-m", "plistspec", "to-json", str(fixture)]),
        (
            "plistspec to-json -t openai",
            [py, "-m", "plistspec", "to-json", "-t", "openai", str(fixture)],
        ),
        ("plistspec check", [py, "-m", "plistspec", "check", str(fixture)]),
    ]
    medians = timed_all([cmd for _, cmd in rows], args.runs)
    base = medians[1]
    print(f"{'command':40} {'median ms':>10} {'x click':>8}   ({args.runs} interleaved runs)")
    for (label, _), ms in zip(rows, medians, strict=True):
        print(f"{label:40} {ms:10.1f} {ms / base:8.2f}")


if __name__ == "__main__":
    main()
