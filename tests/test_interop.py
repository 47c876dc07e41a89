"""interop: our datums convert to exactly what sexpdata reads where sexpdata reads right."""

from __future__ import annotations

import pytest

from plistspec.elisp.reader import read_all
from plistspec.interop import to_sexpdata

sexpdata = pytest.importorskip("sexpdata")


@pytest.mark.parametrize(
    "text",
    [
        '(:name "a" :type string :optional t)',
        "(a (b [c d] 1 2.5) 'e)",
        "(a . b)",
        '(:enum ["x" "y"] :n -3)',
        "nil",
    ],
)
def test_agrees_with_sexpdata_on_what_sexpdata_reads_right(text):
    (d,) = read_all(text)
    assert to_sexpdata(d) == sexpdata.loads(text)


@pytest.mark.slow
def test_deep_nesting_converts_without_recursion():
    depth = 100_000
    (d,) = read_all("(" * depth + ")" * depth)
    v = to_sexpdata(d)
    n = 0
    while v:
        (v,) = v
        n += 1
    assert n == depth - 1  # the innermost () is nil, i.e. []
