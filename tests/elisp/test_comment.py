"""comment_text: names and messages written into comments stay on one harmless line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plistspec.elisp.comment import comment_text


@pytest.mark.parametrize(
    "raw, want",
    [
        ("tools.el", "tools.el"),
        ('x\n(princ "INJECTED")\n.el', 'x\\n(princ "INJECTED")\\n.el'),
        ("a\rb\tc\x1b[31m", "a\\rb\\tc\\x1b[31m"),
        ("x -*- lexical-binding: nil -*-", "x - * - lexical-binding: nil - * -"),
        ("Local Variables:", "Local_Variables:"),
        ("\u2028", "\\u2028"),
        ("admin\u202e\u2066 // x", "admin\\u202e\\u2066 // x"),
    ],
)
def test_examples(raw: str, want: str) -> None:
    assert comment_text(raw) == want


@pytest.mark.slow
@given(st.text())
@settings(max_examples=300)
def test_one_line_no_file_variables(raw: str) -> None:
    out = comment_text(raw)
    assert not any(c in out for c in "\n\r\x0b\x0c\x85\u2028\u2029")
    assert not any(c in out for c in "\u061c\u200e\u200f\u202a\u202e\u2066\u2069")
    assert "-*-" not in out and "local variables:" not in out.lower()
