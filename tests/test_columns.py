"""columns: the visual column and the rest-of-line test fmt asks for every form, equal to
their plain definitions, in any order of queries."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plistspec.core.columns import rest_of_line_blank, visual_column


def naive_column(text: str, pos: int) -> int:
    col = 0
    for c in text[text.rfind("\n", 0, pos) + 1 : pos]:
        col = (col // 8 + 1) * 8 if c == "\t" else col + 1
    return col


def naive_blank(text: str, pos: int) -> bool:
    eol = text.find("\n", pos)
    rest = text[pos : eol if eol >= 0 else len(text)].strip()
    return not rest or rest.startswith(";")


CHARS = st.sampled_from(list('ab( )\t\n;"\xa0\u2028\x1c\r\x0b') + ["é", "😀"])


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(CHARS, max_size=60).map("".join), st.randoms(use_true_random=False))
def test_equal_to_the_definitions_in_any_order(text: str, rnd: random.Random) -> None:
    positions = list(range(len(text) + 1))
    for order in (positions, positions[::-1], rnd.sample(positions, len(positions))):
        for p in order:
            assert visual_column(text, p) == naive_column(text, p), (text, p)
            assert rest_of_line_blank(text, p) == naive_blank(text, p), (text, p)


@pytest.mark.parametrize("tabs", [False, True])
def test_many_forms_on_one_long_line(tabs: bool) -> None:
    form = '(gptel-make-tool :name "a" :function #\'f)'
    sep = "\t" if tabs else " "
    text = "(progn" + sep + sep.join([form] * 300) + ")\n"
    starts = [i for i in range(len(text)) if text.startswith(form, i)]
    assert [visual_column(text, s) for s in starts] == [naive_column(text, s) for s in starts]
    ends = [s + len(form) for s in starts]
    assert [rest_of_line_blank(text, e) for e in ends] == [naive_blank(text, e) for e in ends]
