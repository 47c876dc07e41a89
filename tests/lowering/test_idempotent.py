"""Lowering twice changes nothing, for members that only become ``null`` once lowered.

For a target that writes OpenAPI's ``nullable`` (Gemini), an ``anyOf`` member that is
``{"allOf": [{"type": "null"}]}``, a ``$ref`` to one, or a ``{"type": "null", "not": …}``
(``not`` moves into the description) is a null member only after its own lowering: the
walk settles the union once its members are lowered, so a second lowering finds nothing
left to do (it used to turn ``anyOf [null, S]`` into ``S`` + ``nullable`` the second time).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import TARGETS  # noqa: E402

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
