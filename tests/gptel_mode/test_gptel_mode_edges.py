"""``plistspec-gptel-mode`` at its edges, with the real gptel: the report, Bedrock (built
as a dry run: gptel's Bedrock backend needs curl 8.9 to send), a process that ends between
requests, and failing open when plistspec cannot run or gptel has changed."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest
from gptel_harness import deps_or_skip, run_harness
from rulecheck import tools_of, violations

pytestmark = [pytest.mark.slow, pytest.mark.emacs]

CALLS = [("get_weather", {"location": "Paris"}), ("get_weather", {"unit": "kelvin"})]


def _scenarios(*backends: str, **extra) -> tuple[list, dict]:
    scenarios = [
        {"id": i, "backend": b, "path": "request", "tools": None, "wait": 30, **extra}
        for i, b in enumerate(backends)
    ]
    script = {i: [[list(c) for c in CALLS], "done"] for i in range(len(backends))}
    return scenarios, script


def _calls(result) -> dict[int, list]:
    out: dict[int, list] = defaultdict(list)
    for scenario, name, args in result["calls"]:
        out[scenario].append((name, args))
    return out


def test_the_report_says_what_was_lowered_left_out_and_blocked() -> None:
    deps_or_skip()
    scenarios, script = _scenarios("gemini", "anthropic")
    result, _requests, _err = run_harness(True, scenarios, script, reports=["gemini", "openai"])
    gemini, openai = result["reports"]
    assert "Backend: stub-gemini" in gemini
    assert "lowered for gemini: 35 tools, 34 sent, 1 left out." in gemini
    # mcp.el dropped its $defs: put back from mcp.el's connection (the tool is sent)
    assert "  calendar.create_event\n    /parameters/$defs: info: the $defs of the tool" in gemini
    assert "tree: " in gemini and "recursive" in gemini
    # each rewrite, under its tool
    assert "  set_level\n" in gemini
    assert "    /parameters/properties/note: info: the type list" in gemini
    assert "Last blocked calls:" in gemini and "/unit: expected one of" in gemini
    assert "No request of this backend was lowered yet." in openai


def test_bedrock_requests_fit_too() -> None:
    deps_or_skip()
    off, _, _ = run_harness(False, [], {}, dry_run=["bedrock", "openai-responses"])
    on, _, _ = run_harness(True, [], {}, dry_run=["bedrock", "openai-responses"])
    for target, before, after in zip(
        ["bedrock", "openai-responses"], off["dry_runs"], on["dry_runs"], strict=True
    ):
        before, after = json.loads(before), json.loads(after)
        assert violations(before, target), target
        assert violations(after, target) == [], target
        assert len(tools_of(after, target)) >= 33


def test_a_process_that_ended_is_started_again_and_calls_are_still_checked() -> None:
    deps_or_skip()
    scenarios, script = _scenarios("gemini", "gemini", "openai")
    scenarios[1]["kill_server"] = True
    scenarios[2]["kill_server"] = True
    result, requests, err = run_harness(True, scenarios, script)
    calls = _calls(result)
    for i in range(3):
        assert calls[i] == [("get_weather", '("Paris" nil)')], i  # the invalid call blocked
    assert all(violations(r["body"], r["protocol"]) == [] for r in requests)
    assert "[PS704]" not in err


def test_requests_go_unchanged_when_plistspec_cannot_run() -> None:
    deps_or_skip()
    scenarios, script = _scenarios("gemini", "openai")
    off, off_requests, _ = run_harness(False, scenarios, script)
    on, on_requests, err = run_harness(
        True, scenarios, script, executable=["/nonexistent/bin/plistspec"]
    )
    assert [r["body"].get("tools") for r in on_requests] == [
        r["body"].get("tools") for r in off_requests
    ]
    assert _calls(on) == _calls(off)  # every call ran, as without the mode
    warnings = [x for x in err.splitlines() if "[PS704]" in x]
    assert len(warnings) == 1, warnings
    assert "/nonexistent/bin/plistspec" in warnings[0]


def test_gptel_left_alone_when_it_has_changed() -> None:
    deps_or_skip()
    scenarios, script = _scenarios("gemini")
    before = (
        "(require 'plistspec-gptel)\n"
        "(push '(gptel--request-was-renamed :around ignore 1) plistspec-gptel--seams)\n"
    )
    off, off_requests, _ = run_harness(False, scenarios, script)
    on, on_requests, err = run_harness(True, scenarios, script, before=before)
    assert [r["body"] for r in on_requests] == [r["body"] for r in off_requests]
    assert _calls(on) == _calls(off)
    warnings = [x for x in err.splitlines() if "[PS705]" in x]
    assert len(warnings) == 1 and "gptel--request-was-renamed is not defined" in warnings[0]


def test_a_request_whose_every_tool_is_left_out_goes_without_tools() -> None:
    deps_or_skip()
    scenarios = [
        {"id": 0, "backend": "gemini", "path": "request", "tools": ["tree"], "force": True},
        {
            "id": 1,
            "backend": "openai",
            "path": "request",
            "tools": ["calendar.create_event"],
            "force": True,
        },
    ]
    result, requests, err = run_harness(True, scenarios, {0: ["fine"], 1: ["fine"]})
    assert [r["scenario"] for r in requests] == [0, 1]
    gemini, openai = (r["body"] for r in requests)
    assert "tools" not in gemini and "toolConfig" not in gemini, gemini
    assert dict(map(tuple, result["ended"])) == {0: "done", 1: "done"}
    assert "left out of this gemini request: tree (" in err
    # the tool whose $defs mcp.el dropped is carried, its $defs put back
    [tool] = openai["tools"]
    assert "Attendee" in json.dumps(tool["function"]["parameters"])
    assert "left out of this openai request" not in err


def test_a_tool_set_is_reused_only_when_it_is_the_same() -> None:
    """The lowered JSON of a tool set is reused only for the same tool objects, unchanged."""
    from gptel_harness import preamble, run_emacs

    deps = deps_or_skip()
    code = (
        preamble(deps)
        + r"""
