"""Reader benchmark: plistspec's reader against sexpdata, json.loads and Emacs's `read`.

Owns: the speed and memory numbers of issue 2 (goals: >= 15 MB/s on the 10 MB file, peak
memory <= 8x the input). For each size it generates a tool file with
:mod:`gen_tools` (same seed, so runs compare), then measures in one run:

* plistspec ``read_all``: the median and the best of ``--runs`` runs, in MB/s of UTF-8
  input bytes (the machine may be shared: the header shows the load average, and the
  median is the number to quote, the best one what a quiet machine gives);
* ``sexpdata.loads`` on the same text wrapped in one list: sexpdata misreads or rejects
  Emacs syntax (``?c`` characters, backslash-newline, ``#'f``); when it raises, the
  column says so and it is fed a stripped variant it can parse (no ``?c``/``#'``);
* ``json.loads`` of the equivalent JSON (MB/s of the JSON bytes);
* Emacs's ``read`` over the file in a buffer, timed inside Emacs with ``float-time``
  (when ``emacs`` is installed; median of 3);
* plistspec's peak memory (tracemalloc) during ``read_all`` as a multiple of the input's
  UTF-8 size.

The baselines are medians too (sexpdata: of at most 2 runs, it is slow).

Usage: ``python bench/bench_reader.py [--runs N] [1K 100K 1M 10M]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_tools import generate, parse_size  # noqa: E402

from plistspec.elisp.reader import read_all  # noqa: E402


def timings(fn, arg, runs: int, budget: float = 10.0) -> list[float]:
    """Seconds per call, for ``runs`` samples (fewer if they exceed ``budget`` seconds).

    A sample of a small input loops over enough calls to last about 50 ms, so timer
    resolution and one cold call do not decide the 1 KB number. Each call's result is
    freed after its clock stops (for every parser alike): freeing a 10 MB file's datums
    takes about a tenth of reading them, and it is not reading."""
    t = time.perf_counter()
    fn(arg)
    number = max(1, int(0.05 / max(time.perf_counter() - t, 1e-7)))
    times = []
    t_end = time.perf_counter() + budget
    while len(times) < runs and (not times or time.perf_counter() < t_end):
        gc.collect()
        total = 0.0
        for _ in range(number):
            t = time.perf_counter()
            result = fn(arg)
            total += time.perf_counter() - t
            del result  # freeing the result is not reading: outside the clock
        times.append(total / number)
    return times


def emacs_read_seconds(path: str) -> float | None:
    exe = shutil.which("emacs")
    if exe is None:
        return None
    code = (
        "(with-temp-buffer"
        f" (let ((coding-system-for-read 'utf-8)) (insert-file-contents {json.dumps(path)}))"
        " (let (times)"
        "  (dotimes (_ 3)"
        "   (goto-char (point-min))"
        "   (garbage-collect)"
        "   (let ((t0 (float-time)))"
        "    (condition-case nil (while t (read (current-buffer))) (end-of-file nil))"
        "    (push (- (float-time) t0) times)))"
        '  (princ (mapconcat #\'number-to-string times " "))))'
    )
    out = subprocess.run(
        [exe, "--batch", "-Q", "--eval", code], capture_output=True, text=True, timeout=600
    )
    try:
        return statistics.median(float(x) for x in out.stdout.split())
    except (ValueError, statistics.StatisticsError):
        return None


def sexpdata_variant(text: str) -> str:
    """What sexpdata can parse: no ?c characters, no #' (it rejects or misreads them)."""
    text = re.sub(r" \(ignore [^)]*\)", "", text)
    return text.replace("#'", "'")


def main() -> None:
    import sexpdata

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sizes", nargs="*", default=["1K", "100K", "1M", "10M"])
    ap.add_argument("--runs", type=int, default=7, help="timed runs per size (default 7)")
    args = ap.parse_args()
    rows = []
    for s in args.sizes:
        el, js = generate(parse_size(s))
        mb = len(el.encode("utf-8")) / 1e6
        jmb = len(js.encode("utf-8")) / 1e6
        ours = timings(read_all, el, args.runs)
        note = ""
        try:
            sexp = statistics.median(
                timings(lambda t: sexpdata.loads("(" + t + ")"), el, min(args.runs, 2))
            )
        except Exception as e:  # noqa: BLE001 - report what sexpdata does
            note = f"sexpdata fails on the file ({type(e).__name__}); fed a variant"
            try:
                sexp = statistics.median(
                    timings(
                        lambda t: sexpdata.loads("(" + t + ")"),
                        sexpdata_variant(el),
                        min(args.runs, 2),
                    )
                )
            except RecursionError:
                sexp = float("nan")
        jsn = statistics.median(timings(json.loads, js, args.runs))
        with tempfile.NamedTemporaryFile("w", suffix=".el", delete=False, encoding="utf-8") as f:
            f.write(el)
        emacs = emacs_read_seconds(f.name)
        Path(f.name).unlink()
        gc.collect()
        tracemalloc.start()
        data = read_all(el)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        del data
        rows.append(
            (
                s,
                mb,
                mb / statistics.median(ours),
                mb / min(ours),
                mb / sexp,
                jmb / jsn,
                (mb / emacs) if emacs else None,
                peak / (mb * 1e6),
                note,
            )
        )
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average {load} on {os.cpu_count()} cores; {args.runs} runs per size")
    print(
        f"{'size':>6} {'MB':>7} {'plistspec':>10} {'(best)':>7} {'sexpdata':>9} {'json':>8}"
        f" {'emacs':>8} {'peak mem':>9}"
    )
    print(
        f"{'':>6} {'':>7} {'MB/s':>10} {'MB/s':>7} {'MB/s':>9} {'MB/s':>8} {'MB/s':>8}"
        f" {'x input':>9}"
    )
    for s, mb, o, ob, sx, j, e, pk, note in rows:
        es = f"{e:8.1f}" if e else "     n/a"
        print(f"{s:>6} {mb:7.2f} {o:10.1f} {ob:7.1f} {sx:9.1f} {j:8.1f} {es} {pk:9.1f}  {note}")


if __name__ == "__main__":
    main()
