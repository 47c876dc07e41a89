"""fmt's cheap proof (:func:`plistspec.fmt.proof.same_call`) never accepts a rewritten
form that the full proof (read the new text back, lower it again, compare what is sent)
would reject: on every fixture, a generated tools file and random re-layouts of them
(whitespace and comments between tokens), each form the cheap proof accepts is checked
the full way too and must get the same answer; and it reads back as the same call."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import plistspec.fmt.rewrite as fmt
import plistspec.fmt.verify as fmt_verify
from plistspec.elisp.reader import read_all
from plistspec.elisp.scanner import TOK_OTHER, TOKENS
from plistspec.fmt.proof import same_call, same_tokens, tokens

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from gen_tools import generate  # noqa: E402


def _texts() -> list[str]:
    out = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "fixtures").rglob("*.el"))]
    out.append(generate(100_000)[0])
    return out


TEXTS = _texts()


def _slots(datum) -> tuple:
    items = datum.items
    return items[0], {items[k].name: items[k + 1] for k in range(1, len(items) - 1, 2)}


def _format_both_ways(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """Formats ``text``; each form the cheap proof accepts is also verified the full way
    (asserting the same result). Returns (forms proven cheaply, forms read back)."""
    full_verify = fmt_verify.verify
    counts = [0, 0]

    def verify(p, back, text_, path, proven=False):
        got = full_verify(p, back, text_, path, proven)
        if not proven:
            counts[1] += 1
            return got
        counts[0] += 1
        (full_back,) = fmt_verify.read_back([p.new])
        want = full_verify(p, full_back, text_, path)
        assert got[0] == want[0], (text_[p.form.start : p.form.end], p.new)
        assert str(got[1]) == str(want[1])
        assert full_back is not None
        # the layout only moves blanks: the same tokens, spelt the same, same comments
        assert same_tokens(text_[p.form.start : p.form.end], p.new)
        # and the new text reads as the same call: same head, same value for every key
        (new_datum,) = read_all(p.new)
        assert _slots(new_datum) == _slots(p.datum)
        return got

    monkeypatch.setattr(fmt, "verify", verify)  # the name rewrites calls
    fmt.format_text(text)
    return counts[0], counts[1]


@pytest.mark.parametrize("i", range(len(TEXTS)))
def test_cheap_proof_agrees_with_full_path(i: int, monkeypatch: pytest.MonkeyPatch) -> None:
    _format_both_ways(TEXTS[i], monkeypatch)


def test_cheap_proof_takes_most_generated_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    cheap, full = _format_both_ways(TEXTS[-1], monkeypatch)
    assert cheap > 0 and cheap > 5 * full, (cheap, full)


def test_cheap_proof_with_comments_keeps_them_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Comments before keywords: the forms are laid out, proven cheaply, and every
    comment of the file is still there, in the same order, spelt the same."""
    from plistspec.fmt.proof import comment_lines

    text = _relayout(TEXTS[-1][: TEXTS[-1].find("\n(", 20_000) + 1], random.Random(0))
    cheap, _ = _format_both_ways(text, monkeypatch)
    assert cheap > 0
    new, _ = fmt.format_text(text)
    assert new != text and comment_lines(new) == comment_lines(text)
    assert len(comment_lines(text)) > 10


_BLANKS = re.compile(r"[\x00-\x20\xa0]*+(?:;[^\n]*+[\x00-\x20\xa0]*+)*+")
_BLANK_SEPS = [" ", "\n", "\n\t  ", "  ", "\n\n"]
_COMMENT_SEPS = ["\n; note\n", "\n  ;; a comment ;; twice\n  ", " ; after code\n"]


def _relayout(text: str, rnd: random.Random) -> str:
    """``text`` with every gap between tokens replaced by random blanks, and comments
    before some keywords (where fmt has a place for them)."""
    out = []
    for m in iter(TOKENS.scanner(text).match, None):
        if m.lastindex == TOK_OTHER and not m[TOK_OTHER]:
            break
        pre = _BLANKS.match(text, m.start()).end()
        tok = text[pre : m.end()]
        comment = tok.startswith(":") and rnd.random() < 0.2
        out.append(rnd.choice(_COMMENT_SEPS if comment else _BLANK_SEPS))
        out.append(tok)
    return "".join(out)


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2 * len(TEXTS) - 1), st.randoms(use_true_random=False))
def test_cheap_proof_on_random_layouts(i: int, rnd: random.Random) -> None:
    text = TEXTS[min(i, len(TEXTS) - 1)]  # the generated file (many forms) half the time
    if len(text) > 20_000:
        text = text[: text.find("\n(", 20_000) + 1] or text
    with pytest.MonkeyPatch.context() as mp:
        _format_both_ways(_relayout(text, rnd), mp)


