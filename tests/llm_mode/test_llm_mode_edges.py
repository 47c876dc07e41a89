"""``plistspec-llm-mode`` at its edges, with the real llm 0.31.1 against the stub.

Held: arguments that are not JSON, a tool that does not exist and a tool the mode left
out are each answered to the model (llm alone fails the request, or waits for ever); a
``null`` strict mode makes the model send for an optional argument runs the call as llm
alone runs it; the report shows each provider's last request and the blocked calls; without
the plistspec process, or with an llm whose internals differ, the mode warns once and
requests still go (mcp.el's tools included).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from llm_harness import run_harness
from llm_stub import history_problems

pytestmark = [pytest.mark.slow, pytest.mark.emacs]


def _later(requests: list[dict[str, Any]], scenario: int) -> str:
    return json.dumps([r["body"] for r in requests if r["scenario"] == scenario][1:])


def _ended(out: dict[str, Any]) -> dict[int, list[str]]:
    return {sid: [t[0] for t in turns] for sid, turns in out["ended"]}


@pytest.fixture(scope="module")
def edges() -> tuple[dict, list, str]:
    scenarios = [
        {"id": 0, "provider": "openai", "entry": "sync"},
        {"id": 1, "provider": "openai", "entry": "streaming"},
        {"id": 2, "provider": "openai-responses", "entry": "async"},
        {"id": 3, "provider": "anthropic", "entry": "async"},
        {"id": 4, "provider": "gemini", "entry": "sync"},
        {"id": 5, "provider": "openai-responses", "entry": "sync"},
        {"id": 6, "provider": "anthropic", "entry": "streaming"},
        {"id": 7, "provider": "openai", "entry": "async"},
    ]
    for s in scenarios:
        s.update(tools=["get_weather", "tree", "set_level", "lookup/v2"], turns=3)
    script = {
        0: [[["get_weather", '{"location": "Par']]],
        1: [[["get_weather", "{bad"]]],
        2: [[["get_weather", "not json at all"]]],
        3: [[["nope", {"x": 1}], ["get_weather", {"location": "Paris"}]]],
        4: [[["tree", {"node": {"value": "a"}}], ["get_weather", {"location": "Bonn"}]]],
        5: [[["get_weather", {"location": "Lyon", "unit": None, "days": None}]]],
        6: [[["get_weather", "{bad"]]],  # llm keeps Anthropic's streamed text as it is
        # lookup/v2 is sent as lookup_v2: a model that calls it by its own name
        7: [[["=lookup/v2", {"q": 5}], ["=lookup/v2", {"q": "ok"}]]],
    }
    return run_harness(True, scenarios, script, mcp=False, report=True)


def test_arguments_that_are_not_json_are_explained(edges) -> None:
    out, requests, _err = edges
    ended = _ended(out)
    for sid in (0, 1, 2, 6):
        assert ended[sid] == ["tools", "text"], (sid, out["ended"])
        assert "tool get_weather was not run" in _later(requests, sid), sid
    for sid in (0, 1, 2):
        assert "not valid JSON" in _later(requests, sid), sid
    for r in requests:  # the next request's conversation is one the provider accepts
        assert history_problems(r["body"], r["protocol"]) == [], r
    assert not any(c[0] in (0, 1, 2, 6) for c in out["calls"])


def test_a_tool_that_is_not_there_is_explained(edges) -> None:
    out, requests, _err = edges
    ended = _ended(out)
    assert ended[3] == ["tools", "text"] and ended[4] == ["tools", "text"]
    assert "there is no tool named nope" in _later(requests, 3)
    assert "tool tree is not available in this request" in _later(requests, 4)
    ran = {(c[0], c[1]) for c in out["calls"]}
    assert (3, "get_weather") in ran and (4, "get_weather") in ran
    assert (4, "tree") not in ran


def test_a_renamed_tool_called_by_its_own_name_is_checked(edges) -> None:
    out, requests, _err = edges
    assert [c[1:] for c in out["calls"] if c[0] == 7] == [["lookup/v2", '("ok")']]
    # the message names it as the model was told it
    assert "tool lookup_v2 was not run" in _later(requests, 7)


def test_a_null_for_an_optional_argument_runs_as_llm_alone_runs_it(edges) -> None:
    # what strict mode makes a model send on Responses: not refused, and the function gets
    # exactly what llm alone gives it for such a call
    out, _requests, _err = edges
    assert [c[2] for c in out["calls"] if c[0] == 5] == ['("Lyon" :null :null)']


def test_the_report_shows_llm_requests(edges) -> None:
    out, _requests, _err = edges
    report = out["report"]
    assert "plistspec-llm-mode is on." in report
    for provider in ("Open AI Compatible", "Open AI,", "Claude", "Gemini"):
        assert provider in report, provider
    assert "left out: tree:" in report
    assert "Last blocked calls:" in report and "get_weather" in report
    # M-x plistspec-report: both modes in one buffer
    shared = out["shared_report"]
    assert "plistspec-gptel-mode is off" in shared and report in shared


def test_without_plistspec_requests_go_and_mcp_tools_work() -> None:
    scenarios = [{"id": 0, "provider": "gemini", "entry": "async", "tools": None, "turns": 3}]
    script = {0: [[["echo", {"message": "hi"}]]]}
    out, requests, err = run_harness(True, scenarios, script, executable=["/nonexistent/plistspec"])
    assert _ended(out)[0] == ["tools", "text"]
    assert len(requests) == 2
    assert [c[1:] for c in out["calls"]] == [["echo", '("hi")']]
    assert err.count("[PS704]") == 1


def test_an_llm_that_changed_is_left_alone() -> None:
    scenarios = [{"id": 0, "provider": "openai", "entry": "sync", "tools": ["tag_all"]}]
    script = {0: [[["tag_all", {"ids": [1]}]]]}
    out, requests, err = run_harness(
        True, scenarios, script, mcp=False, before="(fmakunbound 'copy-llm-tool)\n"
    )
    assert err.count("[PS705]") == 1
    assert _ended(out)[0] == ["tools", "text"]
    # llm's own body: its "type": "nil" for the untyped argument
    label = requests[0]["body"]["tools"][0]["function"]["parameters"]["properties"]["label"]
    assert label["type"] == "nil"


def test_turned_off_the_mode_leaves_llm_as_it_was() -> None:
    scenarios = [{"id": 0, "provider": "gemini", "entry": "sync", "tools": ["tag_all"]}]
    script = {0: [[["tag_all", {"ids": ["x"]}]]]}
    out, requests, _err = run_harness(True, scenarios, script, mcp=False, then_off=True)
    # llm's own body ("type": "nil") and llm's own run of an invalid call
    decl = requests[0]["body"]["tools"][0]["function_declarations"][0]
    assert decl["parameters"]["properties"]["label"]["type"] == "nil"
    assert [c[1:] for c in out["calls"]] == [["tag_all", '(["x"] nil)']]


def test_an_async_tool_that_never_answers_times_out() -> None:
    scenarios = [
        {"id": 0, "provider": "anthropic", "entry": "async", "tools": ["silent_async"]},
        {"id": 1, "provider": "ollama", "entry": "sync", "tools": ["silent_async"]},
    ]
    script = {i: [[["silent_async", {"x": "y"}]]] for i in (0, 1)}
    out, requests, err = run_harness(
        True, scenarios, script, mcp=False, before="(setq plistspec-llm-tool-timeout 1)\n"
    )
    for sid in (0, 1):
        assert _ended(out)[sid] == ["tools", "text"]
        assert "tool silent_async did not answer within 1 seconds" in _later(requests, sid)
    assert "[PS703]" in err


def test_turning_the_mode_on_starts_plistspec_before_any_request() -> None:
    """Python starts when the mode is turned on, so the first llm request does not wait
    for it to start."""
    from llm_harness import preamble

    from runtime_support import deps_or_skip, servers_after_turning_on

    assert servers_after_turning_on(preamble(deps_or_skip()), "plistspec-llm-mode") == "(0 t nil)"
