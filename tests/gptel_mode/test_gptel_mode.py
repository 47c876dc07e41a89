"""``plistspec-gptel-mode`` with the real gptel 0.9.9.5 sending real requests to a stub provider.

The same scenarios run twice, in two real Emacs processes, with the mode off and on.
Tools come from mcp.el's own conversion of real MCP ``tools/list`` payloads (GitHub,
filesystem, playwright, everything) and from hand-written Elisp (enums, nested objects,
arrays, optional arguments, async functions, a name no provider accepts, a recursive
schema). Each scenario is one real ``gptel-request`` (or ``gptel-send``) to a backend of
each kind, answered by the stub with scripted tool calls, then a text.

Held: with the mode on, no request body breaks its target's rules (plistspec's rule
checker, and google-genai's ``FunctionDeclaration`` for Gemini where it is installed;
the mode-off run's count is printed, and must not be 0, or the test proves nothing);
every tool missing from a request is named in a message; a scripted invalid call never
reaches the function and the next request carries the explanation; a valid call gives
the function exactly what it got with the mode off; a call made against a lowered
schema is mapped back; an async tool that signals answers instead of hanging.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

import pytest
from gptel_harness import BACKENDS, deps_or_skip, run_harness
from rulecheck import genai_available, tools_of, violations

from plistspec.calls import validate

pytestmark = [pytest.mark.slow, pytest.mark.emacs]

# calls valid against the tools as gptel sends them without the mode
VALID = [
    ("get_weather", {"location": "Paris"}),
    ("get_weather", {"location": "Oslo", "unit": "celsius"}),
    ("set_level", {"level": 2}),
    ("set_level", {"level": 3, "note": "high"}),
    (
        "create_item",
        {"item": {"title": "t", "tags": ["a", "b"], "meta": {"priority": 1}}, "dry_run": False},
    ),
    # gptel closes this object (additionalProperties false) though its properties are in a oneOf
    ("pick_shape", {"shape": {"radius": 2.5}}),
    ("lookup/v2", {"q": "x"}),
    ("options_only", {}),
    ("options_only", {"verbose": True, "limit": 3}),
    ("no_args", {}),
    ("fetch_async", {"url": "http://example.com"}),
    ("read_text_file", {"path": "/tmp/a.txt"}),
    ("echo", {"message": "hi"}),
    ("add", {"a": 1, "b": 2}),
    ("browser_navigate", {"url": "https://example.com"}),
    ("list_issues", {"owner": "o", "repo": "r"}),
    ("search_code", {"query": "q", "filters": {"language": "py"}}),
]
# calls that do not fit
INVALID = [
    ("get_weather", {"unit": "kelvin"}),
    ("set_level", {"level": "two"}),
    ("create_item", {"item": {"tags": "a"}}),
    ("add", {"a": "one", "b": 2}),
    ("options_only", {"limit": "ten"}),
    ("read_text_file", {"path": 5}),
]
SEND_CALLS = [("get_weather", {"location": "Rome"}), ("get_weather", {"location": 3})]
# OpenAI Responses: strict mode makes optional properties required and nullable
STRICT_CALLS = [
    ("create_item", {"item": {"title": "t", "tags": None, "meta": None}, "dry_run": None}),
    ("get_weather", {"location": "Paris", "unit": None}),
]


def _scenarios() -> tuple[list[dict[str, Any]], dict[int, list[Any]], dict[str, dict[int, str]]]:
    scenarios: list[dict[str, Any]] = []
    script: dict[int, list[Any]] = {}
    kinds: dict[str, dict[int, str]] = defaultdict(dict)

    def add(backend: str, kind: str, calls: list, path: str = "request", wait: float = 30):
        n = len(scenarios)
        scenarios.append({"id": n, "backend": backend, "path": path, "tools": None, "wait": wait})
        script[n] = [[[name, args] for name, args in calls], "all done"]
        kinds[kind][n] = backend

    for b in BACKENDS:
        add(b, "valid", VALID)
        add(b, "invalid", INVALID)
    add("gemini", "send", SEND_CALLS, path="send")
    add("openai-responses", "strict", STRICT_CALLS)
    add("anthropic", "async-error", [("boom_async", {"x": "y"})], wait=6)
    return scenarios, script, kinds


@pytest.fixture(scope="module")
def runs() -> dict[str, Any]:
    deps_or_skip()
    scenarios, script, kinds = _scenarios()
    # batch Emacs dies of an error a process sentinel lets through: the async tool that
    # signals runs with the mode on only (test_an_async_tool_that_signals_answers)
    boom = set(kinds["async-error"])
    off = run_harness(False, [s for s in scenarios if s["id"] not in boom], script)
    on = run_harness(True, scenarios, script)
    return {"off": off, "on": on, "kinds": kinds, "scenarios": scenarios}


def _by_scenario(requests: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in requests:
        out[r["scenario"]].append(r)
    return out


def _calls(result: dict[str, Any]) -> dict[int, list[tuple[str, str]]]:
    out: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for scenario, name, args in result["calls"]:
        out[scenario].append((name, args))
    return out


def test_every_request_fits_its_target_with_the_mode_on(runs) -> None:
    on_requests = runs["on"][1]
    off_requests = runs["off"][1]
    assert len(on_requests) >= len(runs["scenarios"]) * 2
    found_on = {}
    found_off: dict[str, int] = defaultdict(int)
    for r in off_requests:
        found_off[r["protocol"]] += len(violations(r["body"], r["protocol"]))
    for r in on_requests:
        v = violations(r["body"], r["protocol"])
        found_on[(r["scenario"], r["protocol"])] = v
    print(
        "\nviolations in the requests, mode off:",
        dict(found_off),
        "| mode on:",
        sum(len(v) for v in found_on.values()),
        "| google-genai judged Gemini:" if genai_available() else "| google-genai absent",
    )
    assert {k: v for k, v in found_on.items() if v} == {}
    for backend in BACKENDS:
        assert found_off[backend] > 0, f"the mode-off run shows nothing to fix for {backend}"


def _left_out_line(err: str, target: str) -> str:
    return next((x for x in err.splitlines() if f"plistspec: left out of this {target} " in x), "")


def test_no_tool_is_left_out_in_silence(runs) -> None:
    result, requests, err = runs["on"]
    registered = set(result["tools"])
    for scenario, reqs in _by_scenario(requests).items():
        first = reqs[0]
        target = first["protocol"]
        sent = {(t.get("function") or t).get("name") for t in tools_of(first["body"], target)}
        missing = len(registered) - len(sent)
        line = _left_out_line(err, target)
        # a warning (it stays in *Warnings*), not the echo area gptel takes at once
        assert not line or line.startswith("Warning (plistspec-gptel): "), line
        said = line.count(" (") if line else 0
        assert said >= missing, (scenario, target, missing, line)
        # mcp.el dropped its $defs: put back from mcp.el's connection, the tool is sent
        assert "calendar_create_event" in sent or "calendar.create_event" in sent, target
        # only what the backend truly cannot carry is left out
        assert missing == (1 if target == "gemini" else 0), (target, registered - sent)
    assert "tree (" in _left_out_line(err, "gemini")  # recursive: Gemini cannot say it


def test_invalid_calls_never_reach_the_function(runs) -> None:
    result, requests, _err = runs["on"]
    calls = _calls(result)
    reqs = _by_scenario(requests)
    off_calls = _calls(runs["off"][0])
    for scenario in runs["kinds"]["invalid"]:
        assert calls[scenario] == [], calls[scenario]
        assert len(off_calls[scenario]) == len(INVALID)  # without the mode they all ran
        second = json.dumps(reqs[scenario][1]["body"])
        assert second.count("was not run: its arguments do not match") == len(INVALID)
        for pointer in ("/location: missing (required)", '/unit: expected one of \\"celsius\\"'):
            assert pointer in second
    said = [x for x in _err.splitlines() if x.startswith("plistspec: blocked a call of ")]
    assert len(said) == len(INVALID) * len(BACKENDS) + 1  # + the gptel-send scenario's
    assert len(result["blocked"]) == 20  # the report keeps the last 20


def test_valid_calls_give_the_function_what_gptel_gives_it(runs) -> None:
    on, off = _calls(runs["on"][0]), _calls(runs["off"][0])
    for scenario, backend in runs["kinds"]["valid"].items():
        assert len(off[scenario]) == len(VALID), backend
        assert sorted(on[scenario]) == sorted(off[scenario]), backend


def test_valid_calls_are_valid(runs) -> None:
    """The scripted calls hold what the test says of them (against the mode-off schemas)."""
    requests = runs["off"][1]
    for scenario, backend in runs["kinds"]["valid"].items():
        body = next(r for r in requests if r["scenario"] == scenario)["body"]
        schemas = {}
        for entry in tools_of(body, backend):
            f = entry.get("function") or entry
            schemas[f["name"]] = f.get("parameters") or f.get("input_schema")
        for name, args in VALID:
            assert validate(schemas[name], args) == [], (backend, name)
        for name, args in INVALID:
            assert validate(schemas[name], args) != [], (backend, name)


def test_gptel_send_is_checked_too(runs) -> None:
    (scenario,) = runs["kinds"]["send"]
    on, off = _calls(runs["on"][0]), _calls(runs["off"][0])
    assert on[scenario] == [("get_weather", '("Rome" nil)')]
    assert sorted(off[scenario]) == sorted(
        [("get_weather", "(3 nil)"), ("get_weather", '("Rome" nil)')]
    )
    ended = dict(map(tuple, runs["on"][0]["ended"]))
    assert ended[scenario] == "done"


def test_calls_against_a_lowered_schema_are_mapped_back(runs) -> None:
    (scenario,) = runs["kinds"]["strict"]
    on = dict(_calls(runs["on"][0])[scenario])
    # strict mode made the nested optional tags/meta required and nullable: the model's
    # nulls are removed, as if it had left them out (what the original schema says)
    assert on["create_item"] == '((:title "t") nil)'
    assert on["get_weather"] == '("Paris" nil)'
    body = next(r for r in runs["on"][1] if r["scenario"] == scenario)["body"]
    strict = {t["name"]: t["strict"] for t in body["tools"]}
    assert strict["create_item"] is True


def test_renamed_tools_are_called_under_their_name(runs) -> None:
    on = _calls(runs["on"][0])
    for scenario, backend in runs["kinds"]["valid"].items():
        assert ("lookup/v2", '("x")') in on[scenario], backend
    body = next(r for r in runs["on"][1] if r["protocol"] == "openai")["body"]
    assert "lookup_v2" in {t["function"]["name"] for t in body["tools"]}


def test_an_async_tool_that_signals_answers(runs) -> None:
    (scenario,) = runs["kinds"]["async-error"]
    ended_on = dict(map(tuple, runs["on"][0]["ended"]))
    assert ended_on[scenario] == "done"
    second = json.dumps(_by_scenario(runs["on"][1])[scenario][1]["body"])
    assert "Error: tool boom_async failed: Boom" in second
    # without the mode, the error escapes gptel (into the curl sentinel: batch Emacs dies
    # of it, an interactive one shows it) and the request waits for a callback forever
    scenarios, script, _kinds = _scenarios()
    alone = [dict(s, wait=5) for s in scenarios if s["id"] == scenario]
    with pytest.raises(AssertionError, match="Boom"):
        run_harness(False, alone, script)


def test_genai_sees_what_gemini_gets() -> None:
    if not genai_available():
        pytest.skip("google-genai is not installed (pip install -e '.[test]')")
    bad = {
        "tools": [
            {"functionDeclarations": [{"name": "x", "parameters": {"type": ["string", "null"]}}]}
        ]
    }
    assert violations(bad, "gemini")
