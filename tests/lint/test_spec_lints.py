"""Each spec lint (PS3xx) fires on a bad spec and stays quiet on the corrected one."""

from __future__ import annotations

import pytest

from plistspec.checking.checker import check_text
from plistspec.elisp.reader import read_all
from plistspec.extract import find_tools
from plistspec.lint import lint


def tool(args: str, *, head: str = "gptel-make-tool", extra: str = "") -> str:
    return (
        f'({head} :name "f" :description "Does f." :function #\'ignore {extra}\n'
        f" :args (list '({args})))\n"
    )


def lint_codes(text: str, target: str | None = None) -> list[str]:
    forms, _ = find_tools(read_all(text), text)
    out = []
    for form in forms:
        out += [d.code for d in lint(form, None, target)]
    return out


def check_codes(text: str, target: str | None = None) -> list[str]:
    return [d.code for d in check_text(text, "t.el", target=target)]


CASES = [
    # code, bad, good
    (
        "PS301",
        tool(':name "x" :type string :desciption "d"'),
        tool(':name "x" :type string :description "d"'),
    ),
    (
        "PS301",
        tool(':name "x" :type string :string "d"'),
        tool(':name "x" :type string :description "d"'),
    ),
    ("PS302", tool(':name "x" :type string', extra=":tags (a b)"), tool(':name "x" :type string')),
    ("PS303", tool(':name "x" :type string :require t'), tool(':name "x" :type string')),
    (
        "PS303",
        tool(':name "x" :type string :required t'),
        tool(':name "x" :type string :optional t'),
    ),
    (
        "PS304",
        '(gptel-make-tool :description "d" :function #\'f)',
        '(gptel-make-tool :name "n" :description "d" :function #\'f)',
    ),
    (
        "PS305",
        '(gptel-make-tool :name "n" :function #\'f)',
        '(gptel-make-tool :name "n" :description "d" :function #\'f)',
    ),
    (
        "PS306",
        '(gptel-make-tool :name "n" :description " " :function #\'f)',
        '(gptel-make-tool :name "n" :description "d" :function #\'f)',
    ),
    (
        "PS307",
        '(gptel-make-tool :name "a b" :description "d" :function #\'f)',
        '(gptel-make-tool :name "a_b" :description "d" :function #\'f)',
    ),
    (
        "PS339",
        '(gptel-make-tool :name "a.b" :description "d" :function #\'f)',
        '(gptel-make-tool :name "a_b" :description "d" :function #\'f)',
    ),
    (
        "PS308",
        '(gptel-make-tool :name 42 :description "d" :function #\'f)',
        '(gptel-make-tool :name "n42" :description "d" :function #\'f)',
    ),
    (
        "PS309",
        tool(':type string :description "d"'),
        tool(':name "x" :type string :description "d"'),
    ),
    ("PS310", tool(':name "" :type string'), tool(':name "x" :type string')),
    (
        "PS311",
        tool(':name "x" :type string) \'(:name "x" :type integer'),
        tool(':name "x" :type string) \'(:name "y" :type integer'),
    ),
    ("PS312", tool(':name "x" :type string :type integer'), tool(':name "x" :type string')),
    ("PS313", tool(':name "x" :description "d"'), tool(':name "x" :type string :description "d"')),
    ("PS314", tool(':name "x" :type int'), tool(':name "x" :type integer')),
    ("PS315", tool(':name "x" :type "string"'), tool(':name "x" :type string')),
    ("PS316", tool(':name "x" :type \'string'), tool(':name "x" :type string')),
    (
        "PS317",
        tool(':name "x" :type string :enum ("a" "b")'),
        tool(':name "x" :type string :enum ["a" "b"]'),
    ),
    (
        "PS317",
        tool(':name "x" :type string :enum [a b]'),
        tool(':name "x" :type string :enum ["a" "b"]'),
    ),
    ("PS318", tool(':name "x" :type array'), tool(':name "x" :type array :items (:type string)')),
    (
        "PS319",
        tool(':name "x" :type string :properties (:a (:type string))'),
        tool(':name "x" :type object :properties (:a (:type string))'),
    ),
    (
        "PS320",
        tool(':name "x" :type object :properties (:a (:type string)) :required ["b"]'),
        tool(':name "x" :type object :properties (:a (:type string)) :required ["a"]'),
    ),
    (
        "PS321",
        tool(':name "x" :type object :properties (:a (:type string)) :required nil'),
        tool(':name "x" :type object :properties (:a (:type string)) :required []'),
    ),
    (
        "PS322",
        tool(':name "x" :type object :properties (:a (:type string :optional t))'),
        tool(':name "x" :type object :properties (:a (:type string))'),
    ),
    (
        "PS323",
        tool(':name "x" :type string :optional :json-false'),
        tool(':name "x" :type string :optional t'),
    ),
    (
        "PS323",
        tool(':name "x" :type string :optional'),
        tool(':name "x" :type string :optional nil'),
    ),
    (
        "PS324",
        tool(':name "x" :type object :additionalProperties t'),
        tool(':name "x" :type object :additionalProperties :json-false'),
    ),
    (
        "PS325",
        tool(':name "x" :type string :default nil'),
        tool(':name "x" :type string :default ""'),
    ),
    (
        "PS326",
        tool(':name "x" :type string :format "date"', head="llm-make-tool"),
        tool(':name "x" :type string :format "date"'),
    ),
    (
        "PS327",
        tool(
            ':name "x" :type object :properties (:a (:type string :default :null))',
            head="llm-make-tool",
        ),
        tool(':name "x" :type object :properties (:a (:type string :default :null))'),
    ),
    (
        "PS328",
        tool(':name "x" :type object :properties (:additionalProperties (:type string))'),
        tool(':name "x" :type object :properties (:extra (:type string))'),
    ),
    (
        "PS329",
        '(gptel-make-tool :name "n" :description "d" :function #\'f :args \'(:name "x" :type string))',
        '(gptel-make-tool :name "n" :description "d" :function #\'f :args \'((:name "x" :type string)))',
    ),
    (
        "PS329",
        '(gptel-make-tool :name "n" :description "d" :function #\'f :args [(:name "x" :type string)])',
        '(gptel-make-tool :name "n" :description "d" :function #\'f :args \'((:name "x" :type string)))',
    ),
    (
        "PS330",
        tool(':name "x" :anyOf ((:type string) (:type null))'),
        tool(':name "x" :anyOf [(:type string) (:type null)]'),
    ),
    (
        "PS331",
        '(gptel-make-tool :name "n" :description "d")',
        '(gptel-make-tool :name "n" :description "d" :function #\'f)',
    ),
]


