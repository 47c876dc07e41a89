"""Shapes found in real MCP ``tools/list`` answers that the fixtures did not hold, each as
a minimal schema modelled on the real one, lowered for every target: no error, no rule
broken, idempotent (``lower_ok``), and what the target gets is what the input said.

* zod-to-json-schema's named root (``zodToJsonSchema(schema, "Args")``):
  ``{"$ref": "#/definitions/Args", "definitions": {...}, "$schema": ...}``; the
  targets that move ``definitions`` into ``$defs`` left the root's own ``$ref`` pointing
  at nothing, the MCP revisions that inline wrote the root's ``allOf`` into the
  description (an empty root), and strict modes refused it;
* ``"description": null`` on a leaf (servers that serialise an unset description):
  every target refuses a non-string description, and the leaf short cut kept it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import lower_ok  # noqa: E402

from plistspec.fromjson.rawjson import raw_tools  # noqa: E402
from plistspec.lowering import TARGETS, lower_tools  # noqa: E402

ARGS = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "depth": {"type": "integer"}},
    "required": ["path"],
    "additionalProperties": False,
}
NAMED_ROOT = {
    "name": "list_dir",
    "description": "List a directory.",
    "inputSchema": {
        "$ref": "#/definitions/Args",
        "definitions": {"Args": ARGS},
        "$schema": "http://json-schema.org/draft-07/schema#",
    },
}


def _tools(tool: dict) -> list[dict]:
    tools, diags = raw_tools(tool)
    assert not [d for d in diags if d.is_error]
    return tools


def _resolved_root(params: dict) -> dict:
    """The root's object, through a root ``$ref`` where the target kept one."""
    ref = params.get("$ref")
    if ref is None:
        return params
    where, name = ref[2:].split("/")
    return params[where][name]


@pytest.mark.parametrize("target", TARGETS)
def test_a_named_root_lowers_for_every_target(target: str) -> None:
    out, diags = lower_ok(_tools(NAMED_ROOT), target)
    params = out[0]["parameters"]
    assert params["type"] == "object"
    root = _resolved_root(params)
    assert list(root["properties"]) == ["path", "depth"]
    assert root.get("required") in (["path"], ["path", "depth"])  # strict: all listed
    assert not any("points at nothing" in d.message for d in diags)


@pytest.mark.parametrize("target", ["openai-strict", "anthropic-strict"])
def test_a_named_root_is_strict(target: str) -> None:
    out, diags = lower_tools(_tools(NAMED_ROOT), target)
    assert out[0]["metadata"]["lowered"]["strict"] is True, [d.message for d in diags]
    assert "$ref" not in out[0]["parameters"]
    assert out[0]["parameters"]["additionalProperties"] is False


@pytest.mark.parametrize("target", ["mcp-2025-06-18", "mcp-2025-11-25"])
def test_a_named_root_keeps_its_arguments_where_refs_are_inlined(target: str) -> None:
    out, diags = lower_ok(_tools(NAMED_ROOT), target)
    assert out[0]["parameters"]["properties"] == ARGS["properties"]
    assert out[0]["parameters"]["required"] == ["path"]
    assert not any(d.code == "PS419" and "allOf" in d.message for d in diags)


@pytest.mark.parametrize("target", ["gemini-jsonschema", "bedrock"])
def test_definitions_moved_into_defs_take_the_root_ref_along(target: str) -> None:
    out, diags = lower_ok(_tools(NAMED_ROOT), target)
    params = out[0]["parameters"]
    assert "definitions" not in params
    assert params.get("$ref", "#/$defs/Args") == "#/$defs/Args"
    assert any(d.code == "PS412" and "moved into $defs" in d.message for d in diags)


NULL_DESCRIPTION = {
    "name": "search",
    "description": "Search.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "q": {"type": "string", "description": None},
            "tags": {"type": "array", "items": {"type": "string", "description": None}},
        },
        "required": ["q"],
    },
}


@pytest.mark.parametrize("target", TARGETS)
def test_a_null_description_is_removed_and_said(target: str) -> None:
    out, diags = lower_ok(_tools(NULL_DESCRIPTION), target)
    props = out[0]["parameters"]["properties"]
    assert "description" not in props["q"]
    assert "description" not in props["tags"]["items"]
    removed = [d for d in diags if d.code == "PS429" and "not a string" in d.message]
    assert len(removed) == 2, [d.message for d in diags]
