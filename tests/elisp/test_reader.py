"""Unit tests of the reader: values (as Emacs 28 reads them), spans, errors, depth."""

from __future__ import annotations

import math
import struct

import pytest

from plistspec.core.diagnostics import ReadError
from plistspec.elisp.datum import Float, Integer, List, String, Symbol, Vector
from plistspec.elisp.reader import ReadCache, read_all, read_one, read_some


def one(text: str):
    data = read_all(text)
    assert len(data) == 1, data
    return data[0]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r'"a\nb"', "a\nb"),
        (r'"\"\\"', '"\\'),
        (r'"\x41"', "A"),
        (r'"\xe9"', "\udce9"),  # two hex digits >= 0x80: a raw byte
        (r'"\x0e9"', "é"),  # three digits: the character
        (r'"\351"', "\udce9"),
        (r'"\400"', "\u0100"),
        (r'"\1234"', "S4"),
        (r'"\u00e9\U0001F600"', "é😀"),
        (r'"\N{U+41}\N{snowman}"', "A☃"),
        (r'"\N{LINE FEED (LF)}"', "\n"),
        (r'"\s\d\e\a\b\f\v\r"', " \x7f\x1b\x07\b\f\v\r"),
        ('"a\\ b\\\nc"', "abc"),
        (r'"\(\q"', "(q"),
        (r'"\C-a\^?\M-a\S-a"', "\x01\x7f\udce1A"),
        ('"raw\nline é"', "raw\nline é"),
    ],
)
def test_strings(text: str, value: str) -> None:
    d = one(text)
    assert isinstance(d, String) and d.value == value


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("?a", 97),
        ("?\\n", 10),
        ("?\\C-a", 1),
        ("?\\^a", 1),
        ("?\\^?", 127),
        ("?\\M-a", 134217825),
        ("?\\s", 32),
        ("?\\s-a", 8388705),
        ("?\\(", 40),
        ("?\\\\", 92),
        ("?\\x41", 65),
        ("?\\u00e9", 233),
        ("?\\N{LATIN SMALL LETTER E WITH ACUTE}", 233),
        ("?é", 233),
        ("?\\xe9", 233),
        ("?\\C-%", 67108901),
        ("?\\C-\\M-a", 134217729),
        ("? ", 32),
    ],
)
def test_characters(text: str, code: int) -> None:
    d = one(text)
    assert isinstance(d, Integer) and d.value == code and d.char


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("1", Integer, 1),
        ("+1", Integer, 1),
        ("-0", Integer, 0),
        ("1.", Integer, 1),
        ("#x1F", Integer, 31),
        ("#o17", Integer, 15),
        ("#b101", Integer, 5),
        ("#24r1k", Integer, 44),
        ("#x-1f", Integer, -31),
        ("123456789012345678901234567890", Integer, 123456789012345678901234567890),
        (".5", Float, 0.5),
        ("1e3", Float, 1000.0),
        ("1.e3", Float, 1000.0),
        ("-.5e2", Float, -50.0),
        ("1.5e-7", Float, 1.5e-7),
        ("1.0e+INF", Float, math.inf),
        ("-1.0e+INF", Float, -math.inf),
        ("1e400", Float, math.inf),
        ("1+", Symbol, "1+"),
        ("1e", Symbol, "1e"),
        ("-", Symbol, "-"),
        ("0x10", Symbol, "0x10"),
        ("1/2", Symbol, "1/2"),
        ("1_000", Symbol, "1_000"),
        (".e3", Symbol, ".e3"),
        ("+.", Symbol, "+."),
        ("\\1", Symbol, "1"),
        ("a\\ b", Symbol, "a b"),
        ("foo\\(bar", Symbol, "foo(bar"),
        (":description:", Symbol, ":description:"),
        (":", Symbol, ":"),
        ("##", Symbol, ""),
        ("nil", Symbol, "nil"),
        ("()", Symbol, "nil"),
        ("größe", Symbol, "größe"),
    ],
)
def test_atoms(text: str, kind: type, value: object) -> None:
    d = one(text)
    assert type(d) is kind
    assert (d.name if kind is Symbol else d.value) == value


