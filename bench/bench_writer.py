"""The Elisp writer alone: ``emit_elisp.tool_form`` on every tool of a file.

Numbers, not pass/fail. Generates a tools file with ``gen_tools.generate`` (default 10M,
seed 1: the file of issue 11), reads its tools' IR once, then times only ``tool_form``
over them, ``--runs`` times (min and
median kept, garbage collection paused as fmt pauses it), and prints CPU seconds, calls
and output MB/s. Also times ``to_elisp`` (the ``from-json`` writer: the same tools)
unless ``--no-file``.

    PYTHONPATH=src python bench/bench_writer.py [SIZE] [--runs N] [--seed N] [--no-file]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from gen_tools import generate, parse_size  # noqa: E402


def collect(text: str) -> list[tuple]:
    """``(tool, dialect, indent)`` for every tool of ``text``: its IR as
    ``to-json --format ir`` reads it, written at column 0 (fmt no longer calls the writer:
    it lays forms out from their source, issue 29)."""
    from plistspec.api import read_tools

    tools, _ = read_tools(text)
    return [(t, (t.get("metadata") or {}).get("dialect", "gptel"), 0) for t in tools]


def _time(fn, runs: int) -> list[float]:
    """CPU seconds of each run (steadier than wall time on a shared machine)."""
    out = []
    for _ in range(runs):
        gc.collect()
        gc.disable()
        try:
            t = time.process_time()
            fn()
            out.append(time.process_time() - t)
        finally:
            gc.enable()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("size", nargs="?", default="10M")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-file", action="store_true", help="skip timing to_elisp")
    a = ap.parse_args()
    from plistspec.emit_elisp import to_elisp, tool_form

    text = generate(parse_size(a.size), a.seed)[0]
    calls = collect(text)
    out_bytes = sum(len(tool_form(t, d, i)[0]) for t, d, i in calls)

    def forms() -> None:
        for t, d, i in calls:
            tool_form(t, d, i)

    times = _time(forms, a.runs)
    best = min(times)
    print(
        f"tool_form  {a.size}: {len(calls)} calls, "
        f"{out_bytes / 1e6:.2f} MB out: min {best:.3f} s, median {statistics.median(times):.3f} s, "
        f"{out_bytes / 1e6 / best:.1f} MB/s"
    )
    if not a.no_file:
        tools = [c[0] for c in calls]
        for dialect in ("gptel", "llm"):
            ftimes = _time(lambda d=dialect: to_elisp(tools, d), a.runs)
            print(
                f"to_elisp   {a.size} ({dialect}): {len(tools)} tools: "
                f"min {min(ftimes):.3f} s, median {statistics.median(ftimes):.3f} s"
            )


if __name__ == "__main__":
    main()
