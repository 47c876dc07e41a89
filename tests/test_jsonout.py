"""jsonout.dumps writes exactly the bytes of ``json.dumps(v, indent=2, ensure_ascii=False)``
plus a newline (its direct walk replaced the standard library's slower encoder)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plistspec.core.jsonout import dumps, dumps_nested

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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(VALUES, st.sampled_from(["", "  ", "      "]))
def test_the_deep_path_writes_the_same_bytes(v, indent: str) -> None:
    """The explicit-stack writer (for values nested deeper than Python recurses) gives
    exactly the recursive writer's text, nested or not."""
    from plistspec.core.jsonout import _indented, _indented_deep

    assert _indented_deep(v, indent) == _indented(v, indent)


@pytest.mark.slow
def test_values_nested_deeper_than_python_recurses() -> None:
    """Tool JSON lowered as it came may nest as deep as JSON is read (10 000 levels, PS527;
    far deeper than Python recurses): it is copied and printed (the same text as at a
    shallow depth, line for line), never a RecursionError."""
    from plistspec.core.jsoncopy import copy_json
    from plistspec.core.jsontext import MAX_DEPTH, load_json

    # the array, two levels per wrapper (the object and its properties), the innermost object
    wrappers = (MAX_DEPTH - 2) // 2
    deep: dict = {"type": "string"}
    for _ in range(wrappers):
        deep = {"type": "object", "properties": {"p": deep}}
    copied = copy_json(deep)
    assert copied is not deep
    text = dumps([copied])
    back, _ = load_json(text)
    node, depth = back[0], 0
    while node.get("properties"):
        node, depth = node["properties"]["p"], depth + 1
    assert depth == wrappers and node == {"type": "string"}
    assert text.startswith('[\n  {\n    "type": "object",\n    "properties": {\n      "p": {\n')
    assert dumps_nested(copied, "  ").startswith('{\n    "type": "object"')