def test_nan_payload_and_sign() -> None:
    bits = [struct.pack(">d", one(t).value).hex() for t in ("0.0e+NaN", "-0.0e+NaN", "1.0e+NaN")]
    assert bits == ["7ff8000000000000", "fff8000000000000", "7ff8000000000001"]
    assert struct.pack(">d", one("-0.0").value) == struct.pack(">d", -0.0)


def test_lists_quotes_and_spans() -> None:
    text = "(a 'b #'c `(d ,e ,@f) [1 2] (g . h))"
    d = one(text)
    assert isinstance(d, List) and (d.start, d.end) == (0, len(text))
    a, qb, fc, bq, vec, dotted = d.items
    assert qb == List([Symbol("quote"), Symbol("b")])
    assert (qb.start, qb.end) == (3, 5)  # spans from the quote
    assert (qb.items[0].start, qb.items[1].start) == (3, 4)
    assert fc == List([Symbol("function"), Symbol("c")]) and (fc.start, fc.end) == (6, 9)
    assert bq.items[0] == Symbol("`")
    inner = bq.items[1]
    assert inner.items[1] == List([Symbol(","), Symbol("e")])
    assert inner.items[2] == List([Symbol(",@"), Symbol("f")])
    assert vec == Vector([Integer(1), Integer(2)])
    assert dotted.tail == Symbol("h") and dotted.items == [Symbol("g")]
    assert text[a.start : a.end] == "a"
    assert text[vec.start : vec.end] == "[1 2]"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("(a . (b c))", List([Symbol("a"), Symbol("b"), Symbol("c")])),
        ("(a . (b . (c . d)))", List([Symbol("a"), Symbol("b"), Symbol("c")], tail=Symbol("d"))),
        ("(a . nil)", List([Symbol("a")])),
        ("(a . 'b)", List([Symbol("a"), Symbol("quote"), Symbol("b")])),
        ("(a .)", List([Symbol("a"), Symbol(".")])),  # `.` before `)` is a symbol
        ("(a .b)", List([Symbol("a"), Symbol(".b")])),
    ],
)
def test_dotted_lists_normalize_like_emacs(text: str, expected: object) -> None:
    assert one(text) == expected


def test_comments_whitespace_and_hash_ends_symbol() -> None:
    assert read_all(";; c\n(a ; x\n b)\n; end") == [List([Symbol("a"), Symbol("b")])]
    assert read_all("a\u00a0b\x01c") == [Symbol("a"), Symbol("b"), Symbol("c")]
    assert read_all("a##b") == [Symbol("a"), Symbol(""), Symbol("b")]


def test_read_one_steps_form_by_form() -> None:
    text = " (a b) ; c\n x "
    d, pos = read_one(text)
    assert d == List([Symbol("a"), Symbol("b")]) and pos == 6
    d, pos = read_one(text, pos)
    assert d == Symbol("x") and pos == 13
    assert read_one(text, pos) == (None, len(text))


def test_read_one_with_a_shared_cache_reads_the_same_datums_and_spans() -> None:
    text = "(a :k 1.5 b\\c) (:k a 1.5 b\\c .x) 'a ; c\n[a b\\c 1.5]"
    cache = ReadCache()
    got, pos = [], 0
    while True:
        d, pos = read_one(text, pos, cache)
        if d is None:
            break
        got.append(d)
    assert got == read_all(text)
    assert [(d.start, d.end) for d in got] == [(d.start, d.end) for d in read_all(text)]
    assert [x.start for x in got[1].items] == [16, 19, 21, 25, 29]
    assert cache.syms["a"] == "a" and cache.atoms["b\\c"] == (Symbol, "bc")


def test_read_some_gives_read_ones_datums_in_batches() -> None:
    text = ' (a b) ; c\n x "s" [1 2] \'q (d . e) '
    ones, pos = [], 0
    while True:
        d, pos = read_one(text, pos)
        if d is None:
            break
        ones.append((d, d.start, d.end, pos))
    for forms, chars in ((1, 1000), (2, 1000), (3, 1000), (100, 1000), (100, 1), (100, 9)):
        got, pos = [], 0
        while True:
            ds, pos = read_some(text, pos, forms, chars, ReadCache())
            if not ds:
                break
            assert len(ds) <= forms
            got += [(d, d.start, d.end) for d in ds]
            after = next(end for d, s, e, end in ones if e == ds[-1].end)
            # just after the batch, or the end of the input when the read reached it
            assert pos == after or (pos == len(text) and ds[-1].end == ones[-1][2])
        assert got == [(d, s, e) for d, s, e, _ in ones], (forms, chars)
    assert len(read_some(text, 0, 100, 9)[0]) == 2  # (a b) ends at 6, x at 13 >= 9
    assert read_some(text, len(text), 5, 5) == ([], len(text))


