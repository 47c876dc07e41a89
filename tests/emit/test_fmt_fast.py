"""fmt's fast paths give what the full paths give: the comments of a span with few ``;``
found by walking down to each one equal those found by listing every atom, on the
fixtures, a generated tools file and comment-heavy random layouts of them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import plistspec.emit_elisp.comments as fc
from plistspec.elisp.reader import read_all

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from gen_tools import generate  # noqa: E402


def _texts() -> list[str]:
    out = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "fixtures").rglob("*.el"))]
    out.append(generate(100_000)[0])
    return out


TEXTS = _texts()


def _both(text: str, datum, lo=None, hi=None) -> tuple[list[int], list[int]]:
    few = fc._FEW
    try:
        fc._FEW = 10**9
        fast = fc.comments_in(text, datum, lo, hi)
        fc._FEW = -1
        full = fc.comments_in(text, datum, lo, hi)
    finally:
        fc._FEW = few
    return fast, full


def _datums(text: str):
    try:
        return read_all(text)
    except Exception:  # noqa: BLE001 - broken fixtures have no comments to place
        return None


# syntax-error fixtures have no datums, so no comments to place: left out
READABLE = [i for i, t in enumerate(TEXTS) if _datums(t) is not None]


@pytest.mark.parametrize("i", READABLE)
def test_descent_equals_atom_listing(i: int) -> None:
    text = TEXTS[i]
    datums = _datums(text)
    assert datums is not None
    seen = 0
    for d in datums:
        fast, full = _both(text, d)
        assert fast == full
        seen += len(full)
    fast, full = _both(text, datums, 0, len(text))
    assert fast == full
    assert seen <= len(full)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, len(TEXTS) - 1), st.lists(st.integers(0, 10**7), max_size=12))
def test_descent_equals_atom_listing_with_semicolons_anywhere(i: int, spots) -> None:
    """``;`` put at random places (inside strings, symbols, between forms)."""
    text = TEXTS[i]
    for s in sorted({s % (len(text) + 1) for s in spots}, reverse=True):
        text = text[:s] + ";" + text[s:]
    datums = _datums(text)
    if datums is None:
        return
    for d in datums:
        fast, full = _both(text, d)
        assert fast == full
