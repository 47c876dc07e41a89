"""plistspec.calls.toolset: what check --server answers plistspec-gptel-mode."""

from __future__ import annotations

import json

from plistspec.calls.toolset import Toolsets, target_of

WEATHER_ARGS = {
    "type": "object",
    "properties": {
        "location": {"type": "string"},
        "unit": {"type": ["string", "null"], "enum": ["c", "f", None]},
    },
    "required": ["location"],
}
LOOP = {
    "type": "object",
    "properties": {"node": {"$ref": "#/$defs/N"}},
    "$defs": {
        "N": {
            "type": "object",
            "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/N"}}},
        }
    },
}


def _gemini(*decls: dict) -> str:
    return json.dumps([{"functionDeclarations": list(decls)}])


def test_the_target_follows_gptels_envelope() -> None:
    assert target_of([{"type": "function", "function": {"name": "a"}}], "openai") == "openai"
    assert target_of([{"type": "function", "function": {"name": "a"}}], "ollama") == "ollama"
    assert target_of([{"type": "function", "name": "a"}], "openai-responses") == "openai-responses"
    assert target_of([{"name": "a", "input_schema": {}}], "anthropic") == "anthropic"
    assert target_of([{"toolSpec": {"name": "a"}}], "bedrock") == "bedrock"
    assert target_of([{"functionDeclarations": []}], "gemini") == "gemini"
    assert target_of([], "gemini") is None


def test_lowering_leaves_out_what_the_backend_cannot_say_and_names_why() -> None:
    ts = Toolsets()
    text = _gemini(
        {"name": "get.weather/now", "description": "w", "parameters": WEATHER_ARGS},
        {"name": "loop", "description": "l", "parameters": LOOP},
    )
    a = ts.lower("gemini", text)
    assert a["target"] == "gemini"
    [(index, name, tool_id)] = a["sent"]
    assert (index, name) == (0, "get_weather_now") or index == 0
    assert a["left_out"][0][:2] == [1, "loop"]
    assert "recursive" in a["left_out"][0][2] and "[PS413]" in a["left_out"][0][2]
    decl = a["tools"][0]["functionDeclarations"][0]
    assert decl["parameters"]["properties"]["unit"] == {
        "type": "string",
        "enum": ["c", "f"],
        "nullable": True,
    }
    assert "rewrites" not in a  # a request's answer stays small
    full = ts.lower("gemini", text, rewrites=True)
    assert ts.lower("gemini", text, rewrites=True) is full  # the same tools: from the cache
    assert {r[3] for r in full["rewrites"]} >= {"PS414", "PS413"}


def test_a_call_is_run_unchanged_mapped_back_or_refused() -> None:
    ts = Toolsets()
    text = json.dumps(
        [{"type": "function", "name": "w", "description": "d", "parameters": WEATHER_ARGS}]
    )
    a = ts.lower("openai-responses", text)
    (_i, name, tool_id) = a["sent"][0]
    assert a["tools"][0]["strict"] is True
    assert ts.call(tool_id, '{"location": "Paris"}') == {"ok": True, "edits": []}
    assert ts.call(tool_id, '{"location": "Paris", "unit": null}') == {"ok": True, "edits": []}
    refused = ts.call(tool_id, '{"unit": "k"}')
    assert refused["ok"] is False
    assert "/location: missing (required)" in refused["message"]
    assert [p[0] for p in refused["problems"]] == ["/location", "/unit"]
    assert ts.call(tool_id, "[1")["ok"] is False
    assert ts.call("no-such-id", "{}") == {"unknown": True}


def test_a_set_that_changed_in_one_tool_lowers_that_tool_only(monkeypatch) -> None:
    import plistspec.lowering.tools as lt

    ts = Toolsets()
    tools = [
        {
            "type": "function",
            "function": {"name": f"t{i}", "description": "d", "parameters": WEATHER_ARGS},
        }
        for i in range(5)
    ]
    ts.lower("openai", json.dumps(tools))
    seen = []
    real = lt.lower_tools_detailed
    monkeypatch.setattr(
        lt, "lower_tools_detailed", lambda t, target: seen.append(len(t)) or real(t, target)
    )
    tools[2]["function"]["description"] = "changed"
    a = ts.lower("openai", json.dumps(tools))
    assert seen == [1]
    assert [s[1] for s in a["sent"]] == [f"t{i}" for i in range(5)]
