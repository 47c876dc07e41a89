"""The low-level printer: unit tests, and round trips through plistspec's reader and
through real Emacs (hypothesis-generated datums, all sent to one Emacs process)."""

from __future__ import annotations

import math
import struct

import pytest
from elisp_dump import py_dump
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from plistspec.elisp.datum import Datum, Float, Integer, List, String, Symbol, Vector
from plistspec.elisp.printer import print_datum, print_number, print_string, print_symbol
from plistspec.elisp.reader import read_all


def back(text: str) -> Datum:
    data = read_all(text)
    assert len(data) == 1
    return data[0]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("plain", '"plain"'),
        ('a"b\\c', '"a\\"b\\\\c"'),
        ("l1\nl2\tx\ry", '"l1\\nl2\\tx\\ry"'),
        ("\x07\x00\x7f", '"\\u0007\\u0000\\u007F"'),
        ("é 😀 \u00a0", '"é 😀 \u00a0"'),
        ("\udce9", '"\\351"'),
        ("\udce91", '"\\3511"'),  # three octal digits: the 1 stays a character
        ("\\x41", '"\\\\x41"'),
        # bidirectional controls and line separators: escaped, so the file shows them
        ("admin\u202e\u2066 // x\u2069", '"admin\\u202E\\u2066 // x\\u2069"'),
        ("\u061c\u200e\u200f\u202a\u2028\u2029", '"\\u061C\\u200E\\u200F\\u202A\\u2028\\u2029"'),
    ],
)
def test_print_string(value: str, text: str) -> None:
    assert print_string(value) == text
    assert back(text) == String(value)


BIDI_TEXTS = ["\u202eevil", "a\u2066b\u2069c", "x\u200e\u200f\u061c", "\u202a\u202b\u202c\u202d"]


def test_printed_strings_hold_no_bidi_control() -> None:
    from plistspec.elisp.printer import BIDI

    for value in BIDI_TEXTS:
        text = print_string(value)
        assert BIDI.search(text) is None and text.isascii(), text


@pytest.mark.emacs
def test_emacs_reads_escaped_bidi_controls_back_exactly(emacs_read) -> None:
    texts = [print_string(v) for v in BIDI_TEXTS]
    mine = [py_dump(String(v)) for v in BIDI_TEXTS]
    assert [dump for _, dump in emacs_read(texts)] == mine


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("foo", "foo"),
        (":name", ":name"),
        ("", "##"),
        ("a b", "a\\ b"),
        ("1", "\\1"),
        ("-1", "\\-1"),
        ("1.5", "1\\.5"),
        ("1e5", "\\1e5"),
        ("+1", "\\+1"),
        ("1+", "1+"),
        ("-", "-"),
        ("?a", "\\?a"),
        (".", "\\."),
        ("a#b", "a\\#b"),
        ("größe", "größe"),
        (":1", ":1"),
        ("$ref", "$ref"),
        ("x-mcp-header", "x-mcp-header"),
        ("a;b", "a\\;b"),
        ("nil", "nil"),
        ("a\u00a0b", "a\\\u00a0b"),
        ("1.0e+INF", "1\\.0e+INF"),
    ],
)
def test_print_symbol(name: str, text: str) -> None:
    assert print_symbol(name) == text
    assert back(text) == Symbol(name)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1, "1"),
        (-5, "-5"),
        (10**30, str(10**30)),
        (1.0, "1.0"),
        (1e20, "1e+20"),
        (-0.0, "-0.0"),
        (0.1, "0.1"),
        (1.5e-7, "1.5e-07"),
        (math.inf, "1.0e+INF"),
        (-math.inf, "-1.0e+INF"),
        (math.nan, "0.0e+NaN"),
    ],
)
def test_print_number(value: float, text: str) -> None:
    assert print_number(value) == text
    d = back(text)
    if isinstance(value, float):
        assert isinstance(d, Float) and struct.pack(">d", d.value) == struct.pack(">d", value)
    else:
        assert isinstance(d, Integer) and d.value == value


def test_huge_integer_prints_in_hex() -> None:
    v = -(3**20000)
    assert back(print_number(v)) == Integer(v)


