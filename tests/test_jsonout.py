"""jsonout.dumps writes exactly the bytes of ``json.dumps(v, indent=2, ensure_ascii=False)``
plus a newline (its direct walk replaced the standard library's slower encoder)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from plistspec.jsonout import dumps, dumps_nested

KEYS = st.one_of(st.text(max_size=8), st.integers(), st.booleans(), st.none(), st.floats())
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
VALUES = st.recursive(
    SCALARS,
    lambda kids: st.one_of(st.lists(kids, max_size=4), st.dictionaries(KEYS, kids, max_size=4)),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_same_bytes_as_json_dumps(v) -> None:
    try:
        expected = json.dumps(v, indent=2, ensure_ascii=False) + "\n"
    except (TypeError, ValueError):  # e.g. keys json.dumps refuses: nothing to compare
        return
    assert dumps(v) == expected


def test_falls_back_for_what_it_does_not_know() -> None:
    from collections import OrderedDict

    v = [OrderedDict(a=1), ("t", 2)]
    assert dumps(v) == json.dumps(v, indent=2, ensure_ascii=False) + "\n"


@settings(max_examples=200, deadline=None)
@given(VALUES, st.sampled_from(["", "  ", "    "]))
def test_nested_is_dumps_indented(v, indent: str) -> None:
    try:
        text = dumps(v)
    except (TypeError, ValueError):
        return
    assert dumps_nested(v, indent) == text[:-1].replace("\n", "\n" + indent)


def test_nested_falls_back_too() -> None:
    from collections import OrderedDict

    v = [OrderedDict(a=[1, False]), ("t", None)]
    assert dumps_nested(v, "  ") == dumps(v)[:-1].replace("\n", "\n  ")
    assert "\n        1,\n" in dumps_nested(v, "  ")
