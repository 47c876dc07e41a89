"""check with suppressions and configuration, and check --fix, on generated tool files.

Numbers, not pass/fail: seconds per run and MB/s at each size, so a path that is not
linear shows as a rate that falls with size. Inputs: bench/gen_tools.py files with
mistakes put in (every 10th `:type string` written `:type "string"`, every 10th
description given twice) and a suppression comment on every 5th line.

    python bench/bench_fix.py [SIZE ...]      (default: 100K 1M)
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_tools import generate, parse_size  # noqa: E402


def broken(text: str) -> str:
    n = [0, 0]

    def typ(m: re.Match[str]) -> str:
        n[0] += 1
        return ':type "string"' if n[0] % 10 == 0 else m.group(0)

    def desc(m: re.Match[str]) -> str:
        n[1] += 1
        return m.group(0) + ' :description "again"' if n[1] % 10 == 0 else m.group(0)

    text = re.sub(r":type string(?=[ )\n])", typ, text)
    text = re.sub(r':description "[^"\\\n]*"(?=[ )])', desc, text)
    lines = text.split("\n")
    for i in range(0, len(lines), 5):
        if lines[i].rstrip().endswith(")") and ";" not in lines[i]:
            lines[i] += "  ; plistspec: ignore[PS333]"
    return "\n".join(lines)


def main() -> None:
    sizes = sys.argv[1:] or ["100K", "1M"]
    from plistspec.checking.fixes import fix_text
    from plistspec.checking.run import Settings, findings

    settings = Settings()

    def check(t: str) -> list:
        return findings(t, "bench.el", settings)

    jobs = [
        ("check (suppressions)", lambda t: check(t)),
        ("check --fix", lambda t: fix_text(t, check)),
        ("check --fix --unsafe-fixes", lambda t: fix_text(t, check, unsafe=True)),
    ]
    print(f"{'size':>6} {'job':28} {'seconds':>8} {'MB/s':>7}  result")
    for size in sizes:
        text = broken(generate(parse_size(size))[0])
        mb = len(text.encode("utf-8")) / 1e6
        for label, job in jobs:
            t = time.perf_counter()
            out = job(text)
            s = time.perf_counter() - t
            what = (
                f"{len(out)} findings"
                if isinstance(out, list)
                else f"{len(out.applied)} fixed, {len(out.remaining)} left, {out.rounds} rounds"
            )
            print(f"{size:>6} {label:28} {s:8.2f} {mb / s:7.2f}  {what}")


if __name__ == "__main__":
    main()
