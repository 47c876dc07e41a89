"""Every fixtures/broken/*.el gets the diagnostics its ``;; expect:`` lines name, at
exactly that line and column (``CODE|OTHER`` accepts either code; a ``~`` after the
codes accepts a start up to 3 columns further, for library failures that lower()
reports at a datum inside the marked one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from plistspec.checking.checker import check_text

BROKEN = Path(__file__).resolve().parents[2] / "fixtures" / "broken"
FILES = sorted(BROKEN.glob("*.el"))
EXPECT = re.compile(r"^;; expect: (\S+) (\d+):(\d+)\s*$", re.M)


def test_there_are_broken_fixtures() -> None:
    assert len(FILES) >= 25


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_broken_fixture(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    m = re.search(r"^;; target: (\S+)", text, re.M)
    target = m.group(1) if m else None
    expects = EXPECT.findall(text)
    assert expects, f"{path.name} has no ;; expect: line"
    diags = check_text(text, path.name, target=target)
    found = [(d.code, d.line, d.column) for d in diags]
    for spec, line, col in expects:
        fuzzy = spec.endswith("~")
        codes = spec.rstrip("~").split("|")
        line, col = int(line), int(col)
        ok = any(
            c in codes and ln == line and (cl == col or (fuzzy and col <= cl <= col + 3))
            for c, ln, cl in found
        )
        assert ok, f"{path.name}: expected {spec} at {line}:{col}, got {found}"
