"""plistspec.calls.map_back: a call made against a lowered schema, in the original's shape.

Schema-driven: the tests lower real tool schemas with plistspec's own lowering and check
that a call shaped by the lowered schema comes back as the call the original describes.
"""

from __future__ import annotations

import json

from plistspec.calls import map_back, validate
from plistspec.calls.mapback import edits
from plistspec.lowering import lower_tools
from support import ROOT

ORIGINAL = {
    "type": "object",
    "properties": {
        "loc": {"type": "string"},
        "unit": {"type": "string", "enum": ["c", "f"]},
        "note": {"type": ["string", "null"]},
        "opts": {
            "type": "object",
            "properties": {"deep": {"type": "boolean"}, "lvl": {"type": "integer", "enum": [1, 2]}},
        },
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                "required": ["a"],
            },
        },
    },
    "required": ["loc"],
    "additionalProperties": False,
}


def _lowered(schema: dict, target: str) -> dict:
    tools, _ = lower_tools([{"name": "t", "description": "d", "parameters": schema}], target)
    return tools[0]["parameters"]


def test_strict_mode_nulls_go_where_the_original_has_no_null() -> None:
    low = _lowered(ORIGINAL, "openai-responses")
    assert set(low["required"]) == set(ORIGINAL["properties"])  # strict: all required
    call = {
        "loc": "x",
        "unit": None,
        "note": None,
        "opts": {"deep": None, "lvl": 2},
        "items": [{"a": "q", "b": None}],
    }
    assert validate(low, call) == []
    assert validate(ORIGINAL, call) != []
    back = map_back(ORIGINAL, low, call)
    # note accepts null in the original: it stays; the others go
    assert back == {"loc": "x", "note": None, "opts": {"lvl": 2}, "items": [{"a": "q"}]}
    assert validate(ORIGINAL, back) == []
    assert call["unit"] is None  # the input is not changed


def test_edits_say_what_changes() -> None:
    low = _lowered(ORIGINAL, "openai-responses")
    assert edits(ORIGINAL, low, {"loc": "x", "opts": {"deep": None}}) == [
        ("remove", ["opts", "deep"])
    ]
    assert edits(ORIGINAL, low, {"loc": "x"}) == []


def test_an_enum_written_otherwise_comes_back_by_position() -> None:
    o = {
        "type": "object",
        "properties": {"p": {"type": "integer", "enum": [1, 2, 3]}, "c": {"const": True}},
    }
    low = {
        "type": "object",
        "properties": {
            "p": {"type": "string", "enum": ["1", "2", "3"]},
            "c": {"type": "string", "enum": ["true"]},
        },
    }
    assert map_back(o, low, {"p": "2", "c": "true"}) == {"p": 2, "c": True}
    assert map_back(o, low, {"p": 3}) == {"p": 3}


def test_text_asked_for_where_the_original_wants_a_value() -> None:
    o = {"type": "object", "properties": {"v": {"type": ["object", "array"]}}}
    low = {"type": "object", "properties": {"v": {"type": "string"}}}
    assert map_back(o, low, {"v": '{"a": 1}'}) == {"v": {"a": 1}}
    assert map_back(o, low, {"v": "not json"}) == {"v": "not json"}


def test_refs_and_unions_are_followed_on_both_sides() -> None:
    o = {
        "type": "object",
        "properties": {"s": {"anyOf": [{"$ref": "#/$defs/Circle"}, {"type": "null"}]}},
        "$defs": {"Circle": {"type": "object", "properties": {"r": {"type": "number"}}}},
    }
    low = _lowered(o, "gemini")  # $ref inlined, the null member written as nullable
    assert "$defs" not in json.dumps(low)
    circle = low["properties"]["s"]["anyOf"][0]
    circle["properties"]["r"]["nullable"] = True  # as a strict lowering would
    assert map_back(o, low, {"s": {"r": None}}) == {"s": {}}
    assert map_back(o, low, {"s": None}) == {"s": None}


def test_real_tools_lowered_for_strict_mode_map_back_to_valid_calls() -> None:
    """Every optional property of the MCP fixtures' tools, sent as null under strict mode
    (what the model must do), maps back to the call without it."""
    data = json.loads((ROOT / "fixtures" / "json" / "mcp_filesystem_server.json").read_text())
    tools = data.get("result", data)["tools"]
    checked = 0
    for tool in tools:
        o = tool["inputSchema"]
        low = _lowered(o, "openai-responses")
        if low.get("required") == o.get("required"):
            continue
        minimal = {
            k: "x" for k in o.get("required", []) if o["properties"][k].get("type") == "string"
        }
        if len(minimal) != len(o.get("required", [])):
            continue
        strict_call = {**{k: None for k in o["properties"]}, **minimal}
        assert validate(low, strict_call) == [], tool["name"]
        assert map_back(o, low, strict_call) == minimal, tool["name"]
        checked += 1
    assert checked >= 3


def test_emacs_nil_reads_as_null_where_the_original_has_no_room_for_an_empty_object() -> None:
    o = {
        "type": "object",
        "properties": {
            "m": {"type": "object", "properties": {"p": {"type": "integer"}}, "required": ["p"]},
            # an object whose properties are all optional: {} is a valid e (a free-form
            # object would send the tool non-strict, PS426, and nothing would be mapped)
            "e": {"type": "object", "properties": {"q": {"type": "integer"}}},
        },
    }
    low = _lowered(o, "openai-responses")
    assert low["properties"]["m"]["type"] == ["object", "null"]  # strict: m was made nullable
    # Emacs sends nil back as {}: for m it was null (an empty m is not valid), for e it may be {}
    assert map_back(o, low, {"m": {}, "e": {}}, nil=True) == {"e": {}}
