"""Two revisions of plistspec side by side: start-up and whole commands, runs interleaved.

For a change that must not cost speed (a refactor, a move of code): each command runs
against the sources of revision A and of revision B in turn, round after round, so a change
of load on a shared machine hits both alike. Prints, per command, the median (start-up) or
minimum (CPU seconds of the child, for the big files) of each side and the ratio B/A.
Numbers, never pass/fail.

    python bench/bench_compare.py REV_A REV_B [--runs N] [--size 10M]

Each revision is checked out into a temporary git worktree (removed at the end); both run
with this interpreter, their own ``src`` first on ``PYTHONPATH`` and bytecode compiled first.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from gen_tools import generate, parse_size  # noqa: E402


def worktree(rev: str, where: Path) -> Path:
    path = where / rev.replace("/", "_")
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), rev],
        check=True,
        capture_output=True,
        timeout=120,
    )
    compileall.compile_dir(str(path / "src"), quiet=1)
    return path


def env_for(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree / "src")
    return env


def run_once(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, timeout=600, check=False
    )
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("rev_a")
    ap.add_argument("rev_b")
    ap.add_argument("--runs", type=int, default=21, help="start-up runs (big files: a fifth)")
    ap.add_argument("--size", default="10M")
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        trees = [worktree(args.rev_a, where), worktree(args.rev_b, where)]
        try:
            small = ROOT / "fixtures" / "elisp" / "get_weather.el"
            big = where / "big.el"
            big.write_text(generate(parse_size(args.size))[0], encoding="utf-8")
            out = where / "out.json"
            startup = [
                ("--help", ["--help"]),
                ("to-json 1 KB", ["to-json", str(small)]),
                ("to-json -t openai 1 KB", ["to-json", "-t", "openai", str(small)]),
                ("check 1 KB", ["check", str(small)]),
            ]
            whole = [
                (
                    f"to-json -t openai {args.size}",
                    ["to-json", "-t", "openai", str(big), "-o", str(out)],
                ),
                (f"check {args.size}", ["check", "--exit-zero", str(big)]),
                (
                    f"check --target gemini {args.size}",
                    ["check", "--exit-zero", "-t", "gemini", str(big)],
                ),
                (f"fmt {args.size}", ["fmt", str(big)]),
            ]
            envs = [env_for(t) for t in trees]
            print(f"A = {args.rev_a}, B = {args.rev_b}; interleaved runs")
            print(f"{'command':32} {'A':>10} {'B':>10} {'B/A':>6}")
            for rows, runs, pick, unit in (
                (startup, args.runs, 0, "ms median wall"),
                (whole, max(3, args.runs // 5), 1, "s min CPU"),
            ):
                samples = {(name, i): [] for name, _ in rows for i in range(2)}
                for _name, argv in rows:  # warm the caches
                    for i in range(2):
                        run_once([py, "-m", "plistspec", *argv], envs[i])
                for _ in range(runs):
                    for name, argv in rows:
                        for i in range(2):
                            samples[(name, i)].append(
                                run_once([py, "-m", "plistspec", *argv], envs[i])[pick]
                            )
                for name, _ in rows:
                    if pick == 0:
                        a, b = (statistics.median(samples[(name, i)]) * 1000 for i in range(2))
                    else:
                        a, b = (min(samples[(name, i)]) for i in range(2))
                    print(f"{name:32} {a:10.3f} {b:10.3f} {b / a:6.3f}   ({unit})")
        finally:
            for t in trees:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(t)],
                    capture_output=True,
                    timeout=120,
                )


if __name__ == "__main__":
    main()
