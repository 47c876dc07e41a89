"""Hostile inputs at growing sizes: the reader's work must grow linearly (issue 13 §5).

Numbers, not pass/fail. For each case and size it prints seconds and a rate (input units
per second); a quadratic path shows as a rate that falls by about the size factor at each
step, a linear one as a flat rate.

* ``recover (x #<b>``: N lines each holding an unreadable ``#<``, read by
  ``read_recovering`` (what ``check`` and ``to-json`` use): was 0.7 s at 2 500 lines and
  40 s at 20 000;
* ``recover (x "a"``: N unterminated lists (each would read to the end of the input);
* ``integer N digits``: one decimal integer of N digits (``read_all``): was 66 s at 4 M
  digits, Emacs 28 reads it in 0.34 s; now linear (the digits are kept as text);
  ``+ its value``: reading and converting it (what lowering a tool that uses it asks
  for): subquadratic (halving, about n^1.6);
* ``#36r N digits``: the same in radix 36;
* ``CRLF file``: EOL detection and decoding of a CRLF tool file of N lines;
* ``fmt one-line progn``: ``fmt`` of N tool forms inside one ``(progn ...)`` written on
  one line: was quadratic (each form's column counted from the line start, and its
  lines indented that far: memory ran out at 12 000 forms); now the first form is laid
  out and the others are left as they are, with an info each;
* ``config per-file-ignores``: a ``.plistspec.toml`` of N ``per-file-ignores`` globs
  loaded, then the ignores of 200 files asked for (what ``check`` does): was 87 s at
  10 000 globs (each glob's position looked up by a scan of the whole file, each file
  matched against every glob); now one pass over the text, and each file compared with
  the globs whose literal prefix starts its path;
* ``worker request line``: the bridge worker reading one request line of N bytes: was
  quadratic (the whole buffer searched for a newline after every 64 KB read: 1.2 s at
  32 MB, 2.9 s at 64 MB); now each byte is searched once.

    python bench/bench_hostile.py [--max-scale K]   (default 3: sizes x1, x4, x16, x64)
"""

from __future__ import annotations

import argparse
import time


def _time(fn, arg) -> float:
    t = time.perf_counter()
    fn(arg)
    return time.perf_counter() - t


def value_of(text: str) -> int:
    """Read ``text`` and convert its first datum's integer (what lower() asks for)."""
    from plistspec.elisp.reader import read_all

    return read_all(text)[0].value


def config_ignores(text: str) -> None:
    """Load a configuration of ``text`` and ask the per-file ignores of 200 files."""
    import os
    import tempfile

    from plistspec.checking.config import load_config

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, ".plistspec.toml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        cfg = load_config(path)
        for i in range(200):
            cfg.per_file_off(os.path.join(d, f"dir{i}", "tools.el"), "PS301")


def worker_line(data: bytes) -> None:
    """The bridge worker's line reader on one line of ``data`` plus a short one."""
    import io

    from plistspec.pyfunc.worker import _readline

    f, buf = io.BytesIO(data), bytearray()
    _readline(f, buf)
    _readline(f, buf)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--max-scale", type=int, default=3, help="number of x4 steps (default 3)")
    args = ap.parse_args()
    from plistspec.elisp.eol import decode_eol, detect_eol
    from plistspec.elisp.reader import read_all
    from plistspec.elisp.recover import read_recovering
    from plistspec.fmt.rewrite import format_text

    tool = (
        '(gptel-make-tool :name "a" :function #\'ignore :description "d"\r\n'
        '  :args (list \'(:name "x" :type integer :description "y")))\r\n'
    )
    cases = [
        ("recover (x #<b>", 2_500, "lines", lambda n: "(x #<b>\n" * n, read_recovering),
        ('recover (x "a"', 2_500, "lines", lambda n: '(x "a"\n' * n, read_recovering),
        ("integer N digits", 15_000, "digits", lambda n: "9" * n, read_all),
        ("  + its value", 15_000, "digits", lambda n: "9" * n, value_of),
        ("#36r N digits", 15_000, "digits", lambda n: "#36r" + "z" * n, read_all),
        ("  + its value", 15_000, "digits", lambda n: "#36r" + "z" * n, value_of),
        (
            "CRLF file",
            10_000,
            "lines",
            lambda n: tool * (n // 2),
            lambda t: decode_eol(t, detect_eol(t)),
        ),
        (
            "fmt one-line progn",
            500,
            "forms",
            lambda n: (
                "(progn "
                + " ".join(f'(gptel-make-tool :name "t{i}" :function #\'f)' for i in range(n))
                + ")\n"
            ),
            format_text,
        ),
        (
            "config per-file-ignores",
            625,
            "globs",
            lambda n: (
                "[per-file-ignores]\n" + "".join(f'"dir{i}/*.el" = ["PS3"]\n' for i in range(n))
            ),
            config_ignores,
        ),
        (
            "worker request line",
            1 << 20,
            "bytes",
            lambda n: b"x" * n + b"\n[1]\n",
            worker_line,
        ),
    ]
    print(f"{'case':24} {'size':>10} {'unit':>7} {'seconds':>9} {'rate/s':>12}")
    for name, base, unit, make, fn in cases:
        for k in range(args.max_scale + 1):
            n = base * 4**k
            text = make(n)
            s = _time(fn, text)
            print(f"{name:24} {n:>10} {unit:>7} {s:>9.3f} {n / s:>12.0f}", flush=True)


if __name__ == "__main__":
    main()
