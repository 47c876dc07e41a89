"""Hold the reader and grammars/elisp.ebnf to each other.

The lexical rules of the grammar (whitespace, delimiters, symbol constituents, integer
and float syntax) are translated here into Python regular expressions by a small
EBNF-to-regex translator; a sample of tokens and characters must then be classified
the same way by the grammar and by the reader. Editing either side alone fails this.
"""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest

from plistspec.core.diagnostics import ReadError
from plistspec.elisp.datum import Float, Integer, Symbol
from plistspec.elisp.reader import classify_token, read_all

EBNF = Path(__file__).resolve().parents[2] / "grammars" / "elisp.ebnf"

_LEX = re.compile(
    r"\s+|\(\*[\s\S]*?\*\)|(?P<str>\"(?:[^\"\\]|\\.)*\")|(?P<id>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<op>\.\.|[=;|\[\]{}()\-])"
)


def _literal(tok: str) -> str:
    body = tok[1:-1]
    return re.sub(
        r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)",
        lambda m: chr(int(m.group(1)[1:], 16)) if len(m.group(1)) > 1 else m.group(1),
        body,
    )


def parse_rules(text: str) -> dict[str, list[tuple[str, str]]]:
    rules: dict[str, list[tuple[str, str]]] = {}
    toks = []
    for m in _LEX.finditer(text):
        if m.lastgroup:
            toks.append((m.lastgroup, m.group()))
    i = 0
    while i < len(toks):
        name = toks[i][1]
        assert toks[i + 1] == ("op", "="), toks[i : i + 2]
        j = i + 2
        while toks[j] != ("op", ";"):
            j += 1
        rules[name] = toks[i + 2 : j]
        i = j + 1
    return rules


class Translator:
    """EBNF expression -> regex. Character sets stay sets (for `-` and `..`)."""

    def __init__(self, rules: dict[str, list[tuple[str, str]]]) -> None:
        self.rules = rules

    def rule(self, name: str) -> tuple[str, object]:
        toks = self.rules[name]
        self.toks, self.i = toks, 0
        saved = (toks, 0)
        r = self.alt()
        assert self.i == len(saved[0]), f"unparsed tail in {name}"
        return r

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def alt(self) -> tuple[str, object]:
        parts = [self.seq()]
        while self.peek() == ("op", "|"):
            self.i += 1
            parts.append(self.seq())
        if len(parts) == 1:
            return parts[0]
        if all(k == "set" for k, _ in parts):
            return ("set", _union([v for _, v in parts]))  # type: ignore[misc]
        return ("re", "(?:" + "|".join(_as_re(p) for p in parts) + ")")

    def seq(self) -> tuple[str, object]:
        parts = []
        while self.peek() not in (None, ("op", "|"), ("op", ")"), ("op", "]"), ("op", "}")):
            parts.append(self.diff())
        if len(parts) == 1:
            return parts[0]
        return ("re", "".join(_as_re(p) for p in parts))

    def diff(self) -> tuple[str, object]:
        left = self.atom()
        while self.peek() == ("op", "-"):
            self.i += 1
            right = self.atom()
            assert left[0] == "set" and right[0] == "set"
            left = ("set", _diff(left[1], right[1]))  # type: ignore[arg-type]
        return left

    def atom(self) -> tuple[str, object]:
        kind, tok = self.toks[self.i]
        self.i += 1
        if kind == "str":
            lit = _literal(tok)
            if self.peek() == ("op", ".."):
                self.i += 1
                hi = _literal(self.toks[self.i][1])
                self.i += 1
                return ("set", _range(ord(lit), ord(hi)))
            return ("set", _lit_set({lit})) if len(lit) == 1 else ("re", re.escape(lit))
        if kind == "id":
            saved = (self.toks, self.i)
            r = self.rule(tok)
            self.toks, self.i = saved
            return r
        if tok in "([{":
            inner = self.alt()
            close = {"(": ")", "[": "]", "{": "}"}[tok]
            assert self.toks[self.i] == ("op", close)
            self.i += 1
            if tok == "(":
                return inner
            return ("re", "(?:" + _as_re(inner) + (")?" if tok == "[" else ")*"))
        raise AssertionError(f"unexpected {tok!r}")


