"""Whole commands on generated tool files: to-json, check and fmt at 100 KB, 1 MB, 10 MB.

Numbers, not pass/fail: seconds per run and MB/s, so a quadratic path shows as a rate that
falls with size (fmt once did: 228 s on 10 MB before line indexes were shared).

    python bench/bench_pipeline.py [SIZE ...]      (default: 100K 1M 10M)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_tools import generate, parse_size  # noqa: E402


def main() -> None:
    sizes = sys.argv[1:] or ["100K", "1M", "10M"]
    from plistspec.api import to_json
    from plistspec.checker import check_text
    from plistspec.fmt import format_text

    jobs = [
        ("to-json ir", lambda t: to_json(t, "ir")),
        ("to-json openai", lambda t: to_json(t, "openai")),
        ("check --target gemini", lambda t: check_text(t, target="gemini")),
        ("fmt", lambda t: format_text(t)),
    ]
    print(f"{'size':>6} {'job':24} {'seconds':>8} {'MB/s':>7}")
    for size in sizes:
        text, _ = generate(parse_size(size))
        mb = len(text.encode("utf-8")) / 1e6
        for label, job in jobs:
            t = time.perf_counter()
            job(text)
            s = time.perf_counter() - t
            print(f"{size:>6} {label:24} {s:8.2f} {mb / s:7.2f}")


if __name__ == "__main__":
    main()
