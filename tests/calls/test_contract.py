"""plistspec.calls: a call judged against the tool's declared contract (issue 27)."""

from __future__ import annotations

import json
import time

from plistspec.calls import validate
from plistspec.calls.bounded import TimedOut, time_bound
from plistspec.calls.refs import restore_refs
from plistspec.calls.toolset import Toolsets

ITEM = {
    "type": "object",
    "properties": {
        "item": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 2},
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                "meta": {"type": "object", "properties": {"p": {"type": "integer"}}},
            },
            "required": ["title"],
        },
        "n": {"type": "integer", "enum": [1, 2, 3]},
    },
    "required": ["item"],
}


def _wire(target: str, params: dict) -> str:
    if target == "gemini":
        return json.dumps([{"functionDeclarations": [{"name": "t", "parameters": params}]}])
    if target == "openai-responses":
        return json.dumps([{"type": "function", "name": "t", "parameters": params}])
    return json.dumps([{"type": "function", "function": {"name": "t", "parameters": params}}])


def _tool(target: str, wire_params: dict, contract: dict | None = None) -> tuple[Toolsets, str]:
    ts = Toolsets()
    contracts = json.dumps([contract]) if contract is not None else None
    a = ts.lower(target, _wire(target, wire_params), contracts=contracts)
    return ts, a["sent"][0][2]


def test_constraints_lowering_moves_into_descriptions_still_hold() -> None:
    for target in ("gemini", "openai-responses"):
        ts, tid = _tool(target, ITEM, ITEM)
        for bad in (
            {"item": {"title": "x"}},
            {"item": {"title": "xy", "tags": ["a", "a"]}},
            {"item": {"title": "xy"}, "n": 7},
        ):
            assert ts.call(tid, json.dumps(bad), True)["ok"] is False, (target, bad)
        assert ts.call(tid, json.dumps({"item": {"title": "xy"}, "n": 2}), True)["ok"]


def test_what_only_gptel_added_never_refuses() -> None:
    gptels = json.loads(json.dumps(ITEM))
    gptels["additionalProperties"] = False
    gptels["properties"]["item"]["additionalProperties"] = False
    ts, tid = _tool("openai", gptels, ITEM)
    # an extra argument (gptel drops it), an extra nested one, a nested null
    for call in (
        {"item": {"title": "xy"}, "extra": 1},
        {"item": {"title": "xy", "more": 1}},
        {"item": {"title": "xy", "meta": None}},
    ):
        assert ts.call(tid, json.dumps(call), True)["ok"] is True, call
    # without a contract, gptel's false is the schema's own (the old reading)
    ts, tid = _tool("openai", gptels)
    assert ts.call(tid, json.dumps({"item": {"title": "xy", "more": 1}}), True)["ok"] is False


def test_a_declared_nested_false_holds_where_gptels_json_lost_it() -> None:
    declared = json.loads(json.dumps(ITEM))
    declared["properties"]["item"]["additionalProperties"] = False
    ts, tid = _tool("gemini", ITEM, declared)
    got = ts.call(tid, json.dumps({"item": {"title": "xy", "more": 1}}), True)
    assert got["ok"] is False and "/item/more: unexpected" in got["message"]


def test_messages_name_only_real_problems() -> None:
    ts, tid = _tool("openai-responses", ITEM, ITEM)
    got = ts.call(tid, json.dumps({"item": {"title": 5}}), True)
    assert "(1 problem)" in got["message"] and "missing" not in got["message"]
    got = ts.call(tid, '{"item": {"title": "x', True)
    assert "its arguments are not valid JSON" in got["message"]
    assert "missing" not in got["message"]


