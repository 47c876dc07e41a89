"""Positions for editors: 1-based character columns (non-ASCII and TABs count as one),
end positions, and fixes that carry line/column and really repair what they flag."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import plistspec
from plistspec.checking.checker import check_text, diagnostics_json

BROKEN = Path(__file__).resolve().parents[2] / "fixtures" / "broken"

PREFIXES = [
    "",
    "\t",
    "\t\t  ",
    ";; é\n",
    ";; 𝄞 (a character outside the BMP: one column, two UTF-16 units)\n",
    '(setq x "ünïcödé")\t',
]


@pytest.mark.parametrize("prefix", PREFIXES, ids=range(len(PREFIXES)))
def test_columns_count_characters(prefix: str) -> None:
    line_prefix = '\t :args (list \'(:name "é𝄞" :description "\tü" :type '
    text = (
        prefix
        + '(gptel-make-tool :name "f" :description "F." :function #\'ignore\n'
        + line_prefix
        + "strng)))\n"
    )
    diags = plistspec.check(text, "t.el")
    bad = [d for d in diags if d.code == "PS314"]
    assert len(bad) == 1, diags
    d = bad[0]
    lines = text.split("\n")
    assert lines[d.line - 1][d.column - 1 : d.end_column - 1] == "strng"
    assert d.end_line == d.line
    assert d.end_column - d.column == len("strng")
    assert text[d.start : d.end] == "strng"
    assert d.fix is not None and d.fix.replacement == "string"


def _apply(text: str, fix) -> str:
    return text[: fix.start] + fix.replacement + text[fix.end :]


def test_json_fix_has_line_and_column() -> None:
    text = '(gptel-make-tool :name "f" :description "F." :function #\'ignore\n\t:args (list \'(:name "é" :type strng)))\n'
    objs = diagnostics_json(check_text(text, "t.el"), text)
    fixes = [o["fix"] for o in objs if "fix" in o]
    assert fixes
    lines = text.split("\n")
    for f in fixes:
        assert {"start", "end", "replacement", "line", "column", "end_line", "end_column"} <= set(f)
        assert f["line"] == f["end_line"] == 2
        # line/column and offsets name the same stretch of text
        assert (
            lines[f["line"] - 1][f["column"] - 1 : f["end_column"] - 1]
            == text[f["start"] : f["end"]]
        )


def test_cli_json_fix_positions(tmp_path: Path) -> None:
    p = tmp_path / "t.el"
    p.write_text(
        ';; ü\n(gptel-make-tool :name "f" :description "F." :function #\'ignore\n'
        ' :args (list \'(:name "x" :type string :desciption "d")))\n',
        encoding="utf-8",
    )
    out = subprocess.run(
        [sys.executable, "-m", "plistspec", "check", "--output-format", "json", str(p)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    data = json.loads(out)
    typo = [o for o in data if o["code"] == "PS301"]
    assert typo and typo[0]["fix"]["replacement"] == ":description"
    assert (typo[0]["fix"]["line"], typo[0]["fix"]["column"]) == (
        typo[0]["line"],
        typo[0]["column"],
    )


FILES = sorted(BROKEN.glob("*.el"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_fixes_repair(path: Path) -> None:
    """Applying a fix removes its finding and breaks nothing (no new syntax error)."""
    text = path.read_text(encoding="utf-8")
    diags = check_text(text, path.name)
    broken = sum(d.code in ("PS001", "PS332") for d in diags)
    for d in diags:
        if d.fix is None:
            continue
        fixed = _apply(text, d.fix)
        after = check_text(fixed, path.name)
        assert sum(a.code in ("PS001", "PS332") for a in after) <= broken, (d, after)
        same = [a for a in after if a.code == d.code and a.start == d.fix.start]
        assert not same, (d, d.fix, same)


def test_check_stays_a_function() -> None:
    """Importing the checking module must not replace ``plistspec.check`` (a submodule
    named ``check`` did, after the first call)."""
    import plistspec.checking.checker  # noqa: F401

    text = '(gptel-make-tool :name "a b" :description "d" :function #\'f)'
    first = plistspec.check(text, "t.el")
    second = plistspec.check(text, "t.el", target="gemini")
    assert callable(plistspec.check) and not isinstance(plistspec.check, type(plistspec))
    assert any(d.code == "PS307" for d in first)
    assert any(d.code == "PS401" for d in second)
