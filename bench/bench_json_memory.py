"""Peak memory and time of ``from-json -t`` and ``to-json --lower -t`` on hostile inputs
(issue 31, item 5: the goal is a peak under 10 times the input above the baseline).

Numbers, not pass/fail (tests/hostile/test_json_depth_and_memory.py holds the limit).
Each command runs in a fresh child of a fresh Python, so its ``RUSAGE_CHILDREN`` peak is
its own; ``over`` is the peak above the same command on a tiny input, ``x`` that over
the input's size. The cases:

* ``plain``: a tools/list whose description is 4 MB of ``a``;
* ``escapes``: its description ``a\\n"`` 1.3 M times (6.5 MB of JSON, 2.6 M escapes):
  was 200 MB for ``from-json -t`` (the Elisp reader that reads the written file back
  split the string at every backslash), now about 64 MB;
* ``brackets``: 1 MB of ``[`` then ``]`` (was 102 MB and 12.5 s; now PS527 at once);
* ``items``: one property nesting ``{"items":`` 100 000 levels, 1 MB (was 170 MB and
  4.3 s for from-json -t, 400 MB for to-json --lower; now PS527 at once);
* ``wide``: 1 MB of ``[],`` in one ``enum`` (333 333 empty arrays: each a Python list,
  so the peak is a few tens of bytes an input byte, and no more);
* ``limit``: one property nested 9 990 levels (100 KB, under the limit: read, and
  written indented up to 256 levels, which makes the output 100 times the input);
* ``el-escapes``, ``el-plain``: a .el file whose :description is 4 MB with or without
  ``\\n\\"\\\\`` escapes (to-json --lower only);
* ``el-vectors``, ``el-items``: a .el file nesting 500 000 vectors in an arg's ``:enum``
  (1 MB) or 50 000 ``(:type array :items`` (1 MB): the Elisp reader has no depth limit
  (Emacs 30 reads both), so these cost the ~190 bytes a level of their datums.

    python bench/bench_json_memory.py [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

MB = 1_000_000
_PEAK = (
    "import resource, subprocess, sys\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)\n"
    "code = (r.stderr.decode('utf-8', 'replace').rstrip().rpartition('[')[2] or ']')[:-1]\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, r.returncode,"
    " code if r.returncode else '-')\n"
)
FROM_JSON = ["from-json", "-t", "openai"]
LOWER = ["to-json", "--lower", "-t", "openai"]


def _tools(description: str, schema: str = '{"type":"string"}') -> str:
    return (
        '{"tools":[{"name":"t","description":'
        + json.dumps(description)
        + ',"inputSchema":{"type":"object","properties":{"x":'
        + schema
        + "}}}]}"
    )


def _el(description: str, arg: str = ':type string :description "x"') -> str:
    return (
        ";;; t.el --- t  -*- lexical-binding: t; -*-\n"
        '(gptel-make-tool :name "t" :function #\'ignore :description '
        + description
        + ' :args (list \'(:name "x" '
        + arg
        + ")))\n"
    )


CASES = {
    "plain": (".json", lambda: _tools("a" * (4 * MB))),
    "escapes": (".json", lambda: _tools('a\n"' * 1_300_000)),
    "brackets": (".json", lambda: "[" * (MB // 2) + "]" * (MB // 2)),
    "items": (".json", lambda: _tools("d", '{"items":' * 100_000 + "{}" + "}" * 100_000)),
    "wide": (".json", lambda: _tools("d", '{"enum":[' + "[]," * 333_333 + "[]]}")),
    "limit": (".json", lambda: _tools("d", '{"items":' * 9_990 + "{}" + "}" * 9_990)),
    "el-escapes": (".el", lambda: _el('"' + 'a\\n\\"\\\\' * 570_000 + '"')),
    "el-plain": (".el", lambda: _el('"' + "a" * (4 * MB) + '"')),
    "el-vectors": (
        ".el",
        lambda: _el('"d"', ':type string :description "x" :enum ' + "[" * 500_000 + "]" * 500_000),
    ),
    "el-items": (
        ".el",
        lambda: _el(
            '"d"',
            ':type array :description "x" :items '
            + "(:type array :items " * 50_000
            + "(:type string)"
            + ")" * 50_000,
        ),
    ),
}
SMALL = {".json": _tools("d"), ".el": _el('"d"')}


def measure(command: list[str], path: str) -> tuple[int, float, int, str]:
    """``(peak bytes, seconds, exit status, last diagnostic code or -)``."""
    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-c", _PEAK, sys.executable, "-m", "plistspec", *command, path],
        capture_output=True,
        text=True,
        timeout=600,
    )
    seconds = time.perf_counter() - t
    peak, rc, code = r.stdout.split()
    return int(peak), seconds, int(rc), code


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", nargs="*", default=None, help="case names")
    ns = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        base: dict[tuple[str, str], int] = {}
        for suffix, text in SMALL.items():
            path = os.path.join(d, "small" + suffix)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            for command in (FROM_JSON, LOWER):
                if suffix == ".json" or command is LOWER:
                    base[(suffix, command[0])] = measure(command, path)[0]
        print(
            f"{'case':<11} {'command':<26} {'input':>9} {'peak':>9} {'over':>9} {'x':>6} "
            f"{'s':>6}  exit"
        )
        for name, (suffix, make) in CASES.items():
            if ns.only and name not in ns.only:
                continue
            path = os.path.join(d, name + suffix)
            with open(path, "w", encoding="utf-8") as f:
                f.write(make())
            size = os.path.getsize(path)
            for command in (FROM_JSON, LOWER):
                if suffix == ".el" and command is FROM_JSON:
                    continue
                peak, seconds, rc, code = measure(command, path)
                over = peak - base[(suffix, command[0])]
                print(
                    f"{name:<11} {' '.join(command):<26} {size / MB:>7.2f}MB "
                    f"{peak / MB:>7.1f}MB {over / MB:>7.1f}MB {over / size:>6.1f} "
                    f"{seconds:>6.2f}  {rc} {code}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
