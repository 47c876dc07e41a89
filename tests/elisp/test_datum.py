"""Datum equality and hashing (Emacs ``equal``, iterative) and the span API."""

from __future__ import annotations

import math
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plistspec.elisp.datum import Datum, Float, Integer, List, String, Symbol, Vector
from plistspec.elisp.reader import read_all

DEEP = 100_000


def nested(make, depth: int, leaf: Datum) -> Datum:
    d = leaf
    for _ in range(depth):
        d = make(d)
    return d


@pytest.mark.slow
def test_deep_lists_compare_and_hash_without_recursion() -> None:
    a = nested(lambda d: List([Symbol("x"), d]), DEEP, Integer(1))
    b = nested(lambda d: List([Symbol("x"), d]), DEEP, Integer(1))
    c = nested(lambda d: List([Symbol("x"), d]), DEEP, Integer(2))
    assert a == b and hash(a) == hash(b)
    assert a != c  # differs only at the bottom
    assert not (a == c)


@pytest.mark.slow
def test_deep_vectors_and_mixed_nesting() -> None:
    a = nested(lambda d: Vector([d]), DEEP, String("s"))
    b = nested(lambda d: Vector([d]), DEEP, String("s"))
    assert a == b and hash(a) == hash(b)
    assert a != nested(lambda d: Vector([d]), DEEP, Symbol("s"))  # string vs symbol
    assert a != nested(lambda d: List([d]), DEEP, String("s"))  # list vs vector
    m1 = nested(lambda d: Vector([List([d])]), DEEP // 2, Symbol("nil"))
    m2 = nested(lambda d: Vector([List([d])]), DEEP // 2, Symbol("nil"))
    assert m1 == m2 and hash(m1) == hash(m2)


@pytest.mark.slow
def test_deep_dotted_tails() -> None:
    # (a . (a . (a ... . z))) built in code (the reader would splice it into one list)
    a = nested(lambda d: List([Symbol("a")], tail=d), DEEP, Symbol("z"))
    b = nested(lambda d: List([Symbol("a")], tail=d), DEEP, Symbol("z"))
    assert a == b and hash(a) == hash(b)
    assert a != nested(lambda d: List([Symbol("a")], tail=d), DEEP, Symbol("y"))
    # a tail is not an element: (a . b) differs from (a b)
    assert List([Symbol("a")], tail=Symbol("b")) != List([Symbol("a"), Symbol("b")])
    assert List([Symbol("a")]) != List([Symbol("a")], tail=Symbol("nil"))


@pytest.mark.slow
def test_reader_output_compares_deep() -> None:
    text = "(" * DEEP + "x [1 2.5] . y" + ")" * DEEP
    a, b = read_all(text + " " + text)
    assert a == b and hash(a) == hash(b)
    c = read_all(text.replace("2.5", "2.0"))[0]
    assert a != c


def test_floats_compare_by_bits_like_equal() -> None:
    nan = float("nan")
    assert Float(nan) == Float(nan) and hash(Float(nan)) == hash(Float(nan))
    assert Float(0.0) != Float(-0.0)
    assert Float(1.0) != Integer(1)
    neg_nan = struct.unpack(">d", struct.pack(">Q", 0xFFF8000000000000))[0]
    assert math.isnan(neg_nan) and Float(nan) != Float(neg_nan)
    assert List([Float(nan)]) == List([Float(nan)])


def test_equality_ignores_spans_and_kinds_differ() -> None:
    assert Symbol("a", 0, 1) == Symbol("a", 5, 9)
    assert hash(Symbol("a", 0, 1)) == hash(Symbol("a"))
    assert Symbol("a") != String("a")
    assert Integer(97) == Integer(97, char=True)
    assert List([Symbol("a")]) != [Symbol("a")]
    assert Symbol("a") != "a"
    assert len({Symbol(":type"), Symbol(":type", 3, 8), String(":type")}) == 2


def test_end_is_a_settable_span_end() -> None:
    s = Symbol("x", 3, 7)
    assert (s.start, s.end) == (3, 7)
    s.start, s.end = 10, 400
    assert (s.start, s.end) == (10, 400)
    s.end = 12
    assert (s.start, s.end) == (10, 12)
    assert (Symbol("x").start, Symbol("x").end) == (-1, -1)
    lst = List([s], 0, 100_000, tail=Integer(1, 90, 91))
    assert lst.end == 100_000 and lst.tail.end == 91


# --- property: equal/hash agree with a plain recursive model on small trees -----------

atoms = st.one_of(
    st.sampled_from(["a", "b", ":k", "nil"]).map(Symbol),
    st.sampled_from(["a", "", "b"]).map(String),
    st.integers(-2, 2).map(Integer),
    st.sampled_from([0.0, -0.0, 1.5, float("nan")]).map(Float),
)


def _tree(children):
    return st.one_of(
        st.lists(children, min_size=1, max_size=3).map(List),
        st.tuples(st.lists(children, min_size=1, max_size=2), children).map(
            lambda p: List(p[0], tail=p[1])
        ),
        st.lists(children, max_size=3).map(Vector),
    )


trees = st.recursive(atoms, _tree, max_leaves=8)


def model(d: Datum) -> object:
    if isinstance(d, List):
        return ("L", tuple(model(x) for x in d.items), None if d.tail is None else model(d.tail))
    if isinstance(d, Vector):
        return ("V", tuple(model(x) for x in d.items))
    if isinstance(d, Float):
        return ("F", struct.pack(">d", d.value))
    if isinstance(d, Symbol):
        return ("S", d.name)
    return (type(d).__name__, d.value)  # type: ignore[attr-defined]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(trees, trees)
def test_equal_and_hash_agree_with_a_recursive_model(a: Datum, b: Datum) -> None:
    assert (a == b) == (model(a) == model(b))
    assert (a != b) == (model(a) != model(b))
    assert a == a and hash(a) == hash(a)
    if a == b:
        assert hash(a) == hash(b)