def test_defs_restored_from_the_contract_or_the_ref_loosened() -> None:
    params = {"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "d"}}}
    defs = {"A": {"type": "object", "properties": {"x": {"type": "string"}}}}
    out, notes = restore_refs(params, {**params, "$defs": defs})
    assert out["$defs"] == defs and notes[0][1:3] == ["PS706", "info"]
    assert "$defs" not in params  # never changed in place
    out, notes = restore_refs(params, None)
    assert out["properties"]["a"] == {"description": "d"}
    assert notes == [
        [
            "/parameters/properties/a",
            "PS706",
            "warning",
            "the $ref #/$defs/A points at nothing: loosened to any value",
        ]
    ]
    ts = Toolsets()
    a = ts.lower("openai", _wire("openai", params))
    assert a["left_out"] == [] and len(a["sent"]) == 1


def test_one_check_is_bounded_in_time() -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}
    t = time.monotonic()
    [p] = validate(schema, {"s": "a" * 34 + "!"})
    assert p.keyword == "timeout"
    assert time.monotonic() - t < 30  # unbounded, it runs for minutes
    with time_bound(0.05) as bounded:
        assert bounded
        try:
            while True:
                pass
        except TimedOut:
            pass
    assert validate(schema, {"s": "aaaa"}) == []


def test_a_compact_answer_gives_each_entry_once() -> None:
    ts = Toolsets()
    one = {"name": "a", "parameters": ITEM}
    two = {"name": "b", "parameters": {"type": "object", "properties": {}}}
    first = ts.lower("gemini", json.dumps([{"functionDeclarations": [one]}]), compact=True)
    assert first["wrap"] == "functionDeclarations" and first["elements"][0]["name"] == "a"
    both = json.dumps([{"functionDeclarations": [one, two]}])
    second = ts.lower("gemini", both, compact=True)
    assert second["elements"][0] is None and second["elements"][1]["name"] == "b"
    assert "tools" not in second
    again = ts.lower("gemini", both, compact="reset")
    assert [e["name"] for e in again["elements"]] == ["a", "b"]
    plain = ts.lower("openai", _wire("openai", ITEM), compact=True)
    assert plain["wrap"] is None and plain["elements"][0]["function"]["name"] == "t"
    assert ts.lower("gemini", both)["tools"][0]["functionDeclarations"][1]["name"] == "b"


def test_serve_answers_a_backtracking_pattern_in_bounded_time() -> None:
    """``plistspec serve`` validates with the same bounded check (its own catalog)."""
    from plistspec.serve.catalog import ServedTool

    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}
    tool = ServedTool("m", "m", {"name": "m", "inputSchema": schema}, None)
    said = tool.validate({"s": "a" * 34 + "!"})
    assert said is not None and "could not be checked in time" in said
    assert tool.validate({"s": "aaa"}) is None


def test_judge_is_the_engine_python_callers_use() -> None:
    from plistspec.calls import judge
    from plistspec.lowering.tools import lower_tools_detailed

    [low], _ = lower_tools_detailed([{"name": "t", "parameters": ITEM}], "openai-strict")
    lowered = low["parameters"]
    call = {"item": {"title": "xy", "tags": None, "meta": None}, "n": None}
    v = judge("t", ITEM, lowered, call)
    assert v.ok and v.arguments == {"item": {"title": "xy"}} and v.edits
    bad = judge("t", ITEM, lowered, {"item": {"title": "x", "tags": None, "meta": None}, "n": 9})
    assert not bad.ok and not bad.unchecked and "(2 problems)" in bad.message


def test_the_required_the_tool_declared_is_sent() -> None:
    """mcp.el takes an MCP tool's first ``len(required)`` properties as the required ones;
    gptel's copy of github-mcp-server's alphabetical schema then requires the wrong ones,
    and the contract (the server's schema) puts its own back."""
    props = {k: {"type": "string"} for k in ("inputs", "method", "owner", "repo")}
    sent = {"type": "object", "properties": props, "required": ["inputs", "method", "owner"]}
    contract = {"type": "object", "properties": props, "required": ["method", "owner", "repo"]}
    out, notes = restore_refs(sent, contract)
    assert out["required"] == ["method", "owner", "repo"]
    assert sent["required"] == ["inputs", "method", "owner"]  # never changed
    assert [n[1:3] for n in notes] == [["PS706", "info"]]
    # nothing required by the server: none sent
    out, _ = restore_refs(sent, {**contract, "required": []})
    assert "required" not in out
    # the same required, or a contract of other properties: as gptel sent it
    assert restore_refs(sent, {**contract, "required": sent["required"]}) == (sent, [])
    other = {**contract, "properties": {"x": {"type": "string"}}}
    assert restore_refs(sent, other) == (sent, [])
