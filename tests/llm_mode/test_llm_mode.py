"""``plistspec-llm-mode`` with the real llm 0.31.1 (plz) sending real requests to a stub.

Every scenario is one conversation with one provider of each kind llm has
(llm-openai-compatible, llm-openai's Responses, llm-claude, llm-gemini, llm-vertex,
llm-ollama) through one entry point (``llm-chat``, ``llm-chat-async``,
``llm-chat-streaming``): the stub answers with scripted tool calls, llm runs them and
sends the results back, the stub answers a text. Tools come from mcp.el's own conversion
of real MCP ``tools/list`` payloads and from hand-written ``llm-make-tool`` forms (enums,
nested objects, arrays, optional and untyped arguments, async functions, a name no
provider accepts, a recursive schema). The same scenarios run in two real Emacs processes,
with the mode off and on.

Held: with mcp.el's tools, llm alone sends no request at all (it signals), with the mode
every request is sent; with the mode on no request body breaks its target's rules (the
mode-off count is printed and must not be 0); every tool missing from a request is named
in a warning; a scripted invalid call never reaches the function and the next request
carries the explanation; a valid call gives the function exactly what it got with the
mode off; an async tool that signals answers instead of hanging.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from llm_harness import ENTRIES, PROVIDERS, TARGET, run_harness
from llm_stub import declared, history_problems
from rulecheck import violations

pytestmark = [pytest.mark.slow, pytest.mark.emacs]

# hand-written tools only (llm alone can send them): get_weather, set_level...
HAND = ["get_weather", "set_level", "create_item", "tag_all", "no_args", "fetch_async",
        "boom_async", "lookup/v2", "tree"]  # fmt: skip

VALID = [
    ["get_weather", {"location": "Paris"}],
    ["get_weather", {"location": "Oslo", "unit": "fahrenheit", "days": 3}],
    [
        "create_item",
        {"item": {"title": "t", "tags": ["a"], "meta": {"priority": 2}}, "dry_run": False},
    ],  # fmt: skip
    ["tag_all", {"ids": [1, 2], "label": "x"}],
    ["no_args", {}],
    ["fetch_async", {"url": "https://example.org"}],
    ["lookup/v2", {"q": "x"}],
]
# invalid against what the tool declares; llm alone runs them (it checks only missing
# and unknown top-level arguments)
INVALID_LLM_RUNS = [
    ["set_level", {"level": 7, "loud": False}],
    ["create_item", {"item": {"tags": ["a"], "meta": {}}}],
    ["tag_all", {"ids": ["one"]}],
]
# what llm alone refuses by failing the request (never explained to the model)
INVALID_LLM_FAILS = [
    ["get_weather", {"location": "Rome", "wind": True}],
    ["set_level", {}],
]
MCP_VALID = [["add", {"a": 1, "b": 2}], ["echo", {"message": "hi"}]]
MCP_INVALID = [["add", {"a": "one", "b": 2}]]
BOOM = [["boom_async", {"x": "y"}]]

# each invalid call: a text the next request must carry
EXPLAINED = {
    "set_level": ["tool set_level was not run", "/level"],
    "create_item": ["tool create_item was not run", "/item/title"],
    "tag_all": ["tool tag_all was not run", "/ids/0"],
    "get_weather": ["tool get_weather was not run", "/wind"],
    "add": ["tool add was not run", "/a"],
}


def _scenarios(calls: list[list[Any]], tools: list[str] | None) -> tuple[list, dict]:
    """One scenario per provider and entry point; all ``calls`` in one turn (llm reads
    one call per streamed Ollama answer: there, one turn each)."""
    scenarios, script = [], {}
    for i, (provider, entry) in enumerate((p, e) for p in PROVIDERS for e in ENTRIES):
        one_each = provider == "ollama" and entry == "streaming"
        turns = [[c] for c in calls] if one_each else [calls]
        scenarios.append(
            {
                "id": i,
                "provider": provider,
                "entry": entry,
                "tools": tools,
                "turns": len(turns) + 1,
            }  # fmt: skip
        )
        script[i] = json.loads(json.dumps(turns))
    return scenarios, script


def _by_scenario(requests: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for r in requests:
        out.setdefault(r["scenario"], []).append(r)
    return out


def _violations(requests: list[dict[str, Any]], scenarios: list[dict[str, Any]]) -> list:
    provider = {s["id"]: s["provider"] for s in scenarios}
    out = []
    for r in requests:
        p = provider[r["scenario"]]
        out.extend((p, *v) for v in violations(r["body"], TARGET.get(p, p)))
    return out


def _plain(name: str) -> str:
    """A tool's name as lowering sends it where the provider takes fewer characters."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


def _calls(out: dict[str, Any]) -> dict[tuple[int, str], list[str]]:
    got: dict[tuple[int, str], list[str]] = {}
    for scenario, tool, args in out["calls"]:
        got.setdefault((scenario, tool), []).append(args)
    return got