@pytest.mark.parametrize("code,bad,good", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_lint_positive_and_negative(code: str, bad: str, good: str) -> None:
    assert code in lint_codes(bad), f"{code} not reported for {bad}"
    assert code not in lint_codes(good), f"{code} reported for {good}"
    # check() never hides a finding: the lint or lower()'s own error is there.
    got = check_codes(bad)
    assert code in got or any(c.startswith("PS2") for c in got), got


def test_seed_record_summary_typo_exact_place_and_fix() -> None:
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "fixtures" / "elisp" / "record_summary.el"
    text = path.read_text(encoding="utf-8")
    diags = [d for d in check_text(text, "record_summary.el") if d.code == "PS301"]
    assert len(diags) == 1
    d = diags[0]
    lines = text.splitlines()
    line_no = next(i for i, ln in enumerate(lines, 1) if ':description: "' in ln)
    col = lines[line_no - 1].index(":description:") + 1
    assert (d.line, d.column) == (line_no, col)
    assert (d.end_line, d.end_column) == (line_no, col + len(":description:"))
    assert "did you mean :description?" in d.message
    assert d.fix is not None and d.fix.replacement == ":description"
    assert text[d.fix.start : d.fix.end] == ":description:"
    fixed = text[: d.fix.start] + d.fix.replacement + text[d.fix.end :]
    assert not [x for x in check_text(fixed) if x.code == "PS301"]


def test_fixes_apply_to_the_text() -> None:
    text = tool(':name "x" :type string :enum ("a" "b")')
    forms, _ = find_tools(read_all(text), text)
    (d,) = [d for d in lint(forms[0]) if d.code == "PS317"]
    assert d.fix is not None
    fixed = text[: d.fix.start] + d.fix.replacement + text[d.fix.end :]
    assert ':enum ["a" "b"]' in fixed
    assert "PS317" not in lint_codes(fixed)


def test_require_fix_deletes_the_pair() -> None:
    text = tool(':name "x" :type string :require t')
    forms, _ = find_tools(read_all(text), text)
    (d,) = [d for d in lint(forms[0]) if d.code == "PS303"]
    fixed = text[: d.fix.start] + d.fix.replacement + text[d.fix.end :]
    assert ":require" not in fixed and '(:name "x" :type string)' in fixed


def test_no_fix_for_computed_values() -> None:
    # (list ...) builds the enum: no literal list to turn into a vector
    text = (
        '(gptel-make-tool :name "n" :description "d" :function #\'f '
        ':args (list (list :name "x" :type \'string :enum (list "a" "b"))))'
    )
    forms, _ = find_tools(read_all(text), text)
    ds = [d for d in lint(forms[0]) if d.code == "PS317"]
    assert ds and ds[0].fix is None


def test_clean_fixtures_have_no_errors() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "fixtures" / "elisp"
    for name in ("get_weather.el", "llm_get_weather.el"):
        text = (root / name).read_text(encoding="utf-8")
        assert [d for d in check_text(text, name) if d.severity != "info"] == []