@pytest.mark.parametrize(
    ("text", "line", "col", "code", "words"),
    [
        ('(a\n  "b', 2, 3, "PS001", "unterminated string starting at 2:3"),
        ("(a\n (b)", 1, 1, "PS001", "unterminated list starting at 1:1"),
        ("x\n[a", 2, 1, "PS001", "unterminated vector"),
        ("a )", 1, 3, "PS001", "unexpected `)`"),
        ("]", 1, 1, "PS001", "unexpected `]`"),
        ("(a ]", 1, 4, "PS001", "`]` inside the list"),
        ("[a )", 1, 4, "PS001", "`)` inside the vector"),
        ("(a . b c)", 1, 8, "PS001", "wrong context"),
        ("(a . )", 1, 6, "PS001", "after `.`"),
        ("[a . b]", 1, 4, "PS001", "inside a vector"),
        (" .", 1, 2, "PS001", "outside a list"),
        ('"\\N{NO SUCH NAME}"', 1, 2, "PS001", "unknown character name"),
        ('"\\u12"', 1, 2, "PS001", "4 hex digits"),
        ('\n  "\\C-%"', 2, 4, "PS001", "invalid modifier"),
        ("#xg", 1, 1, "PS001", "radix 16"),
        ("#37r1", 1, 1, "PS001", "radix 37"),
        ("?ab", 1, 1, "PS001", "character literal"),
        ("'", 1, 1, "PS001", "expected an expression"),
        ("a\\", 1, 2, "PS001", "backslash"),
        ("(a \ud800)", 1, 4, "PS001", "surrogate"),
        ("#<buffer>", 1, 1, "PS001", "unreadable"),
        ("#s(a)", 1, 1, "PS002", "#s("),
        ("(x #1=a)", 1, 4, "PS002", "#1="),
        ("#[a]", 1, 1, "PS002", "byte-code"),
        ("#@4 abc", 1, 1, "PS002", "#@"),
        ("#:x", 1, 1, "PS002", "uninterned"),
        # Emacs 28 and 30 differ (tests/elisp/test_reader_emacs.py: VERSION_DEPENDENT)
        ('"a\\x"', 1, 3, "PS001", "Emacs 30 refuses this"),
        ("(. x)", 1, 2, "PS001", "Emacs 30 refuses this"),
        ("(a . (. (b)))", 1, 7, "PS001", "nothing before it"),
        ("(a .\u00a0b)", 1, 4, "PS001", "no-break space"),
        ("?\\C-é", 1, 1, "PS001", "137 in 28, 67109097 in 30"),
        ('"\\^é"', 1, 2, "PS001", "Emacs 30 refuses this (Emacs 28 read it as U+0089)"),
    ],
)
def test_errors(text: str, line: int, col: int, code: str, words: str) -> None:
    with pytest.raises(ReadError) as info:
        read_all(text)
    e = info.value
    assert (e.line, e.column, e.code) == (line, col, code), str(e)
    assert words in e.message
    assert e.diagnostic("f.el").render().startswith(f"f.el:{line}:{col}: error:")


@pytest.mark.slow
def test_deep_nesting_reads_without_recursion() -> None:
    n = 100_000
    d = one("(" * n + "x" + ")" * n)
    depth = 0
    while isinstance(d, List):
        assert (d.start, d.end) == (depth, 2 * n + 1 - depth)
        d = d.items[0]
        depth += 1
    assert depth == n and d == Symbol("x")
    v = one("[" * n + "]" * n)
    assert isinstance(v, Vector)
    q = one("'" * n + "x")
    depth = 0
    while isinstance(q, List):
        q = q.items[1]
        depth += 1
    assert depth == n


