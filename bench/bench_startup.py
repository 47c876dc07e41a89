"""Start-up cost of the CLI: `plistspec to-json` on a 1 KB file against `python -c "import click"`.

Goal (issue 2): to-json on a 1 KB file takes at most 1.3x the time of importing click.
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
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(cmd: list[str], runs: int) -> float:
    samples = []
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, check=False)
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, check=False
        )
        samples.append(time.perf_counter() - t)
    return statistics.median(samples) * 1000


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
            "plistspec to-json --format openai",
            [py, "-m", "plistspec", "to-json", "-f", "openai", str(fixture)],
        ),
        ("plistspec check", [py, "-m", "plistspec", "check", str(fixture)]),
    ]
    base = None
    print(f"{'command':40} {'median ms':>10} {'x click':>8}")
    for label, cmd in rows:
        ms = timed(cmd, args.runs)
        if label.startswith("python -c 'import click'"):
            base = ms
        ratio = f"{ms / base:.2f}" if base else ""
        print(f"{label:40} {ms:10.1f} {ratio:>8}")


if __name__ == "__main__":
    main()
