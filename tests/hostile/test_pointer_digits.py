"""A JSON pointer's array index is ASCII digits (RFC 6901): ``#/allOf/²`` or ``#/allOf/٣``
(characters Python's ``str.isdigit`` accepts) points to nothing. ``int("²")`` raised, and
from-json and to-json --lower stopped with an internal error (PS903); ``int("٣")`` is 3,
which resolved to an item the reference does not name."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from plistspec.cli import main
from plistspec.core.jsonutil import resolve_pointer


@pytest.mark.parametrize("index", ["²", "٣", "1²"])
def test_a_non_ascii_digit_is_no_index(index: str) -> None:
    root = {"allOf": [{"type": "string"}] * 4}
    assert resolve_pointer(root, f"#/allOf/{index}") == (False, None)
    assert resolve_pointer(root, "#/allOf/3") == (True, {"type": "string"})


@pytest.mark.parametrize("index", ["²", "٣"])
@pytest.mark.parametrize("target", [[], ["-t", "openai"]])
def test_from_json_says_the_reference_points_to_nothing(index: str, target: list[str]) -> None:
    schema = {
        "type": "object",
        "allOf": [{"type": "object"}] * 4,
        "properties": {"a": {"$ref": f"#/allOf/{index}"}},
    }
    tool = {"name": "t", "description": "d", "parameters": schema}
    r = CliRunner().invoke(main, ["from-json", *target, "-"], input=json.dumps(tool))
    assert r.exit_code == 1, r.output
    assert "internal error" not in r.output and "PS903" not in r.output
    assert "points to nothing" in r.output, r.output