@pytest.mark.slow
def test_many_quoted_items_and_long_dotted_chains() -> None:
    n = 100_000
    d = one("(" + " ".join(f"'a{i}" for i in range(n)) + ")")
    assert len(d.items) == n and d.items[-1] == List([Symbol("quote"), Symbol(f"a{n - 1}")])
    # (a . (a . (a ... ))) nested 100 000 deep is spliced into one flat list as it is read.
    chain = one("(a . " * n + "nil" + ")" * n)
    assert isinstance(chain, List) and len(chain.items) == n and chain.tail is None


def test_symbol_names_are_shared() -> None:
    d = one("(:type :type :type)")
    assert d.items[0].name is d.items[2].name


def test_fast_string_unescape_agrees_with_the_full_reader() -> None:
    """The split-based fast path for one-character escapes gives exactly what the full
    escape reader gives (or hands over to it), for every ASCII escape and mixes."""
    import random

    from plistspec.elisp import reader

    def both(body: str) -> tuple[object, object]:
        out = []
        for fn in (reader._unescape_string, reader._unescape_full):
            try:
                out.append(fn(body, body, 0))
            except ReadError as e:
                out.append((e.code, e.message))
        return out[0], out[1]

    singles = ["\\" + chr(c) for c in range(128)] + ["\\é", "\\\u3042"]
    for esc in singles:
        fast, full = both("a" + esc + "b")
        assert fast == full, esc
    rng = random.Random(7)
    pieces = ["x", "é", "\\\\", '\\"', "\\n", "\\\n", "\\ ", "\\s", "\\(", "\\t", "\\C-a", "\\x41"]
    for _ in range(3000):
        body = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        fast, full = both(body)
        assert fast == full, body
    assert reader._unescape_string('a\\\\\\"b\\\\\\\\n', "", 0) == 'a\\"b\\\\n'


def test_lone_surrogate_found_past_the_first_chunk() -> None:
    """The surrogate check encodes the text in chunks: the error offset is still exact.
    A raw byte (U+DC80..U+DCFF, invalid UTF-8 read with surrogateescape) is a character,
    as in Emacs; any other surrogate is not."""
    head = '(a "é")\n' * 20_000  # 160 000 characters, several chunks
    text = head + "(b \ud800)"
    with pytest.raises(ReadError) as info:
        read_all(text)
    assert info.value.pos == len(head) + 3 and info.value.line == 20_001
    d, end = read_one(text)  # the first form is fine on its own
    assert d == List([Symbol("a"), String("é")]) and end == 7
    raw = read_all(head + '(b\udce9 "\udcff" ;; \udcfe\n)')
    assert raw[-1] == List([Symbol("b\udce9"), String("\udcff")])


@pytest.mark.slow
def test_big_read_leaves_the_collector_as_it_was_and_its_datums_old() -> None:
    """A big read promotes its datums to the oldest generation (no collector passes
    over them later) and restores the collector's on/off state."""
    import gc

    text = "(a . 1) " * 140_000  # 1.1 million characters
    was = gc.isenabled()
    try:
        gc.enable()
        data = read_all(text)
        assert gc.isenabled() and gc.get_count()[0] < 1000
        assert any(o is data[-1] for o in gc.get_objects(generation=2))
        gc.disable()
        assert read_all("(b)") == [List([Symbol("b")])] and not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_characters_python_cannot_hold_read_as_a_marker_not_an_error():
    """gptel-agent's tools.el has "\\0-\\x3fff7f" in a helper: the file must still read."""
    from plistspec.elisp.reader import UNREPRESENTABLE

    (d,) = read_all(r'(a "\0-\x3fff7f" "\ud800" "\x110000")')
    assert [x.value for x in d.items[1:]] == [
        "\x00-" + UNREPRESENTABLE,
        UNREPRESENTABLE,
        UNREPRESENTABLE,
    ]


def test_a_tool_holding_such_a_character_is_refused_as_json_serialize_refuses_it():
    import plistspec

    text = r'(gptel-make-tool :name "t" :description "a\x3fff7f" :function (quote ignore))'
    tools, diags = plistspec.read_tools(text)
    assert tools == []
    assert [d.code for d in diags if d.is_error] == ["PS201"]
