"""Strict mode's refusal found before the walk (plistspec.lowering.refusal) against the
walk itself: wherever ``first_blocker`` answers, strict mode's walk stops at the same
pointer with the same words (PS426's text), for every strict target; and it answers for
the refused tools of the fixtures' MCP servers that made the strict attempt costly.

Inputs: every real tool of the fixtures (tool JSON, and Elisp as the target's library
sends it), the property-test schemas of test_properties.py, and objects drawn near the
shapes the look knows (scalars, enums, consts, arrays with and without items, unions,
kept references, free-form and closed objects, optional properties made nullable)."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
import test_properties as tp  # noqa: E402
from _lowering_support import fixture_tools  # noqa: E402

from plistspec.emit_json.target import sent_tools  # noqa: E402
from plistspec.lowering.context import Blocked  # noqa: E402
from plistspec.lowering.refusal import first_blocker  # noqa: E402
from plistspec.lowering.rules import rules  # noqa: E402
from plistspec.lowering.schema import lower_schema  # noqa: E402

STRICT = ("openai-strict", "openai-responses", "anthropic-strict")


def _walk(params: dict[str, Any], target: str) -> str | None:
    try:
        lower_schema(params, rules(target), strict=True)
    except Blocked as b:
        return f"{str(b.pointer) or '/'}: {b.why}"
    return None


def _agree(params: Any, target: str) -> bool:
    """The look's answer, when it gives one, is the walk's; True when it answered."""
    if not isinstance(params, dict) or params.get("type") != "object":
        return False
    before = copy.deepcopy(params)
    got = first_blocker(params, rules(target))
    assert params == before  # (the input is only read)
    if got is None:
        return False
    assert f"{got[0] or '/'}: {got[1]}" == _walk(params, target), (target, params)
    return True


@pytest.mark.parametrize("target", STRICT)
def test_every_fixture_tool_agrees_with_the_walk(target) -> None:
    tools = sent_tools([copy.deepcopy(t) for _n, t in fixture_tools()], target)[0]
    answered = sum(_agree(t.get("parameters"), target) for t in tools)
    if target != "anthropic-strict":
        assert answered >= 40  # (it answers for most refused tools, not one or two)


def test_the_refused_mcp_tools_are_found_before_the_walk() -> None:
    tools = {n.split(":")[1]: t for n, t in fixture_tools(elisp=False)}
    r = rules("openai-strict")
    assert first_blocker(tools["calendar.create_event"]["parameters"], r) == (
        "/properties/metadata",
        'a free-form object (additionalProperties: {"type": "string"})',
    )
    assert first_blocker(tools["search_code"]["parameters"], r) == (
        "/properties/tags/items",
        "a schema without a type ({}) has no strict form",
    )
    assert first_blocker(tools["fs.write_file"]["parameters"], r) == (
        "/$defs/Chunk/properties/meta",
        "an object without properties (any keys: strict mode would allow only {})",
    )
    # a tool strict mode takes: no answer, the walk decides
    assert first_blocker(tools["search_tickets"]["parameters"], r) is None


def test_a_target_it_does_not_mirror_gets_no_answer() -> None:
    free = {"type": "object", "properties": {"a": {"type": "object"}}}
    assert first_blocker(free, rules("anthropic-strict")) is None  # (refuses recursion)
    assert first_blocker(free, rules("openai")) is None  # (no strict mode)
    assert first_blocker(free, rules("openai-strict")) == (
        "/properties/a",
        "an object without properties (any keys: strict mode would allow only {})",
    )


_NODES = st.sampled_from(
    [
        {"type": "string"},
        {"type": "string", "description": "A path.", "default": "x", "minLength": 1},
        {"type": ["string", "null"]},
        {"type": "integer", "enum": [1, 2]},
        {"type": "string", "enum": ["a" * 70] * 300},
        {"enum": ["a", "b"]},
        {"enum": ["a", None]},
        {"const": "c"},
        {"const": 1, "description": "one"},
        {"const": {"a": 1}},
        {},
        {"description": "anything"},
        {"description": 3},
        {"default": None},
        {"type": "object"},
        {"type": "object", "description": "free"},
        {"type": "object", "properties": {}},
        {"type": "object", "properties": {}, "additionalProperties": False},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"type": "object", "additionalProperties": True, "properties": {"a": {"type": "string"}}},
        {"type": "object", "patternProperties": {"x": {}}},
        {"type": "array"},
        {"type": ["array", "null"], "description": "list"},
        {"type": "array", "items": {"type": "string"}},
        {"type": "array", "items": {}},
        {"type": "array", "items": {"$ref": "#/$defs/X"}},
        {"type": "array", "prefixItems": [{"type": "string"}]},
        {"$ref": "#/$defs/X"},
        {"$ref": "#/$defs/X", "description": "d"},
        {"$ref": "#/$defs/Missing"},
        {"$ref": "#/definitions/X"},
        {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        {"anyOf": [{"type": "string"}, {}]},
        {"oneOf": [{"const": "a"}, {"const": "b"}]},
        {"oneOf": [{"type": "object"}, {"type": "string"}]},
        {"allOf": [{"type": "string"}]},
        {"type": "strng"},
        {"type": "string", "nullable": True},
        {"type": "object", "properties": {"a": {"type": "string", "required": True}}},
    ]
)


@st.composite
def _objects(draw, depth: int = 0) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(["a", "b", "c~d", "e/f", "g"]), max_size=4, unique=True))
    props: dict[str, Any] = {}
    for n in names:
        if depth < 2 and draw(st.integers(0, 3)) == 0:
            props[n] = draw(_objects(depth + 1))
        else:
            props[n] = copy.deepcopy(draw(_NODES))
    node: dict[str, Any] = {"type": "object", "properties": props}
    if props and draw(st.booleans()):
        node["required"] = draw(st.lists(st.sampled_from(sorted(props)), unique=True))
    if draw(st.integers(0, 3)) == 0:
        node["additionalProperties"] = draw(st.sampled_from([False, True, {}]))
    if depth == 0 and draw(st.booleans()):
        key = draw(st.sampled_from(["$defs", "definitions"]))
        node[key] = {"X": copy.deepcopy(draw(_NODES)), "Y": draw(_objects(2))}
    if depth == 0 and draw(st.booleans()):
        node["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return node


@pytest.mark.parametrize("target", STRICT)
@settings(max_examples=300, deadline=None)
@given(params=_objects())
def test_drawn_objects_agree_with_the_walk(target, params) -> None:
    _agree(params, target)


@pytest.mark.parametrize("target", STRICT)
@settings(max_examples=150, deadline=None)
@given(params=tp.parameters())
def test_property_schemas_agree_with_the_walk(target, params) -> None:
    _agree(params, target)