class CharSet:
    """A set of characters given by the grammar (ranges kept symbolic)."""

    def __init__(self, test, members) -> None:  # type: ignore[no-untyped-def]
        self.test = test
        self.members = members

    def __contains__(self, c: object) -> bool:
        return isinstance(c, str) and len(c) == 1 and self.test(c)


def _lit_set(chars: set[str]) -> CharSet:
    return CharSet(chars.__contains__, lambda: sorted(chars))


def _range(lo: int, hi: int) -> CharSet:
    return CharSet(lambda c: lo <= ord(c) <= hi, lambda: [chr(o) for o in range(lo, hi + 1)])


def _union(parts: list[CharSet]) -> CharSet:
    return CharSet(
        lambda c: any(c in p for p in parts),
        lambda: sorted({m for p in parts for m in p.members()}),
    )


def _diff(a: CharSet, b: CharSet) -> CharSet:
    return CharSet(lambda c: c in a and c not in b, lambda: [m for m in a.members() if m not in b])


def _as_re(p: tuple[str, object]) -> str:
    kind, v = p
    if kind == "re":
        return v  # type: ignore[return-value]
    chars = v.members()  # type: ignore[attr-defined]
    assert len(chars) < 5000, "only small character sets become regex classes"
    return "[" + "".join(re.escape(c) for c in chars) + "]"


@pytest.fixture(scope="module")
def grammar() -> Translator:
    rules = parse_rules(EBNF.read_text(encoding="utf-8"))
    for needed in ("whitespace", "delimiter", "constituent", "integer", "float", "exponent"):
        assert needed in rules, needed
    return Translator(rules)


def _sample_tokens() -> list[str]:
    alphabet = ["0", "1", "9", ".", "e", "E", "+", "-", "a", "x", "_", "/"]
    toks = ["".join(t) for n in range(1, 5) for t in itertools.product(alphabet, repeat=n)]
    rng = random.Random(7)
    pieces = ["1", "12", ".", "e", "+", "-", "INF", "NaN", "E", "0", "5", "+INF", "+NaN", "a"]
    toks += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(3000)]
    return sorted(set(toks))


def test_numbers_and_symbols_agree_with_the_grammar(grammar: Translator) -> None:
    integer = re.compile(_as_re(grammar.rule("integer")))
    flt = re.compile(_as_re(grammar.rule("float")))
    checked = 0
    for tok in _sample_tokens():
        if tok == ".":
            continue  # the dotted-pair marker, not a token
        is_int = integer.fullmatch(tok) is not None
        is_float = flt.fullmatch(tok) is not None
        assert not (is_int and is_float), tok
        expected = "integer" if is_int else "float" if is_float else "symbol"
        assert classify_token(tok)[0] == expected, tok
        datum = read_all(tok)
        assert len(datum) == 1, tok
        assert type(datum[0]) is {"integer": Integer, "float": Float, "symbol": Symbol}[expected]
        checked += 1
    assert checked > 20000


def test_symbol_constituents_agree_with_the_grammar(grammar: Translator) -> None:
    kind, constituent = grammar.rule("constituent")
    assert kind == "set"
    sample = [chr(c) for c in range(0, 0x300)] + ["\u2028", "\u3000", "😀", "\ufeff"]
    for c in sample:
        try:
            data = read_all("a" + c + "b")
        except ReadError:
            data = []
        one_symbol = data == [Symbol("a" + c + "b")]
        assert one_symbol == (c in constituent), repr(c)  # type: ignore[operator]


def test_whitespace_agrees_with_the_grammar(grammar: Translator) -> None:
    kind, ws = grammar.rule("whitespace")
    for o in range(0, 0x300):
        c = chr(o)
        try:
            data = read_all("(a" + c + "b)")
        except ReadError:
            continue
        separates = len(data) == 1 and getattr(data[0], "items", None) == [Symbol("a"), Symbol("b")]
        assert separates == (c in ws), repr(c)  # type: ignore[operator]
