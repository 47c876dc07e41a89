"""What ``plistspec fmt`` changes besides layout, file by file: string literals and
comments whose source text changed (counted as a multiset, as issue 29 asks), lines
changed (``difflib``) and the longest line before and after.

Usage: ``python bench/bench_fmt_tokens.py [FILE...]`` (default: every fixture file with
tool forms and tests/emit/data/fmt_strings.el). Run it with ``PYTHONPATH=OTHER/src`` to
measure another checkout's fmt.
"""

from __future__ import annotations

import collections
import difflib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "emit"))

from test_fmt_keeps_tokens import FILES, _strings_and_comments  # noqa: E402

from plistspec.fmt.rewrite import format_text  # noqa: E402


def main(argv: list[str]) -> None:
    files = [Path(a) for a in argv] or FILES
    totals = collections.Counter()
    for path in files:
        before = path.read_text(encoding="utf-8", errors="surrogateescape")
        after, _ = format_text(before, path.name)
        s0, c0 = _strings_and_comments(before)
        s1, c1 = _strings_and_comments(after)
        strings = sum((collections.Counter(s0) - collections.Counter(s1)).values())
        comments = sum((collections.Counter(c0) - collections.Counter(c1)).values())
        lines = sum(
            1
            for d in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if d[:1] in "+-" and d[:3] not in ("+++", "---")
        )
        longest = (
            max(map(len, before.splitlines()), default=0),
            max(map(len, after.splitlines()), default=0),
        )
        totals.update(files=1, strings=strings, comments=comments, lines=lines)
        totals["files with strings changed"] += bool(strings)
        if strings or comments or len(argv):
            print(
                f"{path.name}: strings {strings}, comments {comments}, lines {lines}, longest {longest[0]} -> {longest[1]}"
            )
    print(dict(totals))


if __name__ == "__main__":
    main(sys.argv[1:])
