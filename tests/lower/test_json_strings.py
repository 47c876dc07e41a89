"""Strings with raw bytes: what json-serialize sends, checked against real Emacs."""

from __future__ import annotations

import json

import pytest

from plistspec.elisp.reader import read_all
from plistspec.replay.lispjson import json_text

# Elisp string literals: unibyte bytes that form UTF-8, a lone raw byte, a multibyte string
# mixing characters and raw bytes, octal escapes, plain text.
LITERALS = [
    r'"\xc3\xa9"',
    r'"\xe9"',
    r'"é\xe9"',
    r'"é\xc3\xa9"',
    r'"\303\251 ok"',
    r'"plain"',
    r'"\u00e9\n"',
]


def test_json_text_agrees_with_json_serialize(emacs):
    code = "(dolist (s (list " + " ".join(LITERALS) + "))"
    code += ' (princ (condition-case nil (json-serialize (vector s)) (error "ERROR"))) (terpri))'
    lines = emacs.run(code).splitlines()
    assert len(lines) == len(LITERALS)
    for lit, line in zip(LITERALS, lines, strict=True):
        (datum,) = read_all(lit)
        ours = json_text(datum.value)
        theirs = None if line == "ERROR" else json.loads(line)[0]
        assert ours == theirs, lit


@pytest.mark.parametrize("lit,want", [(r'"\xc3\xa9"', "é"), (r'"\xe9"', None), ('"a"', "a")])
def test_json_text(lit, want):
    (datum,) = read_all(lit)
    assert json_text(datum.value) == want


def test_list_of_plists_under_items_names_items_in_the_error():
    import plistspec

    text = (
        '(gptel-make-tool :name "t" :description "d" :args (list (quote (:name "x" '
        ':type array :description "d" :items ((:type string) (:type number))))))'
    )
    tools, diags = plistspec.read_tools(text)
    assert tools == []
    (err,) = [d for d in diags if d.is_error]
    assert ":items must be a vector" in err.message and "::" not in err.message