def test_print_datum_shorthands_and_structure() -> None:
    q = List([Symbol("quote"), Symbol("x")])
    d = List(
        [
            q,
            List([Symbol("function"), Symbol("f")]),
            List(
                [
                    Symbol("`"),
                    List(
                        [
                            Symbol("a"),
                            List([Symbol(","), Symbol("b")]),
                            List([Symbol(",@"), Symbol("c")]),
                        ]
                    ),
                ]
            ),
            List([Symbol(","), Symbol("@x")]),
            Vector([Integer(1), Float(2.5), String("s")]),
            List([Symbol("a")], tail=Symbol("b")),
            Vector([]),
        ]
    )
    text = print_datum(d)
    assert text == "('x #'f `(a ,b ,@c) , @x [1 2.5 \"s\"] (a . b) [])"
    assert back(text) == d


@pytest.mark.slow
def test_print_datum_is_iterative() -> None:
    d: Datum = Symbol("x")
    for _ in range(100_000):
        d = List([d])
    text = print_datum(d)
    assert text == "(" * 100_000 + "x" + ")" * 100_000
    # (Datum.__eq__ recurses, so compare the reprinted text instead.)
    assert print_datum(back(text)) == text


def test_unprintable_surrogates_are_refused() -> None:
    with pytest.raises(ValueError):
        print_string("\ud800")
    with pytest.raises(ValueError):
        print_symbol("a\udce9")


# --- hypothesis: printed text reads back to the datum, in plistspec and in Emacs ---------

_TRICKY_CHARS = st.sampled_from(
    list("\"\\\n\t\r\x00\x01\x1b\x7f \u00a0é😀ß0123456789abcdefABCDEFxuUN{}()[];'`,#?.:-+")
    + list("\u061c\u200e\u200f\u202a\u202e\u2066\u2069\u2028")
    + [chr(0xDC80 + i) for i in (0, 0x69, 0x7F)]
)
_strings = st.text(_TRICKY_CHARS | st.characters(blacklist_categories=("Cs",)), max_size=12)
_names = st.text(
    st.sampled_from(list("ab:-+.?#;()[]\\\"' \u00a0é1e0_*/<>=!$%&^~@|{}"))
    | st.characters(blacklist_categories=("Cs",), max_codepoint=0x2FF),
    max_size=6,
)
_floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [-0.0, 0.5, 1e20, 1e-300, 5e-324, float("nan")]
)
_atoms = st.one_of(
    _names.map(Symbol),
    _strings.map(String),
    st.integers(min_value=-(2**80), max_value=2**80).map(Integer),
    _floats.map(Float),
)


def _normal_list(items: list[Datum], tail: Datum | None) -> Datum:
    # Keep datums in the normal form the reader produces (no nil or list tails).
    if tail is not None and (isinstance(tail, List) or tail == Symbol("nil")):
        tail = None
    return List(items, tail=tail)


_datums = st.recursive(
    _atoms,
    lambda kids: st.one_of(
        st.builds(_normal_list, st.lists(kids, min_size=1, max_size=4), st.none() | _atoms),
        st.lists(kids, max_size=4).map(Vector),
        st.builds(
            lambda h, x: List([Symbol(h), x]),
            st.sampled_from(["quote", "function", "`", ",", ",@"]),
            kids,
        ),
    ),
    max_leaves=12,
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(_datums)
def test_print_then_read_round_trips(d: Datum) -> None:
    assert back(print_datum(d)) == d


@pytest.mark.emacs
@settings(
    max_examples=6,
    deadline=None,
    # No shrinking: each step would start Emacs; the assertion names the failing text.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Batches of 50: a batch of 150 overran hypothesis's data buffer on most draws, and
# generation retried for minutes; 6 batches of 50 take about a second.
@pytest.mark.slow
@given(st.lists(_datums, min_size=50, max_size=50))
def test_emacs_reads_printed_datums_identically(emacs_read, batch: list[Datum]) -> None:
    texts = [print_datum(d) for d in batch]
    theirs = emacs_read(texts)
    for d, text, (kind, dump) in zip(batch, texts, theirs, strict=True):
        assert kind == "ok", (text, kind, dump)
        assert dump == py_dump(d), text
        assert py_dump(back(text)) == dump, text
