"""fmt leaves alone what it must not lay out (issue 13 §4).

* Syntax plistspec does not read (``#s(``, ``#[``, ``#^[``, ``#(``) is an info, as in
  ``check`` and ``to-json``: that form stays byte for byte, the rest is formatted.
* A tool form that ``check`` reports an error in stays as written, with a PS530 info.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from plistspec.checking.checker import check_text
from plistspec.elisp.recover import read_recovering
from plistspec.extract import find_tools
from plistspec.fmt.rewrite import format_text

ROOT = Path(__file__).resolve().parents[2]

MESSY = """(gptel-make-tool :name "ok_tool" :function #'ignore :description "Fine."
  :args (list '(:name "p" :type string :description "P")))
"""


@pytest.mark.parametrize(
    "odd",
    [
        '(defvar my-table #s(hash-table test equal data ("a" 1)))',
        '(defvar my-code #[(x) "\\300\\207" [x] 1])',
        "(defvar my-table #^[nil nil keymap nil])",
        '(defvar my-text #("abc" 0 1 (face bold)))',
    ],
)
def test_unread_syntax_is_an_info_and_stays(odd: str) -> None:
    text = odd + "\n" + MESSY + odd + "\n"
    new, diags = format_text(text, "t.el")
    assert not any(d.is_error for d in diags), diags
    infos = [d for d in diags if d.code == "PS002"]
    assert len(infos) == 2 and all(d.severity == "info" for d in infos)
    assert new.startswith(odd + "\n") and new.endswith("\n" + odd + "\n")
    assert new != text  # the readable tool form was laid out
    assert "(gptel-make-tool\n :name" in new


@pytest.mark.parametrize(
    "form, code",
    [
        (
            '(gptel-make-tool :name "bad name" :function #\'ignore :description "d"\n'
            '  :args (list \'(:name "p" :type string :description "P")))',
            "PS307",
        ),
        (
            '(gptel-make-tool :name "dup" :function #\'ignore :description "d"\n'
            '  :args (list \'(:name "p" :type string :description "P")\n'
            '              \'(:name "p" :type integer :description "Q")))',
            "PS311",
        ),
    ],
)
def test_forms_check_reports_errors_in_stay(form: str, code: str) -> None:
    assert any(d.is_error and d.code == code for d in check_text(form))
    new, diags = format_text(MESSY + form + "\n")
    assert new.endswith(form + "\n")
    assert any(d.code == "PS530" and code in d.message for d in diags)
    assert not any(d.is_error for d in diags)


FILES = (
    sorted((ROOT / "fixtures" / "elisp").glob("*.el"))
    + sorted((ROOT / "fixtures" / "broken").glob("*.el"))
    + sorted((ROOT / "fixtures" / "corpus").glob("*.el"))
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_form_with_a_check_error_is_rewritten(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    errors = [d for d in check_text(text) if d.is_error and d.start >= 0]
    new, _ = format_text(text)
    datums, _ = read_recovering(text)
    forms, _ = find_tools(datums, text)
    for f in forms:
        if any(f.start <= e.start < f.end for e in errors):
            assert text[f.start : f.end] in new, (path.name, text[f.start : f.start + 60])
