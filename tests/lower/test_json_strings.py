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


# What json-serialize sends per Emacs major version (None: it signals). Emacs 30 refuses
# every string holding a raw byte, where 28 sent bytes that form UTF-8 as that text.
BY_VERSION = {
    r'"\xc3\xa9"': {28: "é", 30: None},
    r'"\xe9"': {28: None, 30: None},
    r'"é\xe9"': {28: None, 30: None},
    r'"é\xc3\xa9"': {28: "éé", 30: None},
    r'"\303\251 ok"': {28: "é ok", 30: None},
    r'"plain"': {28: "plain", 30: "plain"},
    r'"\u00e9\n"': {28: "é\n", 30: "é\n"},
}


def test_json_text_agrees_with_json_serialize(emacs):
    major = int(emacs.run("(princ emacs-major-version)"))
    code = "(dolist (s (list " + " ".join(LITERALS) + "))"
    code += " (princ (condition-case nil (decode-coding-string (json-serialize (vector s)) 'utf-8)"
    code += ' (error "ERROR"))) (terpri))'
    lines = emacs.run(code).splitlines()
    assert len(lines) == len(LITERALS)
    for lit, line in zip(LITERALS, lines, strict=True):
        (datum,) = read_all(lit)
        ours = json_text(datum.value, major)
        theirs = None if line == "ERROR" else json.loads(line)[0]
        assert ours == theirs, lit
        if major in (28, 30):  # the table holds what each version does
            assert theirs == BY_VERSION[lit][major], (lit, major)


@pytest.mark.parametrize(
    "lit", [lit for lit in LITERALS if BY_VERSION[lit][28] != BY_VERSION[lit][30]]
)
def test_a_string_emacs_30_refuses_is_sent_as_28_does_with_a_warning(lit):
    import plistspec

    for head in ("gptel-make-tool", "llm-make-tool"):
        text = f'({head} :name "t" :description {lit} :args nil :function #\'ignore)'
        tools, diags = plistspec.read_tools(text)
        assert [t["description"] for t in tools] == [BY_VERSION[lit][28]], head
        (w,) = diags
        assert (w.code, w.severity) == ("PS205", "warning")
        assert "on Emacs 30" in w.message
        assert text[w.start : w.end] == lit


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
