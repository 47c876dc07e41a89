"""``plistspec-llm-mode``: a forced tool lowering renamed, and invalid JSON streamed by the
Responses API, with the real llm 0.31.1 against the stub.

Held: a prompt whose ``:tool-options`` force a tool lowering renamed (``lookup/v2``, sent
as ``lookup_v2``) carries the new name in the tool choice of every provider llm sends one
for (and the Responses API's own form of it), through every entry point; the model's call of
that name runs the user's tool; a forced tool left out of a request leaves it without a tool
choice. Arguments that are not JSON in a call streamed by the Responses API, which llm alone
loses, are answered to the model as on the other paths.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from llm_harness import ENTRIES, PROVIDERS, run_harness
from llm_stub import history_problems

pytestmark = [pytest.mark.slow, pytest.mark.emacs]

FORCED = [(p, e) for p in PROVIDERS for e in ENTRIES]  # scenario i: FORCED[i]
LEFT_OUT = 100  # gemini, forced "tree" (recursive: left out for Gemini)
BAD_JSON = 101  # Responses, streaming, arguments that are not JSON


def _choice(body: dict[str, Any], protocol: str) -> Any:
    """The forced tool's name in a request body, as each API reads it."""
    if protocol == "openai":
        return body["tool_choice"]["function"]["name"]
    if protocol == "openai-responses":
        return body["tool_choice"]["name"]
    if protocol == "anthropic":
        return body["tool_choice"]["name"]
    if protocol == "gemini":
        return body["toolConfig"]["functionCallingConfig"]["allowedFunctionNames"]
    return body.get("tool_choice")


def _run(mode: bool) -> tuple[dict, list, str]:
    scenarios: list[dict[str, Any]] = [
        {
            "id": i,
            "provider": p,
            "entry": e,
            "tools": ["get_weather", "lookup/v2"],
            "tool_choice": "lookup/v2",
            "turns": 3,
        }
        for i, (p, e) in enumerate(FORCED)
    ]
    script: dict[int, list[Any]] = {i: [[["lookup/v2", {"q": "ok"}]]] for i in range(len(FORCED))}
    scenarios.append({"id": LEFT_OUT, "provider": "gemini", "entry": "async",
                      "tools": ["get_weather", "tree"], "tool_choice": "tree", "turns": 3})  # fmt: skip
    script[LEFT_OUT] = [[["get_weather", {"location": "Bonn"}]]]
    scenarios.append({"id": BAD_JSON, "provider": "openai-responses", "entry": "streaming",
                      "tools": ["get_weather"], "turns": 3})  # fmt: skip
    script[BAD_JSON] = [[["get_weather", "not json at all"]]]
    return run_harness(mode, scenarios, script, mcp=False)


@pytest.fixture(scope="module")
def on() -> tuple[dict, list, str]:
    return _run(True)


def _ended(out: dict[str, Any]) -> dict[int, list[str]]:
    return {sid: [t[0] for t in turns] for sid, turns in out["ended"]}


def _bodies(requests: list[dict[str, Any]], scenario: int) -> list[dict[str, Any]]:
    return [r for r in requests if r["scenario"] == scenario]


def test_a_forced_tool_is_named_as_lowering_renamed_it(on) -> None:
    out, requests, _err = on
    for i, (provider, entry) in enumerate(FORCED):
        sent = _bodies(requests, i)
        assert len(sent) == 2, (provider, entry, out["ended"])
        for r in sent:
            body, protocol = r["body"], r["protocol"]
            if protocol == "ollama":  # takes the name; llm sends no tool choice to Ollama
                assert "tool_choice" not in body and "toolConfig" not in body
                continue
            assert "lookup/v2" not in json.dumps(body["tools"]), (provider, entry)
            want = ["lookup_v2"] if protocol == "gemini" else "lookup_v2"
            assert _choice(body, protocol) == want, (provider, entry, body)
        if provider == "openai-responses":  # the Responses API's form, not Chat Completions'
            assert sent[0]["body"]["tool_choice"] == {"type": "function", "name": "lookup_v2"}
    # the model's call of the sent name runs the user's tool, once per conversation
    ran = sorted(c[0] for c in out["calls"] if c[1] == "lookup/v2" and c[2] == '("ok")')
    assert ran == list(range(len(FORCED)))
    ended = _ended(out)
    assert all(ended[i] == ["tools", "text"] for i in range(len(FORCED))), out["ended"]


def test_a_forced_tool_left_out_leaves_no_tool_choice(on) -> None:
    out, requests, err = on
    sent = _bodies(requests, LEFT_OUT)
    assert len(sent) == 2
    for r in sent:
        assert "toolConfig" not in r["body"], r["body"]
        assert [d["name"] for d in r["body"]["tools"][0]["function_declarations"]] == [
            "get_weather"
        ]
    assert _ended(out)[LEFT_OUT] == ["tools", "text"]
    assert err.count("names tree, left out of it") == 1


def test_responses_streamed_arguments_that_are_not_json_are_explained(on) -> None:
    out, requests, _err = on
    assert _ended(out)[BAD_JSON] == ["tools", "text"]
    sent = _bodies(requests, BAD_JSON)
    later = json.dumps([r["body"] for r in sent[1:]])
    # the message the other paths give (tests/llm_mode/test_llm_mode_edges.py)
    assert "tool get_weather was not run" in later and "not valid JSON" in later
    assert not any(c[0] == BAD_JSON for c in out["calls"])
    for r in sent:
        assert history_problems(r["body"], r["protocol"]) == [], r


def test_without_the_mode_llm_loses_that_call() -> None:
    # the contrast: llm alone parses the streamed arguments in a timer, which signals; the
    # call never reaches the conversation and the model is never told
    out, requests, err = _run(False)
    assert "json-parse-error" in err
    later = json.dumps([r["body"] for r in _bodies(requests, BAD_JSON)[1:]])
    assert "not valid JSON" not in later and "not json at all" not in later
    # and the forced tool is named by the name the provider refuses
    assert _choice(_bodies(requests, 0)[0]["body"], "openai") == "lookup/v2"


def test_a_responses_reader_that_changed_is_left_alone() -> None:
    # an llm whose Responses stream reader is not what the mode expects (here: one that
    # reads nothing): said once, and requests still go, the mode otherwise on
    before = """(cl-defmethod llm-provider-streaming-media-handler ((_ llm-openai) _receiver _)
  (cons 'text/event-stream (plz-event-source:text/event-stream :events nil)))
"""
    scenarios = [
        {
            "id": i,
            "provider": "openai-responses",
            "entry": "streaming",
            "tools": ["get_weather"],
            "turns": 1,
        }
        for i in (0, 1)
    ]
    scenarios.append({"id": 2, "provider": "openai", "entry": "sync", "tools": ["set_level"]})
    script = {2: [[["set_level", {"level": 7}]]]}
    out, requests, err = run_harness(True, scenarios, script, mcp=False, before=before)
    assert err.count("[PS705]") == 1 and "Responses streaming" in err
    assert [r["scenario"] for r in requests if r["protocol"] == "openai-responses"] == [0, 1]
    assert all(turns[0][0] != "hung" for _sid, turns in out["ended"])
    assert "tool set_level was not run" in json.dumps(_bodies(requests, 2)[1]["body"])