def test_proof_refuses_changed_values() -> None:
    old = '(gptel-make-tool :name "a" :description "line\none")'
    assert same_call(old, '(gptel-make-tool\n :name "a"\n :description "line\\none")') is True
    assert same_call(old, '(gptel-make-tool :description "line\\none" :name "a")') is True
    assert same_call(old, '(gptel-make-tool :name "b" :description "line\\none")') is False
    assert same_call(old, '(gptel-make-tool :name "a" :description "line one")') is False
    assert same_call(old, '(llm-make-tool :name "a" :description "line\\none")') is False
    # a repeated key: the first one counts, so order matters and it is not proven here
    dup = '(gptel-make-tool :name "a" :name "b")'
    assert same_call(dup, '(gptel-make-tool :name "b" :name "a")') is False
    # respellings the printer makes: a continuation dropped, a newline written as \n, and
    # an escaped backslash before a raw newline kept apart from a continuation
    cont = '(gptel-make-tool :name "a" :description "x \\\ny\\\\\nz")'
    assert same_call(cont, '(gptel-make-tool :name "a" :description "x y\\\\\\nz")') is True
    assert same_call(cont, '(gptel-make-tool :name "a" :description "x y\\\\z")') is False
    assert same_call(cont, '(gptel-make-tool :name "a" :description "x \\ny\\\\\\nz")') is False
    # layout-dependent syntax is never proven cheaply
    assert same_call("(f :a #@2 xy)", "(f :a #@2 xy)") is False
    assert same_call(old, old.replace(":name", ";; c\n:name")) is True


def _same_call_read(old: str, new: str) -> bool:
    """What Emacs would see: the same datum, or the same head and, with each key once,
    the same value for every key."""
    a, b = read_all(old), read_all(new)
    if a == b:
        return True
    if len(a) != 1 or len(b) != 1:
        return False
    ia, ib = a[0].items, b[0].items
    if len(ia) % 2 == 0 or len(ib) % 2 == 0:
        return False
    ka, kb = [d.name for d in ia[1::2]], [d.name for d in ib[1::2]]
    if len(set(ka)) != len(ka) or len(set(kb)) != len(kb):
        return False
    return _slots(a[0]) == _slots(b[0])


def _mutate(toks: list[str], rnd: random.Random) -> list[str]:
    toks = list(toks)
    k = rnd.randrange(len(toks))
    how = rnd.randrange(5)
    if how == 0:
        del toks[k]
    elif how == 1:  # swap two tokens (slots, keys, values)
        j = rnd.randrange(len(toks))
        toks[k], toks[j] = toks[j], toks[k]
    elif how == 2 and toks[k].startswith('"') and len(toks[k]) > 2:  # change a character
        toks[k] = toks[k][:1] + "\\x41\\ " + toks[k][2:]
    elif how == 3 and toks[k].startswith('"'):  # respell: same value
        toks[k] = toks[k].replace("\\n", "\n").replace(" ", "\\ ").replace("a", "\\a"[:1] + "a")
    else:  # repeat a token
        toks.insert(k, toks[k])
    return toks


def _form_tokens(text: str) -> list[list[str]]:
    """The raw tokens of each top-level tool call of ``text``."""
    out: list[list[str]] = []
    cur: list[str] = []
    depth = 0
    for m in iter(TOKENS.scanner(text).match, None):
        if m.lastindex == TOK_OTHER and not m[TOK_OTHER]:
            break
        tok = text[_BLANKS.match(text, m.start()).end() : m.end()]
        if tok in ("(", "["):
            depth += 1
        elif tok in (")", "]"):
            depth -= 1
        cur.append(tok)
        if depth == 0:
            if len(cur) > 2 and cur[1] in ("gptel-make-tool", "llm-make-tool"):
                out.append(cur)
            cur = []
    return out


def _reads(toks: list[str]) -> bool:
    try:
        read_all(" ".join(toks))
    except Exception:  # noqa: BLE001 - a broken fixture's form: fmt never gets to it
        return False
    return True


# the forms fmt can meet: those that read (fixtures/broken/ has some that do not)
FORMS = [f for t in TEXTS for f in _form_tokens(t) if _reads(f)]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, len(FORMS) - 1), st.randoms(use_true_random=False))
def test_cheap_proof_is_sound_on_mutated_forms(i: int, rnd: random.Random) -> None:
    toks = FORMS[i]
    old = " ".join(toks)
    for _ in range(rnd.randrange(1, 3)):
        toks = _mutate(toks, rnd)
    new = "\n ".join(toks)
    if same_call(old, new):
        assert _same_call_read(old, new), (old, new)


@pytest.mark.parametrize("i", range(len(TEXTS)))
def test_token_texts_are_the_scanners(i: int) -> None:
    """The proof's one-regex split gives exactly the reader's tokens."""
    text = TEXTS[i]
    want = []
    for m in iter(TOKENS.scanner(text).match, None):
        want.append(text[_BLANKS.match(text, m.start()).end() : m.end()])
        if m.lastindex == TOK_OTHER and not m[TOK_OTHER]:
            break
    assert tokens(text) == want
