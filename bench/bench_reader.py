"""Reader benchmark: plistspec's reader against sexpdata, json.loads and Emacs's `read`.

Owns: the speed and memory numbers of issue 2 (goals: >= 15 MB/s on the 10 MB file, peak
memory <= 8x the input). For each size it generates a tool file with
:mod:`gen_tools` (same seed, so runs compare), then measures in one run:

* plistspec ``read_all`` (best of several runs, MB/s of UTF-8 input bytes);
* ``sexpdata.loads`` on the same text wrapped in one list: sexpdata misreads or rejects
  Emacs syntax (``?c`` characters, backslash-newline, ``#'f``); when it raises, the
  column says so and it is fed a stripped variant it can parse (no ``?c``/``#'``);
* ``json.loads`` of the equivalent JSON (MB/s of the JSON bytes);
* Emacs's ``read`` over the file in a buffer, timed inside Emacs with ``float-time``
  (when ``emacs`` is installed);
* plistspec's peak memory (tracemalloc) during ``read_all`` as a multiple of the input's
  UTF-8 size.

Usage: ``python bench/bench_reader.py [1K 100K 1M 10M]``.
"""

from __future__ import annotations

import gc
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_tools import generate, parse_size  # noqa: E402

from plistspec.elisp.reader import read_all  # noqa: E402


def best(fn, arg, budget: float = 3.0, max_runs: int = 5) -> float:
    times = []
    t_end = time.perf_counter() + budget
    while len(times) < max_runs and (not times or time.perf_counter() < t_end):
        gc.collect()
        t = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - t)
    return min(times)


def emacs_read_seconds(path: str) -> float | None:
    exe = shutil.which("emacs")
    if exe is None:
        return None
    code = (
        "(with-temp-buffer"
        f" (let ((coding-system-for-read 'utf-8)) (insert-file-contents {json.dumps(path)}))"
        " (let ((best 1e9))"
        "  (dotimes (_ 3)"
        "   (goto-char (point-min))"
        "   (garbage-collect)"
        "   (let ((t0 (float-time)))"
        "    (condition-case nil (while t (read (current-buffer))) (end-of-file nil))"
        "    (setq best (min best (- (float-time) t0)))))"
        "  (princ best)))"
    )
    out = subprocess.run([exe, "--batch", "-Q", "--eval", code], capture_output=True, text=True)
    try:
        return float(out.stdout.strip())
    except ValueError:
        return None


def sexpdata_variant(text: str) -> str:
    """What sexpdata can parse: no ?c characters, no #' (it rejects or misreads them)."""
    text = re.sub(r" \(ignore [^)]*\)", "", text)
    return text.replace("#'", "'")


def main() -> None:
    import sexpdata

    sizes = sys.argv[1:] or ["1K", "100K", "1M", "10M"]
    rows = []
    for s in sizes:
        el, js = generate(parse_size(s))
        mb = len(el.encode("utf-8")) / 1e6
        jmb = len(js.encode("utf-8")) / 1e6
        ours = best(read_all, el)
        note = ""
        try:
            sexp = best(lambda t: sexpdata.loads("(" + t + ")"), el, max_runs=2)
        except Exception as e:  # noqa: BLE001 - report what sexpdata does
            note = f"sexpdata fails on the file ({type(e).__name__}); fed a variant"
            try:
                sexp = best(
                    lambda t: sexpdata.loads("(" + t + ")"), sexpdata_variant(el), max_runs=2
                )
            except RecursionError:
                sexp = float("nan")
        jsn = best(json.loads, js)
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
                mb / ours,
                mb / sexp,
                jmb / jsn,
                (mb / emacs) if emacs else None,
                peak / (mb * 1e6),
                note,
            )
        )
    print(
        f"{'size':>6} {'MB':>7} {'plistspec':>10} {'sexpdata':>9} {'json':>8} {'emacs':>8} {'peak mem':>9}"
    )
    print(f"{'':>6} {'':>7} {'MB/s':>10} {'MB/s':>9} {'MB/s':>8} {'MB/s':>8} {'x input':>9}")
    for s, mb, o, sx, j, e, pk, note in rows:
        es = f"{e:8.1f}" if e else "     n/a"
        print(f"{s:>6} {mb:7.2f} {o:10.1f} {sx:9.1f} {j:8.1f} {es} {pk:9.1f}  {note}")


if __name__ == "__main__":
    main()
