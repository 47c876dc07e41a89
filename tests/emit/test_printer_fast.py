"""The printer's fast paths the writer leans on give exactly what its rules give:
``print_string`` through JSON's C escaping when the string holds nothing but ``"``, ``\\``,
newline, tab and return to escape, ``print_symbol`` of a name that needs no escaping;
errors (a lone surrogate) included."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from plistspec.elisp import printer

# every character class the rules treat apart: controls, DEL, quotes, backslash, the
# symbol punctuation, digits and signs, non-ASCII letters and non-letters, and surrogates
# (raw bytes U+DC80..U+DCFF and the others)
_CHARS = st.one_of(
    st.sampled_from(
        list("\x00\x07\x08\t\n\x0b\x0c\r\x1b\x1f\x7f \"\\'#;()[].,?`:+-_*/<>=!$%&^~@|{}")
    ),
    st.sampled_from(list("0123456789aZé日😀\u00a0\u2028\u200b")),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
    st.characters(),
)
_TEXT = st.text(_CHARS, max_size=12)


def _outcome(fn, s):
    try:
        return fn(s)
    except ValueError as e:
        return ("ValueError", str(e))


@pytest.mark.slow
@settings(max_examples=800, deadline=None)
@given(_TEXT)
@example('a "quoted" \\ word\nnext\tline\r')
@example("\udc80\x7f")
@example("\ud800")
def test_print_string_fast_path_is_the_rule(s: str) -> None:
    assert _outcome(printer.print_string, s) == _outcome(printer._print_string, s)


@pytest.mark.slow
@settings(max_examples=800, deadline=None)
@given(_TEXT)
@example("")
@example("1")
@example("-1.5")
@example("+")
@example("1+")
@example(":1")
@example("a-b_c")
@example("\ud800x")
def test_print_symbol_fast_path_is_the_rule(name: str) -> None:
    assert _outcome(printer.print_symbol, name) == _outcome(printer._print_symbol, name)
