"""The recorded ground truth equals what the REAL gptel 0.9.9.5 and llm 0.31.1 send now:
every case of ``fixtures/semantics/cases.json`` and every row of
``fixtures/corpus/expected.json`` is re-run through the libraries
(``tests/real_tool_json.el``, one ``emacs --batch`` per table) and must give the
recorded JSON or signal, on Emacs 28 and, with the rows' ``emacs30`` entries, Emacs 30."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from real_tool_json import FAMILIES, emacs_major, expected, llm_text, run_pairs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TABLES = {
    "semantics": FIXTURES / "semantics" / "cases.json",
    "corpus": FIXTURES / "corpus" / "expected.json",
}


@pytest.mark.slow
@pytest.mark.emacs
@pytest.mark.parametrize("table", list(TABLES))
def test_recorded_table_is_what_the_real_libraries_send(table, emacs, elisp_deps_dir) -> None:
    major = emacs_major(emacs.exe)
    if major not in (28, 30):
        pytest.skip(f"the tables record Emacs 28 and 30 only; this is Emacs {major}")
    rows = json.loads(TABLES[table].read_text(encoding="utf-8"))["cases"]
    now = run_pairs([(r["elisp"], llm_text(r["elisp"])) for r in rows], elisp_deps_dir, emacs.exe)
    differ = [
        (row.get("file", ""), row.get("index", row.get("id")), family)
        for row, got in zip(rows, now, strict=True)
        for family in FAMILIES
        if json.dumps(got[family], ensure_ascii=False)
        != json.dumps(expected(row, family, major), ensure_ascii=False)
    ]
    assert len(now) == len(rows) >= 20
    assert differ == [], f"Emacs {major}: {len(differ)} recorded values differ: {differ[:8]}"


def test_emacs30_entries_name_only_families() -> None:
    """An ``emacs30`` entry overrides only known families, each with one kind of value."""
    for path in TABLES.values():
        for row in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            for family, value in row.get("emacs30", {}).items():
                assert family in FAMILIES
                assert len(value) == 1 and next(iter(value)) in ("json", "json_text", "error")
                assert value != row[family]
