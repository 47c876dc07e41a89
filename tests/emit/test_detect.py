"""from_json: format recognition, conversion to the IR, $ref inlining, and what is dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plistspec.fromjson.detect import detect_format, from_json

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = ROOT / "fixtures" / "reference" / "expected"

JSON = ROOT / "fixtures" / "json"


def _load(name: str):
    return json.loads((JSON / name).read_text(encoding="utf-8"))


def _codes(diags):
    return [d.code for d in diags]


@pytest.mark.parametrize(
    "name, fmt, count",
    [
        ("openai_chat.json", "openai", 2),
        ("openai_responses.json", "openai-responses", 1),
        ("anthropic.json", "anthropic", 1),
        ("gemini_camel.json", "gemini", 2),
        ("gemini_snake_jsonschema.json", "gemini", 1),
        ("bedrock.json", "bedrock", 1),
        ("mcp_tools_list.json", "mcp", 2),
        ("mcp_jsonrpc.json", "mcp", 1),
    ],
)
def test_fixture_formats(name: str, fmt: str, count: int) -> None:
    value = _load(name)
    assert detect_format(value) == fmt
    tools, diags = from_json(value)
    assert len(tools) == count
    for t in tools:
        assert t["type"] == "function"
        assert t["parameters"]["type"] == "object"
        assert isinstance(t["parameters"]["properties"], dict)


@pytest.mark.parametrize("path", sorted(EXPECTED.glob("*.json")), ids=lambda p: p.name)
def test_expected_files_are_recognised(path: Path) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    tools, diags = from_json(value)
    assert tools and not any(d.is_error for d in diags)
    backend = path.name.split(".")[1].removeprefix("llm-")
    fmt = {"ollama": "openai", "vertex": "gemini"}.get(backend, backend)
    assert detect_format(value) == fmt


def test_same_tool_from_every_format_gives_the_same_ir() -> None:
    seen = []
    for path in sorted(EXPECTED.glob("record_summary.*.json")):
        tools, _ = from_json(json.loads(path.read_text()))
        seen.append(json.dumps(tools[0]["parameters"], sort_keys=True))
    assert len(seen) > 5 and len(set(seen)) == 1


def test_gemini_types_are_lower_cased_and_nullable_kept() -> None:
    tools, diags = from_json(_load("gemini_camel.json"))
    p = tools[0]["parameters"]["properties"]
    assert p["query"]["type"] == "string"
    assert p["radius_m"] == {"type": "number", "nullable": True}
    assert p["kinds"]["items"]["type"] == "string"
    assert p["center"]["properties"]["lat"]["type"] == "number"
    # a declaration without parameters is a zero-arg tool
    assert tools[1]["parameters"] == {"type": "object", "properties": {}}
    # enum values are data, never lower-cased
    tools, _ = from_json(
        {
            "name": "f",
            "parameters": {
                "type": "OBJECT",
                "properties": {"x": {"type": "STRING", "enum": ["STRING"]}},
            },
        }
    )
    assert tools[0]["parameters"]["properties"]["x"] == {"type": "string", "enum": ["STRING"]}


def test_ref_inlined_siblings_win_and_unused_defs_reported() -> None:
    tools, diags = from_json(_load("anthropic.json"))
    props = tools[0]["parameters"]["properties"]
    when = props["when"]
    assert "$ref" not in json.dumps(props)
    assert when["description"] == "When it happens"
    assert when["properties"]["start"]["format"] == "date-time"
    assert props["attendees"]["items"]["properties"]["email"] == {"type": "string"}
    msgs = " ".join(d.message for d in diags)
    assert "$schema" in msgs and "cache_control" in msgs
    assert "PS505" in _codes(diags) and "PS503" in _codes(diags)


def test_sibling_keys_replace_target_keys_in_place() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"description": "mine", "$ref": "#/$defs/A", "type": "integer"}},
        "$defs": {"A": {"type": "string", "description": "theirs", "minLength": 1}},
    }
    tools, _ = from_json({"name": "t", "description": "d", "input_schema": schema})
    a = tools[0]["parameters"]["properties"]["a"]
    assert a == {"description": "mine", "minLength": 1, "type": "integer"}
    assert list(a) == ["description", "minLength", "type"]


def test_recursive_ref_is_an_error_naming_the_cycle() -> None:
    tools, diags = from_json(_load("mcp_jsonrpc.json"))
    assert [t["name"] for t in tools] == ["echo"]
    err = [d for d in diags if d.code == "PS510"]
    assert (
        len(err) == 1
        and "#/$defs/Node → #/$defs/Node" in err[0].message
        and "tree" in err[0].message
    )


def test_mutual_recursion_and_missing_ref() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "m": {"$ref": "#/$defs/Missing"}},
        "$defs": {
            "A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"items": {"$ref": "#/$defs/A"}},
        },
    }
    tools, diags = from_json({"name": "t", "description": "d", "inputSchema": schema})
    assert tools == []
    msgs = [d.message for d in diags if d.is_error]
    assert any("#/$defs/A → #/$defs/B → #/$defs/A" in m for m in msgs)
    assert any("#/$defs/Missing" in m for m in msgs)


@pytest.mark.slow
def test_shared_definition_is_expanded_once_and_deep_nesting_is_fine() -> None:
    depth = 50_000
    node: dict = {"type": "string"}
    for _ in range(depth):
        node = {"type": "array", "items": node}
    schema = {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/D"}, "y": {"$ref": "#/$defs/D"}},
        "$defs": {"D": node},
    }
    tools, diags = from_json({"name": "deep", "description": "d", "inputSchema": schema})
    assert not any(d.is_error for d in diags)
    x = tools[0]["parameters"]["properties"]["x"]
    n = 0
    while "items" in x:
        x = x["items"]
        n += 1
    assert n == depth


def test_mcp_metadata_and_drops() -> None:
    tools, diags = from_json(_load("mcp_tools_list.json"))
    w = tools[0]
    assert w["metadata"]["title"] == "Write file"
    assert w["metadata"]["annotations"]["destructiveHint"] is True
    assert w["metadata"]["output_schema"]["properties"]["bytes"] == {"type": "integer"}
    assert w["parameters"]["required"] == ["path", "content", "odd name"]
    assert "Unused" in " ".join(d.message for d in diags if d.code == "PS506")
    assert any("_meta" in d.message for d in diags if d.code == "PS503")
    # root additionalProperties false: an info only (gptel adds it back for OpenAI)
    assert any(d.code == "PS505" and d.severity == "info" for d in diags)


def test_unknown_input_lists_expectations_and_pointer() -> None:
    tools, diags = from_json([{"type": "function", "function": {"name": "ok"}}, {"foo": 1}])
    assert tools == []
    (d,) = diags
    assert d.code == "PS500" and d.is_error
    assert (
        "at /1" in d.message
        and "OpenAI chat" in d.message
        and "MCP" in d.message
        and '"foo"' in d.message
    )


def test_wrong_inner_shape_reports_pointer() -> None:
    tools, diags = from_json({"tools": [{"type": "function", "function": {"name": 7}}]})
    assert "at /tools/0/function/name" in diags[0].message
    tools, diags = from_json([{"toolSpec": {"name": "x", "inputSchema": {"schema": {}}}}])
    assert "/0/toolSpec/inputSchema" in diags[0].message
    tools, diags = from_json(
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}}
    )
    assert "nope" in diags[0].message and diags[0].is_error


def test_forced_format() -> None:
    value = _load("openai_chat.json")
    tools, diags = from_json(value, "openai")
    assert len(tools) == 2
    tools, diags = from_json(value, "anthropic")
    assert tools == [] and "not anthropic tool JSON: at /0" in diags[0].message
    tools, diags = from_json(value, "ollama")  # alias of openai
    assert len(tools) == 2
    tools, diags = from_json(value, "nonsense")
    assert diags[0].code == "PS500"


def test_ir_input_keeps_metadata() -> None:
    ir = [
        {
            "type": "function",
            "name": "f",
            "description": "d",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
            },
            "metadata": {
                "dialect": "gptel",
                "slots": [{"key": ":function", "text": "#'f", "column": 11}],
            },
        }
    ]
    assert detect_format(ir) == "ir"
    tools, diags = from_json(ir)
    assert tools[0]["metadata"]["slots"][0]["text"] == "#'f" and not diags


def test_root_problems() -> None:
    tools, diags = from_json({"name": "t", "description": "d", "input_schema": {"type": "string"}})
    assert tools == [] and diags[0].code == "PS502"
    tools, diags = from_json(
        {
            "name": "t",
            "description": "d",
            "input_schema": {
                "type": "object",
                "anyOf": [{"required": ["a"]}],
                "properties": {"a": {}},
                "required": ["a", "zz"],
            },
        }
    )
    assert tools[0]["parameters"] == {"type": "object", "properties": {"a": {}}, "required": ["a"]}
    assert any("anyOf" in d.message for d in diags if d.code == "PS505")
    assert any("'zz'" in d.message for d in diags if d.code == "PS507")


def test_skips_builtin_tools_and_cache_points() -> None:
    tools, diags = from_json(_load("openai_responses.json"))
    assert [t["name"] for t in tools] == ["get_weather"]
    assert any(d.code == "PS511" and "web_search_preview" in d.message for d in diags)
    tools, diags = from_json(_load("bedrock.json"))
    assert len(tools) == 1 and any(d.code == "PS511" for d in diags)
