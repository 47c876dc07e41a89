"""``plistspec-gptel-mode`` with a ``plistspec`` that misbehaves: Emacs is never blocked past
``plistspec-gptel-wait``, whatever the process does (hangs without reading its input, is
slow, exits at once, prints garbage), and the user gets one accurate warning.

Fake programs stand in for ``plistspec`` (``/bin/sh`` scripts); the real gptel sends all
the fixtures' tools (500 of them for the process that never reads: far more JSON than a
pipe holds). ``plistspec-timeout``
is set to 120 s, so a blocked send would show as a question that took that long.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
from gptel_harness import deps_or_skip, many_tools, run_harness
from rulecheck import violations

pytestmark = [pytest.mark.slow, pytest.mark.emacs]

BEFORE = "(setq plistspec-gptel-wait 1 plistspec-timeout 120)\n"
CALLS = [("get_weather", {"location": "Paris"}), ("get_weather", {"unit": "kelvin"})]


def _run(
    script: str, *backends: str, pause: dict | None = None, many: int = 0
) -> tuple[dict, list, str]:
    deps_or_skip()
    scenarios = [
        {"id": i, "backend": b, "path": "request", "wait": 10, "pause": (pause or {}).get(i)}
        for i, b in enumerate(backends)
    ]
    turns = {i: [[list(c) for c in CALLS], "done"] for i in range(len(backends))}
    with tempfile.TemporaryDirectory() as tmp:
        mcp = many_tools(many, Path(tmp)) if many else None
        if mcp:  # far more than a pipe holds (64 KB)
            assert Path(mcp[0][1]).stat().st_size > 400_000
        return run_harness(
            True,
            scenarios,
            turns,
            executable=["/bin/sh", "-c", script, sys.executable],
            before=BEFORE,
            mcp=mcp,
        )


def _warnings(err: str) -> list[str]:
    return [x for x in err.splitlines() if "[PS704]" in x]


def test_a_process_that_never_reads_does_not_block_emacs() -> None:
    result, requests, err = _run("exec sleep 1000", "gemini", "openai", "anthropic", many=500)
    assert result["ask_max"] < 10, result["ask_max"]  # the wait (1 s), not plistspec-timeout
    assert {r["scenario"] for r in requests if r["body"].get("tools")} == {0, 1, 2}
    (warning,) = _warnings(err)
    assert "did not answer within 1 seconds" in warning
    # every request went as gptel makes it, and every call ran unchecked
    assert len(result["calls"]) == 2 * 3


def test_a_slow_process_is_not_waited_for_again_until_it_answers() -> None:
    script = 'sleep 4; exec "$0" -m plistspec "$@"'
    # the third request comes after the process has had time to answer
    result, requests, err = _run(script, "gemini", "gemini", "gemini", "gemini", pause={2: 8})
    assert result["ask_max"] < 10, result["ask_max"]
    first = [r for r in requests if r["scenario"] == 0][0]
    last = [r for r in requests if r["scenario"] == 3][0]
    assert violations(first["body"], "gemini")  # went unchanged: plistspec was late
    assert violations(last["body"], "gemini") == []  # it answered since: lowered again
    assert len(_warnings(err)) == 1


def test_a_process_that_exits_at_once_gets_one_accurate_warning() -> None:
    script = "echo 'plistspec: broken install' >&2; exit 3"
    result, requests, err = _run(script, "gemini", "openai")
    (warning,) = _warnings(err)
    assert "exit 3" in warning and "broken install" in warning, warning
    assert "did not answer" not in err
    assert len(result["calls"]) == 2 * 2  # requests unchanged, calls unchecked
    assert result["ask_max"] < 10


def test_a_process_that_prints_garbage_gets_one_warning() -> None:
    result, requests, err = _run("echo garbage; exec sleep 1000", "gemini", "openai")
    assert len(_warnings(err)) == 1, _warnings(err)
    assert len(result["calls"]) == 2 * 2
    assert result["ask_max"] < 10
