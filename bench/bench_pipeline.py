"""Whole commands on generated tool files: to-json, check and fmt at 1 KB ... 10 MB.

Numbers, not pass/fail. Each job runs in its own Python process (the library call the
command makes, on text already in memory), ``--runs`` times (min kept), and prints
seconds, MB/s (a rate that falls with size shows a super-linear path), CPU seconds of
the process (steadier than wall time on a shared machine), then the CPU seconds (min of
``--runs``) and the peak memory (maximum resident set, as a multiple of the input size)
of the whole ``plistspec`` command doing the job on the file (``to-json -t openai FILE
-o OUT``, ``check FILE``, ``fmt FILE``: start-up, reading and writing included; a file
over 1 MB goes the streaming way there). Runs of the jobs are interleaved, for the library
calls and the commands alike, so that a change of load on a shared machine hits every job
alike. The last lines give check and fmt as multiples
of to-json on the largest size, for the library call and the whole command (goals of
issue 11: check <= 1.5x, fmt <= 2x, peak memory <= 8x the input).

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
    "from plistspec.core.jsonout import dumps\n"
    "v, d = to_json(text, 'openai')\nout = dumps(v)",
    "check": "from plistspec.checking.checker import check_text\nout = check_text(text)",
    "check -t gemini": "from plistspec.checking.checker import check_text\n"
    "out = check_text(text, target='gemini')",
    "fmt": "from plistspec.fmt.rewrite import format_text\nout = format_text(text)",
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


COMMANDS = {
    "to-json openai": ["to-json", "-t", "openai", "{file}", "-o", "{out}"],
    "check": ["check", "--exit-zero", "{file}"],
    "check -t gemini": ["check", "--exit-zero", "-t", "gemini", "{file}"],
    "fmt": ["fmt", "{file}"],
}


# Runs the command and records its own peak (VmHWM): a child's ru_maxrss on Linux starts
# from its parent's peak at exec, so the bench's own memory would show instead.
PEAK_CHILD = """
import atexit, resource, sys
report = sys.argv.pop(1)
def peak():
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                kb = int(line.split()[1])
    except OSError:
        pass
    open(report, "w").write(str(kb))
atexit.register(peak)
sys.argv[0] = "plistspec"
from plistspec.cli import main
main()
"""


def command_peak_kb(job: str, path: Path) -> tuple[int, float]:
    """Peak resident memory (KB) of the whole ``plistspec`` command of ``job`` on ``path``,
    and the CPU seconds (user + system) of that whole process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    out = path.with_suffix(".json")
    report = path.with_suffix(".peak")
    args = [a.format(file=path, out=out) for a in COMMANDS[job]]
    proc = subprocess.Popen(
        [sys.executable, "-c", PEAK_CHILD, str(report), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"plistspec {' '.join(args)} exited {proc.returncode}")
    return int(report.read_text()), usage.ru_utime + usage.ru_stime


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
    print(
        f"{'size':>6} {'job':22} {'seconds':>8} {'MB/s':>7} {'cpu s':>7} {'cmd cpu':>7} "
        f"{'peak mem':>9}"
    )
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
            for _ in range(a.runs):  # the whole commands interleaved too
                for job, r in results.items():
                    kb, cpu = command_peak_kb(job, path)
                    r["cmd_cpu"] = min(r.get("cmd_cpu", cpu), cpu)
                    r["peak_kb"] = max(r.get("peak_kb", kb), kb)
            for job, r in results.items():
                mem = r["peak_kb"] * 1024 / nbytes
                print(
                    f"{size:>6} {job:22} {r['wall']:8.3f} {mb / r['wall']:7.2f} "
                    f"{r['cpu']:7.3f} {r['cmd_cpu']:7.3f} {mem:8.1f}x"
                )
            last = results
            biggest = size
    base = last["to-json openai"]
    print(f"\nratios at {biggest} against to-json openai (library wall, library cpu, command cpu):")
    for job in JOBS:
        r = last[job]
        print(
            f"  {job:22} {r['wall'] / base['wall']:5.2f}x {r['cpu'] / base['cpu']:5.2f}x "
            f"{r['cmd_cpu'] / base['cmd_cpu']:5.2f}x"
        )


if __name__ == "__main__":
    main()
