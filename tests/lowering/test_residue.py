"""The lowering residue the hidden checks of issue 27 found, each held on every target.

* Gemini's ``parameters``: ``properties``/``required`` (and the other object keywords)
  only on a node typed ``object`` ("required only allowed on OBJECT"): beside an
  ``anyOf`` they go into its object members.
* Gemini, both fields: a tool without arguments is sent without ``parameters`` /
  ``parametersJsonSchema`` (never ``null``: for ``parametersJsonSchema`` that is the
  schema ``null``); google-genai's ``FunctionDeclaration`` reads each declaration.
* ``"type": "double"``, ``"int"``, ``"long"``, ``"bool"``... (real MCP servers publish
  them; every provider answers 400): read as the JSON type they name, with a warning.
* Strict mode (OpenAI): a ``$ref`` outside ``$defs`` is never sent strict: draft-07
  ``definitions`` move into ``$defs``, any other local reference is inlined, a remote one
  is loosened (never fetched) and the tool sent non-strict, with a diagnostic each.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import TARGETS, violations  # noqa: E402

import plistspec  # noqa: E402
from plistspec.emit_json.target import sent_tools, to_target_json  # noqa: E402
from plistspec.lowering import lower_tools  # noqa: E402
from plistspec.lowering.validate import schema_violations  # noqa: E402


def _tool(params: dict[str, Any], name: str = "t") -> dict[str, Any]:
    return {"type": "function", "name": name, "description": "d", "parameters": params}


def _nodes(schema: Any, at: str = ""):
    """Every schema node of a lowered schema, with its pointer."""
    if isinstance(schema, dict):
        yield at, schema
        for k, v in schema.items():
            if k in ("properties", "$defs", "definitions") and isinstance(v, dict):
                for n, s in v.items():
                    yield from _nodes(s, f"{at}/{k}/{n}")
            elif k in ("items", "not", "additionalProperties") and isinstance(v, dict):
                yield from _nodes(v, f"{at}/{k}")
            elif k in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(v, list):
                for i, s in enumerate(v):
                    yield from _nodes(s, f"{at}/{k}/{i}")


# -- 1. Gemini: object keywords only on objects ------------------------------------

OBJECT_BESIDE_ANYOF = {
    # the type moved into the members, required: [] left beside anyOf (the hidden check)
    "type-into-members": {
        "type": "object",
        "anyOf": [{"required": ["a"]}, {"required": ["b"]}],
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "required": [],
    },
    "untyped-union": {
        "anyOf": [
            {"type": "object", "properties": {"x": {"type": "string"}}},
            {"type": "integer"},
        ],
        "required": ["x"],
    },
    "typed-object-beside-scalars": {
        "type": "object",
        "anyOf": [{"type": "string"}, {"type": "integer"}],
        "properties": {},
        "required": [],
    },
    "type-list-with-required": {"type": ["string", "integer"], "required": []},
    "nullable-object-union": {
        "type": ["object", "string", "null"],
        "properties": {"x": {"type": "string"}},
        "required": [],
        "minProperties": 1,
    },
    "ref-member": {
        "anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}],
        "properties": {"k": {"type": "string"}},
        "required": ["k"],
    },
}


@pytest.mark.parametrize("case", sorted(OBJECT_BESIDE_ANYOF))
def test_gemini_object_keywords_only_on_object_nodes(case: str) -> None:
    params = {
        "type": "object",
        "properties": {"a": OBJECT_BESIDE_ANYOF[case]},
        "$defs": {"A": {"type": "object", "properties": {"k": {"type": "string"}}}},
    }
    out, diags = lower_tools([_tool(params)], "gemini")
    assert not [d.message for d in diags if d.is_error]
    lowered = out[0]["parameters"]
    for at, node in _nodes(lowered):
        if node.get("type") != "object":
            held = {"properties", "required", "minProperties", "maxProperties"} & set(node)
            assert not held, (at, node)
    assert not violations(out[0], "gemini")
    assert any(d.code in ("PS436", "PS421", "PS414") for d in diags)


def test_gemini_object_keywords_go_into_the_object_members_exactly() -> None:
    out, diags = lower_tools(
        [_tool({"type": "object", "properties": {"a": OBJECT_BESIDE_ANYOF["type-into-members"]}})],
        "gemini",
    )
    a = out[0]["parameters"]["properties"]["a"]
    assert set(a) == {"anyOf"}
    for member, name in zip(a["anyOf"], ("a", "b"), strict=True):
        assert member["type"] == "object"
        assert member["required"] == [name]
        assert set(member["properties"]) == {"a", "b"}
    assert any(d.code == "PS436" and not d.is_error and "lossless" in d.message for d in diags)


def test_the_rule_checker_refuses_object_keywords_beside_anyof() -> None:
    bad = {
        "type": "object",
        "properties": {"a": {"anyOf": [{"type": "string"}], "required": []}},
    }
    found = schema_violations(bad, "gemini")
    assert any("required" in p for p, _ in found), found


# -- 2. Gemini: a tool without arguments ---------------------------------------------


def _zero_arg_tools() -> list[dict[str, Any]]:
    text = '(gptel-make-tool :name "now" :description "The time." :function #\'ignore)'
    tools, _ = plistspec.read_tools(text, "now.el")
    return list(tools)


@pytest.mark.parametrize("target", ["gemini", "gemini-jsonschema"])
def test_gemini_zero_argument_tool_has_no_null_parameters(target: str) -> None:
    sent, _ = sent_tools(copy.deepcopy(_zero_arg_tools()), target)
    assert sent[0]["metadata"].get("sent_null_parameters")  # gptel's null, the input
    out, diags = lower_tools(sent, target)
    decl = to_target_json(out, target)[0]["functionDeclarations"][0]
    assert "parameters" not in decl and "parametersJsonSchema" not in decl, decl
    assert any(d.code == "PS435" and "null" in d.message for d in diags)
    types = pytest.importorskip(
        "google.genai.types", reason="google-genai is not installed (pip install google-genai)"
    )
    model = types.FunctionDeclaration.model_validate(decl)
    assert model.parameters is None and model.parameters_json_schema is None


# -- 3. type names that are no JSON type ----------------------------------------------

ALIASES = {
    "double": "number",
    "float": "number",
    "int": "integer",
    "integer64": "integer",
    "long": "integer",
    "bool": "boolean",
    "Double": "number",
    "INT": "integer",
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(ALIASES))
def test_non_json_type_names_are_read_as_their_json_type(target: str, name: str) -> None:
    params = {
        "type": "object",
        "properties": {
            "a": {"type": name, "description": "A value."},
            "b": {"type": "array", "items": {"type": name}},
        },
        "required": ["a"],
    }
    out, diags = lower_tools([_tool(params)], target)
    assert not [d.message for d in diags if d.is_error]
    assert not violations(out[0], target), violations(out[0], target)
    want = ALIASES[name]
    flat = str(out[0]["parameters"])
    assert f"'{want}'" in flat and f"'{name}'" not in flat
    warned = [d for d in diags if d.code == "PS434"]
    assert warned and all(d.severity == "warning" for d in warned)
    assert any(repr(name).replace("'", '"') in d.message for d in warned)


def test_a_type_list_with_an_alias_keeps_its_other_types() -> None:
    params = {"type": "object", "properties": {"a": {"type": ["int", "null"]}}}
    out, _ = lower_tools([_tool(params)], "openai")
    assert out[0]["parameters"]["properties"]["a"] == {"type": ["integer", "null"]}


# -- 5. strict mode: references into $defs only ---------------------------------------

REFS = {
    "definitions": {
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/X"}},
        "required": ["a"],
        "definitions": {"X": {"type": "string"}},
    },
    "properties": {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"$ref": "#/properties/a"}},
        "required": ["a", "b"],
    },
    "nested-definitions": {
        "type": "object",
        "properties": {"a": {"type": "object", "properties": {"n": {"$ref": "#/definitions/N"}}}},
        "definitions": {"N": {"type": "integer"}},
    },
}


def _refs(schema: Any) -> list[str]:
    return [n["$ref"] for _, n in _nodes(schema) if isinstance(n.get("$ref"), str)]


@pytest.mark.parametrize("target", ["openai-strict", "openai-responses"])
@pytest.mark.parametrize("case", sorted(REFS))
def test_strict_references_point_into_defs_only(target: str, case: str) -> None:
    out, diags = lower_tools([_tool(REFS[case])], target)
    assert not [d.message for d in diags if d.is_error]
    assert out[0]["metadata"]["lowered"]["strict"], [d.message for d in diags]
    params = out[0]["parameters"]
    assert all(r == "#" or r.startswith("#/$defs/") for r in _refs(params)), _refs(params)
    assert "definitions" not in params
    assert not violations(out[0], target)


def test_strict_inlines_a_reference_into_properties() -> None:
    out, diags = lower_tools([_tool(REFS["properties"])], "openai-strict")
    assert out[0]["parameters"]["properties"]["b"] == {"type": "string"}
    assert any(d.code == "PS412" and "#/properties/a" in d.message for d in diags)


@pytest.mark.parametrize("target", ["openai-strict", "openai-responses", "anthropic-strict"])
def test_a_remote_reference_is_sent_non_strict_and_loosened(target: str) -> None:
    params = {
        "type": "object",
        "properties": {"a": {"$ref": "https://example.com/a.json", "description": "A."}},
        "required": ["a"],
    }
    out, diags = lower_tools([_tool(params)], target)
    assert not [d.message for d in diags if d.is_error]
    assert out[0]["metadata"]["lowered"]["strict"] is False
    assert not _refs(out[0]["parameters"])
    assert any(d.code == "PS426" for d in diags)
    assert any(d.code == "PS413" and d.severity == "warning" for d in diags)
    entry = to_target_json(out, target)[0]
    assert (entry.get("function") or entry).get("strict") in (None, False)


def test_the_checker_refuses_a_strict_reference_outside_defs() -> None:
    for ref in ("#/properties/a", "#/definitions/X"):
        schema = {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"$ref": ref}},
            "required": ["a", "b"],
            "additionalProperties": False,
            "definitions": {"X": {"type": "string"}},
        }
        found = schema_violations(schema, "openai-strict", strict=True)
        assert any("definitions only" in m for _, m in found), (ref, found)


def test_moving_definitions_never_changes_the_input() -> None:
    """``definitions`` moved into ``$defs`` rewrites references in new containers only
    (the move used to rewrite those of the input's own ``$defs`` in place)."""
    params = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/definitions/B"}},
        "required": ["a", "b"],
        "$defs": {"A": {"type": "array", "items": {"$ref": "#/definitions/B"}}},
        "definitions": {"B": {"type": "string"}},
    }
    before = copy.deepcopy(params)
    out, diags = lower_tools([_tool(params)], "openai-strict")
    assert params == before
    assert out[0]["metadata"]["lowered"]["strict"]
    assert all(r.startswith("#/$defs/") for r in _refs(out[0]["parameters"]))
    assert set(out[0]["parameters"]["$defs"]) == {"A", "B"}
