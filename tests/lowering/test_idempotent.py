"""Lowering twice changes nothing: for members that only become ``null`` once lowered,
and for every real tool of fixtures/ on every target.

For a target that writes OpenAPI's ``nullable`` (Gemini), an ``anyOf`` member that is
``{"allOf": [{"type": "null"}]}``, a ``$ref`` to one, or a ``{"type": "null", "not": …}``
(``not`` moves into the description) is a null member only after its own lowering: the
walk settles the union once its members are lowered, so a second lowering finds nothing
left to do (it used to turn ``anyOf [null, S]`` into ``S`` + ``nullable`` the second time).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import TARGETS, fixture_tools  # noqa: E402

from plistspec.emit_json.target import sent_tools, to_target_json  # noqa: E402
from plistspec.fromjson.rawjson import raw_tools  # noqa: E402
from plistspec.lowering import lower_tools  # noqa: E402

NULL = {"type": "null"}
CASES = {
    "allOf-null": {"anyOf": [{"allOf": [NULL]}, {"type": "string"}]},
    "allOf-null-annotated": {
        "anyOf": [{"allOf": [NULL, {"description": "x"}]}, {"type": "string"}]
    },
    "oneOf-allOf-null-list": {"oneOf": [{"allOf": [{"type": ["null", "null"]}]}]},
    "ref-to-allOf-null": {"anyOf": [{"$ref": "#/$defs/N"}, {"type": "string"}]},
    "null-with-not": {"anyOf": [{"not": {"type": "string"}, "type": "null"}, {"type": "string"}]},
    "nested-anyOf-null": {"anyOf": [{"anyOf": [NULL]}, {"type": "string"}]},
    "type-list-null-null": {"anyOf": [{"type": ["null", "null"]}, {"type": "string"}]},
    "object-member": {
        "anyOf": [
            {"allOf": [NULL]},
            {"type": "object", "properties": {"k": {"allOf": [NULL]}}, "required": ["k"]},
        ]
    },
}


def _tool(schema: dict) -> dict:
    params = {"type": "object", "properties": {"a": schema}, "$defs": {"N": {"allOf": [NULL]}}}
    return {"type": "function", "name": "t", "description": "d", "parameters": params}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_lowering_twice_changes_nothing(case: str, target: str) -> None:
    out, diags = lower_tools([_tool(CASES[case])], target)
    if any(d.is_error for d in diags):
        pytest.skip(f"{target} refuses {case}: " + "; ".join(d.message for d in diags))
    again, _ = lower_tools(out, target)
    assert again == out


def test_gemini_settles_a_member_that_becomes_null_in_one_lowering() -> None:
    out, diags = lower_tools([_tool(CASES["allOf-null"])], "gemini")
    assert out[0]["parameters"]["properties"]["a"] == {"type": "string", "nullable": True}
    assert any(d.code == "PS414" and "nullable" in d.message for d in diags)


def _envelope(j: Any) -> str:
    """The target's JSON, with llm's ``function_declarations`` wrapper read as gptel's
    (the same declarations: read back from JSON, a tool has no dialect to choose it)."""
    return json.dumps(j).replace('"function_declarations"', '"functionDeclarations"')


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
def test_every_fixture_tool_lowers_to_a_fixed_point(target: str) -> None:
    """lower(lower(x)) == lower(x) for every real tool of fixtures/ (MCP servers, provider
    JSON, the Elisp fixtures and corpus, as read and as gptel/llm send the target), in the
    IR and through the target's own JSON read back (what ``to-json -t T --lower`` does
    with its own output). Found Gemini's ``parameters: null`` (gptel's, kept) turning
    into no field on the second pass."""
    tools = [copy.deepcopy(t) for _, t in fixture_tools()]
    sent, _ = sent_tools(copy.deepcopy(tools), target)
    checked = 0
    for tool in tools + sent:
        out, diags = lower_tools([copy.deepcopy(tool)], target)
        if any(d.is_error for d in diags):
            continue
        checked += 1
        name = tool.get("name")
        again, _ = lower_tools(copy.deepcopy(out), target)
        assert again == out, (target, name)
        first = to_target_json(out, target)
        back, _ = raw_tools(copy.deepcopy(first))
        second = to_target_json(lower_tools(back, target)[0], target)
        assert _envelope(second) == _envelope(first), (target, name)
    assert checked > len(tools)