@pytest.fixture(scope="module")
def mcp_runs() -> dict[bool, tuple[dict, list, str, list]]:
    calls = VALID[:1] + INVALID_LLM_RUNS + INVALID_LLM_FAILS[:1] + MCP_VALID + MCP_INVALID + BOOM
    scenarios, script = _scenarios(calls, None)
    runs = {}
    for mode in (False, True):
        out, requests, err = run_harness(mode, scenarios, script)
        runs[mode] = (out, requests, err, scenarios)
    return runs


@pytest.fixture(scope="module")
def hand_runs() -> dict[bool, tuple[dict, list, str, list]]:
    scenarios, script = _scenarios(VALID + INVALID_LLM_RUNS, HAND)
    runs = {}
    for mode in (False, True):
        out, requests, err = run_harness(mode, scenarios, script, mcp=False)
        runs[mode] = (out, requests, err, scenarios)
    return runs


def test_mcp_tools_break_every_request_without_the_mode(mcp_runs) -> None:
    out, requests, _err, scenarios = mcp_runs[False]
    print(f"mode off: {len(requests)} of {len(scenarios)} conversations sent a request")
    assert requests == []
    assert all("symbolp" in turns[0][1] for _id, turns in out["ended"])


def test_every_conversation_completes_with_the_mode(mcp_runs) -> None:
    out, requests, _err, scenarios = mcp_runs[True]
    for sid, turns in out["ended"]:
        kinds = [t[0] for t in turns]
        assert kinds[-1] == "text" and set(kinds[:-1]) == {"tools"}, (scenarios[sid], turns)
    assert set(_by_scenario(requests)) == {s["id"] for s in scenarios}
    for r in requests:
        assert "unparsed" not in r["body"], r["path"]
        assert history_problems(r["body"], r["protocol"]) == [], (r["path"], r["scenario"])


def test_no_request_breaks_its_providers_rules(mcp_runs, hand_runs) -> None:
    off = _violations(hand_runs[False][1], hand_runs[False][3])
    print(f"mode off (hand-written tools; with mcp.el's nothing is sent): {len(off)} violations")
    assert off, "the mode-off run breaks no rule: this test proves nothing"
    for mode_on in (mcp_runs[True], hand_runs[True]):
        assert _violations(mode_on[1], mode_on[3]) == []


def test_no_tool_is_dropped_silently(mcp_runs) -> None:
    out, requests, err, scenarios = mcp_runs[True]
    left_out = {name for _provider, _target, names in out["left_out"] for name in names}
    every = {_plain(n) for n in set(out["tools"]) - left_out}
    for r in requests:
        missing = every - {_plain(n) for n in declared(r["body"])}
        assert not missing, (r["path"], missing)
    for name in left_out:
        assert f"{name} (" in err  # the warning names it and why
    assert "[PS701]" in err


def test_invalid_calls_never_reach_the_function_and_are_explained(mcp_runs, hand_runs) -> None:
    off_calls = _calls(hand_runs[False][0])
    reached = sum(
        1 for (_sid, tool), args in off_calls.items() for a in args
        if (tool, a) in {("set_level", "(7 nil)"), ("tag_all", '(["one"] nil)')}
    )  # fmt: skip
    print(f"mode off: {reached} invalid calls reached their function")
    assert reached > 0
    for run, explained in ((mcp_runs[True], EXPLAINED), (hand_runs[True], HAND_EXPLAINED)):
        out, requests, _err, scenarios = run
        for (_sid, tool), args in _calls(out).items():
            assert tool != "set_level", args
            if tool == "add":
                assert args == ["(1 2)"], args
            if tool == "create_item":
                assert all('"t"' in a for a in args), args
            if tool == "tag_all":
                assert all("[1 2]" in a for a in args), args
            if tool == "get_weather":
                assert all('"Rome"' not in a for a in args), args
        by = _by_scenario(requests)
        for s in scenarios:
            later = json.dumps([r["body"] for r in by[s["id"]][1:]])
            for tool in explained:
                for text in EXPLAINED[tool]:
                    assert text in later, (s, tool, text)


HAND_EXPLAINED = ["set_level", "create_item", "tag_all"]


def test_valid_calls_get_what_llm_alone_passes(hand_runs) -> None:
    off, on = _calls(hand_runs[False][0]), _calls(hand_runs[True][0])
    valid_tools = {c[0] for c in VALID}
    # the mode-off run also ran the invalid calls of create_item and tag_all
    valid = {"create_item": '"t"', "tag_all": "[1 2]"}
    compared = 0
    for key, args in off.items():
        if key[1] in valid_tools:
            expected = [a for a in args if valid.get(key[1], "") in a]
            assert on.get(key) == expected, key
            compared += len(expected)
    assert compared == len(PROVIDERS) * len(ENTRIES) * len(VALID)


def test_an_async_tool_that_signals_answers(mcp_runs) -> None:
    out, requests, err, scenarios = mcp_runs[True]
    by = _by_scenario(requests)
    for s in scenarios:
        later = json.dumps([r["body"] for r in by[s["id"]][1:]])
        assert "Error: tool boom_async failed: Boom" in later, s
    assert "[PS703]" in err