(require 'plistspec-gptel-plan)
(defun tl (name) (gptel--make-tool :name name :function #'ignore :description "d"
                                   :args (list (list :name "x" :type "string"))))
(let* ((a (tl "a")) (b (tl "b")) (c (tl "c")) (d (tl "d"))
       (g (list "gemini" 'backend 'model))
       (plistspec-gptel--recent nil))
  (plistspec-gptel--remember g (list c) '(:tools []) nil "[]")
  (plistspec-gptel--remember g (list a b c) '(:tools []) nil "[]")
  (princ (format "%S\n" (list
    (and (plistspec-gptel--recent g (list a b c)) t)
    (and (plistspec-gptel--recent g (list a b d c)) t)
    (and (plistspec-gptel--recent g (list c)) t)
    (and (plistspec-gptel--recent (list "gemini" 'backend 'other-model) (list c)) t)
    (progn (plist-put (car (gptel-tool-args c)) :type "integer")
           (and (plistspec-gptel--recent g (list c)) t))))))
"""
    )
    proc = run_emacs(code, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    # the same tools: reused; another set ending like a remembered one, another model,
    # or a tool whose args changed in place: not
    assert proc.stdout.decode().strip() == "(t nil t nil nil)"


def test_turning_the_mode_on_starts_plistspec_before_any_request() -> None:
    """Python starts when the mode is turned on, not at the first request: by then it has
    made its lowering ready, so the first request does not wait for it to start."""
    from gptel_harness import preamble

    from runtime_support import servers_after_turning_on

    got = servers_after_turning_on(
        preamble(deps_or_skip()), "plistspec-gptel-mode", "(length gptel--request-alist)"
    )
    # no process before; a live one after turning the mode on, and no request was made
    assert got == "(0 t 0)"
