"""Whole commands on generated tool files: to-json, check and fmt at 1 KB ... 10 MB.

Numbers, not pass/fail. Each job runs in its own Python process (the library call the
command makes, on text already in memory), ``--runs`` times (min kept), and prints
seconds, MB/s (a rate that falls with size shows a super-linear path), CPU seconds of
the process (steadier than wall time on a shared machine) and the peak memory of the
process as a multiple of the input size. The last lines give check and fmt as
multiples of to-json on the largest size (goals of issue 11: check <= 1.5x, fmt <= 2x,
peak memory <= 8x the input).

    python bench/bench_pipeline.py [SIZE ...] [--runs N]     (default: 1K 100K 1M 10M)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from gen_tools import generate, parse_size  # noqa: E402

JOBS = {
    "to-json openai": "from plistspec.api import to_json\n"
    "from plistspec.jsonout import dumps\n"
    "v, d = to_json(text, 'openai')\nout = dumps(v)",
    "check": "from plistspec.checker import check_text\nout = check_text(text)",
    "check --target gemini": "from plistspec.checker import check_text\n"
    "out = check_text(text, target='gemini')",
    "fmt": "from plistspec.fmt import format_text\nout = format_text(text)",
}

CHILD = """
import json, resource, sys, time
text = open(sys.argv[1], encoding="utf-8").read()
base = resource.getrusage(resource.RUSAGE_SELF)
t = time.perf_counter()
{job}
wall = time.perf_counter() - t
r = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"wall": wall, "cpu": r.ru_utime + r.ru_stime - base.ru_utime - base.ru_stime,
                   "rss_kb": r.ru_maxrss}}))
"""


def run(job: str, path: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    r = subprocess.run(
        [sys.executable, "-c", CHILD.format(job=JOBS[job]), str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    return json.loads(r.stdout.splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", nargs="*", default=["1K", "100K", "1M", "10M"])
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    print(f"{'size':>6} {'job':22} {'seconds':>8} {'MB/s':>7} {'cpu s':>7} {'peak mem':>9}")
    last: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in a.sizes:
            text, _ = generate(parse_size(size))
            path = Path(tmp) / f"tools-{size}.el"
            path.write_text(text, encoding="utf-8")
            nbytes = len(text.encode("utf-8"))
            mb = nbytes / 1e6
            results: dict[str, dict] = {job: {} for job in JOBS}
            for _ in range(a.runs):  # interleaved: load changes hit every job alike
                for job in JOBS:
                    r = run(job, path)
                    best = results[job]
                    for k in ("wall", "cpu", "rss_kb"):
                        best[k] = min(best.get(k, r[k]), r[k])
            for job, r in results.items():
                mem = r["rss_kb"] * 1024 / nbytes
                print(
                    f"{size:>6} {job:22} {r['wall']:8.3f} {mb / r['wall']:7.2f} "
                    f"{r['cpu']:7.3f} {mem:8.1f}x"
                )
            last = results
            biggest = size
    base = last["to-json openai"]
    print(f"\nratios at {biggest} (wall, cpu) against to-json openai:")
    for job in JOBS:
        r = last[job]
        print(f"  {job:22} {r['wall'] / base['wall']:5.2f}x {r['cpu'] / base['cpu']:5.2f}x")


if __name__ == "__main__":
    main()
