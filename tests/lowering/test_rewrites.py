"""One rewrite at a time: what each target gets for a small schema, with the reported
severity (info = lossless, warning = accepts more or less, error = cannot express)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import violations  # noqa: E402

from plistspec.emit_json.target import to_target_json  # noqa: E402
from plistspec.lowering import TARGETS, lower_tools  # noqa: E402
from plistspec.lowering.grammar import files  # noqa: E402
from plistspec.lowering.rules import grammar_dir, targets  # noqa: E402


def lower_one(prop: dict, target: str, required: bool = True, name: str = "t"):
    params = {"type": "object", "properties": {"p": prop}}
    if required:
        params["required"] = ["p"]
    tool = {
        "type": "function",
        "name": name,
        "description": "d",
        "parameters": params,
        "metadata": {},
    }
    out, diags = lower_tools([tool], target)
    assert not violations(out[0], target) or any(d.is_error for d in diags)
    return out[0], {(d.code, d.severity) for d in diags}


CASES = [
    # prop, target, expected lowered prop (None: not checked), (code, severity)
    (
        {"type": ["string", "null"]},
        "gemini",
        {"type": "string", "nullable": True},
        ("PS414", "info"),
    ),
    (
        {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "gemini",
        {"type": "integer", "nullable": True},
        ("PS414", "info"),
    ),
    (
        {"type": ["string", "integer"]},
        "gemini",
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        ("PS414", "info"),
    ),
    ({"const": "x"}, "gemini", {"enum": ["x"], "type": "string"}, ("PS415", "info")),
    ({"const": "x"}, "openai", {"const": "x"}, None),
    ({"type": "integer", "enum": [1, 2]}, "gemini", None, ("PS416", "warning")),
    (
        {"type": "integer", "enum": [1, 2]},
        "gemini-jsonschema",
        {"type": "integer", "enum": [1, 2]},
        None,
    ),
    ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, "gemini", None, ("PS417", "warning")),
    (
        {"allOf": [{"type": "string"}, {"maxLength": 3}]},
        "gemini",
        {"type": "string", "maxLength": 3},
        ("PS418", "info"),
    ),
    (
        {"type": "string", "pattern": "^a"},
        "ollama",
        {"type": "string", "description": '(pattern: "^a")'},
        ("PS419", "warning"),
    ),
    (
        {"type": "string", "format": "uri"},
        "gemini",
        {"type": "string", "description": '(format: "uri")'},
        ("PS419", "warning"),  # a validator that checks formats would now accept more
    ),
    ({"type": "array"}, "openai", {"type": "array", "items": {}}, ("PS420", "info")),
    ({"type": "array"}, "anthropic", {"type": "array"}, None),
    ({}, "gemini", None, ("PS421", "warning")),
    (
        {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
        "gemini",
        None,
        ("PS422", "warning"),
    ),
    ({"type": "string"}, "openai-strict", None, None),
    (
        {"type": "string", "default": "a"},
        "openai-strict",
        {"type": "string", "description": '(default: "a")'},
        ("PS419", "info"),
    ),
]


@pytest.mark.parametrize("prop,target,expected,code", CASES)
def test_rewrite(prop, target, expected, code) -> None:
    out, codes = lower_one(prop, target)
    if expected is not None:
        assert out["parameters"]["properties"]["p"] == expected
    if code is not None:
        assert code in codes, codes


def test_optional_becomes_required_nullable_under_strict_only() -> None:
    out, codes = lower_one({"type": "string"}, "openai-strict", required=False)
    params = out["parameters"]
    assert params["required"] == ["p"] and params["properties"]["p"]["type"] == ["string", "null"]
    assert params["additionalProperties"] is False and ("PS425", "warning") in codes
    assert out["metadata"]["lowered"]["strict"] is True
    out, _ = lower_one({"type": "string"}, "openai", required=False)
    assert "required" not in out["parameters"]


def test_free_form_object_is_not_strict() -> None:
    prop = {"type": "object", "additionalProperties": {"type": "string"}}
    for target in ("openai-strict", "openai-responses", "anthropic-strict"):
        out, codes = lower_one(prop, target)
        assert out["metadata"]["lowered"]["strict"] is False and ("PS426", "warning") in codes
    chat = to_target_json([lower_one(prop, "openai-strict")[0]], "openai-strict")
    assert "strict" not in chat[0]["function"]
    resp = to_target_json([lower_one(prop, "openai-responses")[0]], "openai-responses")
    assert resp[0]["strict"] is False


def test_names_are_mapped_reversibly() -> None:
    tools = [
        {"type": "function", "name": n, "description": "d", "parameters": None, "metadata": {}}
        for n in ("github.create_issue", "github_create_issue", "x" * 80)
    ]
    out, diags = lower_tools(tools, "openai")
    names = [t["name"] for t in out]
    assert len(set(names)) == 3 and all(len(n) <= 64 for n in names)
    assert names[1] == "github_create_issue" and names[0] != names[1]
    assert out[0]["metadata"]["lowered"]["original_name"] == "github.create_issue"
    assert sum(d.code == "PS423" for d in diags) == 2
    same, _ = lower_tools(tools, "mcp")
    assert same[0]["name"] == "github.create_issue"


def test_root_must_be_an_object() -> None:
    tool = {
        "type": "function",
        "name": "t",
        "description": "d",
        "parameters": {"type": "string"},
        "metadata": {},
    }
    for target in TARGETS:
        _out, diags = lower_tools([tool], target)
        assert any(d.code == "PS428" and d.is_error for d in diags)


def test_root_union_is_flattened_where_refused() -> None:
    params = {
        "type": "object",
        "anyOf": [
            {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
        ],
    }
    tool = {
        "type": "function",
        "name": "t",
        "description": "d",
        "parameters": params,
        "metadata": {},
    }
    out, diags = lower_tools([tool], "anthropic")
    assert set(out[0]["parameters"]["properties"]) == {"a", "b"}
    assert "required" not in out[0]["parameters"] and any(d.code == "PS427" for d in diags)
    kept, _ = lower_tools([tool], "mcp")
    assert "anyOf" in kept[0]["parameters"]


@pytest.mark.slow
def test_deep_schema_has_no_recursion_limit() -> None:
    node: dict = {"type": "string"}
    for _ in range(20_000):
        node = {"type": "object", "properties": {"n": node}, "additionalProperties": False}
    tool = {"type": "function", "name": "t", "description": "d", "parameters": node, "metadata": {}}
    out, diags = lower_tools([tool], "gemini")
    assert not [d for d in diags if d.is_error]
    again, _ = lower_tools(out, "gemini")
    assert len(again) == 1


def test_grammar_files_are_generated_from_the_rules() -> None:
    d = grammar_dir()
    for name, schema in files().items():
        on_disk = json.loads((d / name).read_text(encoding="utf-8"))
        assert on_disk == schema, f"{name} is stale: run python -m plistspec.lowering.grammar"
    assert set(TARGETS) == set(targets())


def test_mcp_output_schema_is_object_rooted_before_2026() -> None:
    tool = {
        "type": "function",
        "name": "x",
        "description": "d",
        "parameters": None,
        "metadata": {"output_schema": {"type": "array", "items": {"type": "string"}}},
    }
    for target, wrapped in (("mcp-2025-06-18", True), ("mcp-2025-11-25", True), ("mcp", False)):
        out, diags = lower_tools([tool], target)
        entry = to_target_json(out, target)[0]
        assert (entry["outputSchema"]["type"] == "object") is wrapped
        assert any(d.code == "PS431" for d in diags) is wrapped


@pytest.mark.parametrize("target", ["gemini", "ollama", "gemini-jsonschema", "openai"])
def test_a_union_member_that_inlines_to_null_is_settled_in_one_lowering(target) -> None:
    """Found by the property test: ``anyOf [{$ref D}, S]`` with D a null schema became
    ``anyOf [{type: null}, S]`` for Gemini, which a second lowering made nullable."""
    params = {
        "type": "object",
        "properties": {"a": {"anyOf": [{"$ref": "#/$defs/D"}, {"type": "string"}]}},
        "$defs": {"D": {"type": ["null", "null"], "description": "Nothing."}},
    }
    out, _ = lower_tools([{"name": "t", "description": "T.", "parameters": params}], target)
    again, _ = lower_tools(out, target)
    assert again == out
    if target == "gemini":
        assert out[0]["parameters"]["properties"]["a"] == {"type": "string", "nullable": True}


@pytest.mark.parametrize("target", TARGETS)
def test_target_json_copies_unless_the_lowered_tools_are_handed_over(target) -> None:
    """By default the envelope shares nothing mutable with the lowered tools (a caller
    may keep and change either); ``owned=True`` (``to-json --lower``: the tools were
    made for it) puts their parameters in as they are, and the JSON is the same."""
    tool = {
        "type": "function",
        "name": "pick",
        "description": "Pick one.",
        "parameters": {
            "type": "object",
            "properties": {"k": {"type": "string", "enum": ["a", "b"]}},
            "required": ["k"],
        },
    }
    out, _ = lower_tools([tool], target)
    copied = to_target_json(out, target)
    handed = to_target_json(out, target, owned=True)
    assert json.dumps(copied) == json.dumps(handed)

    def objects(v, acc):
        if isinstance(v, dict | list):
            acc.add(id(v))
            for x in v.values() if isinstance(v, dict) else v:
                objects(x, acc)
        return acc

    ours = objects(out[0]["parameters"], set())
    assert not ours & objects(copied, set())
    assert ours <= objects(handed, set())
