"""The ground-truth table (``fixtures/semantics/cases.json``, produced by running the real
gptel and llm conversion code in Emacs, see ``gen_semantics.py``): plistspec gives the
same JSON, key order included, for every case the libraries accept, and an error
diagnostic for every case on which they fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plistspec.elisp.reader import read_all
from plistspec.emit_json import emit
from plistspec.extract import find_tools
from plistspec.replay import lower

TABLE = Path(__file__).resolve().parents[2] / "fixtures" / "semantics" / "cases.json"
CASES = json.loads(TABLE.read_text(encoding="utf-8"))["cases"]

PARAMS = []
for case in CASES:
    for family in ("openai", "anthropic", "llm"):
        if family in case:
            PARAMS.append(pytest.param(case, family, id=f"{case['id']}-{family}"))


def _run(text: str, dialect: str, fmt: str):
    forms, diags = find_tools(read_all(text), text)
    assert len(forms) == 1, diags
    tool, diags = lower(forms[0], dialect)
    if tool is None:
        return None, diags
    value, more = emit([tool], fmt)
    return value, diags + more


def test_table_is_large() -> None:
    assert len(CASES) >= 300
    oks = sum(1 for c in CASES for f in ("openai", "anthropic", "llm") if "json" in c.get(f, {}))
    assert oks >= 300


@pytest.mark.parametrize("case,family", PARAMS)
def test_case(case: dict, family: str) -> None:
    text = case["elisp"]
    if family == "llm":
        text = text.replace("(gptel-make-tool", "(llm-make-tool", 1)
        value, diags = _run(text, "llm", "openai")
    else:
        value, diags = _run(text, "gptel", family)
    want = case[family]
    if "error" in want:
        assert value is None, f"the library fails with {want['error']}"
        assert any(d.is_error and d.code in ("PS201", "PS202", "PS203") for d in diags)
    else:
        assert [d for d in diags if d.is_error] == []
        assert json.dumps(value, ensure_ascii=False) == json.dumps(want["json"], ensure_ascii=False)


EMACS30 = [c for c in CASES if "emacs30" in c]


def test_what_emacs30_sends_differently_is_an_error_already() -> None:
    """plistspec replays Emacs 28; every case the real libraries send (or signal)
    differently on Emacs 30 (the rows' ``emacs30`` entries: a repeated arg name sent twice,
    a bignum sent, a value behind a repeated name refused) gets an error diagnostic, so no spec plistspec
    passes sends other JSON on Emacs 30."""
    from plistspec.lint import lint

    assert len(EMACS30) >= 100
    for case in EMACS30:
        for family in case["emacs30"]:
            text = case["elisp"]
            dialect = "llm" if family == "llm" else "gptel"
            if dialect == "llm":
                text = text.replace("(gptel-make-tool", "(llm-make-tool", 1)
            forms, diags = find_tools(read_all(text), text)
            _tool, more = lower(forms[0], dialect)
            found = list(diags) + more + lint(forms[0], dialect=dialect)
            assert any(d.is_error for d in found), (case["id"], family)
