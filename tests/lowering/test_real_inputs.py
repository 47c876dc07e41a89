"""Real inputs, every target: MCP tools/list payloads (fixtures/json) and the project's
Elisp fixtures lower with zero rule violations, idempotently, and a target's own output
lowered again for it gives the same JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import plistspec

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import FIXTURES, TARGETS, lower_ok  # noqa: E402

from plistspec.emit_json.target import to_target_json  # noqa: E402
from plistspec.fromjson.rawjson import raw_tools  # noqa: E402
from plistspec.lowering import lower_tools  # noqa: E402
from plistspec.lowering.rules import rules  # noqa: E402

JSON_INPUTS = sorted((FIXTURES / "json").glob("*.json")) + sorted(
    (FIXTURES / "json" / "lowering").glob("*.json")
)
ELISP_INPUTS = sorted((FIXTURES / "elisp").glob("*.el")) + sorted(
    (FIXTURES / "corpus").glob("*.el")
)


def _json_tools(path: Path):
    tools, diags = raw_tools(json.loads(path.read_text(encoding="utf-8")))
    assert not [d for d in diags if d.is_error]
    return tools


def _elisp_tools(path: Path):
    tools, _diags = plistspec.read_tools(path.read_text(encoding="utf-8"), str(path))
    return tools


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", JSON_INPUTS, ids=lambda p: p.name)
def test_json_fixture_lowers_cleanly(path: Path, target: str) -> None:
    tools = _json_tools(path)
    assert tools
    if rules(target)["cycle"] == "error":
        # recursion is refused (PS413, naming the $ref); the other tools lower cleanly
        _out, diags = lower_tools(tools, target)
        errors = [d for d in diags if d.is_error]
        assert all(d.code == "PS413" and "recursive" in d.message for d in errors)
        failing = {d.message.split("'")[1] for d in errors}
        tools = [t for t in tools if t["name"] not in failing]
    lower_ok(tools, target)


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("path", ELISP_INPUTS, ids=lambda p: p.name)
def test_elisp_fixture_lowers_cleanly(path: Path, target: str) -> None:
    tools = _elisp_tools(path)
    if not tools:
        pytest.skip(f"{path.name} defines no tool plistspec can read statically")
    lower_ok(tools, target)


# A recursive schema is refused by targets whose rule for cycles is "error" (tested by
# test_recursive_schema_is_an_error_for_gemini_not_for_jsonschema): no fixed point to check.
FIXED_POINT_CASES = [
    pytest.param(path, target, id=f"{path.name}-{target}")
    for path in JSON_INPUTS
    for target in TARGETS
    if not ("recursive" in path.name and rules(target)["cycle"] == "error")
]


@pytest.mark.parametrize(("path", "target"), FIXED_POINT_CASES)
def test_own_output_is_a_fixed_point(path: Path, target: str) -> None:
    """Lowering what --lower printed for a target, for the same target, changes nothing."""
    tools = _json_tools(path)
    out, _ = lower_ok(
        [t for t in tools if t["name"] != "tree" or rules(target)["cycle"] != "error"], target
    )
    first = to_target_json(out, target)
    back, diags = raw_tools(json.loads(json.dumps(first)))
    assert not [d for d in diags if d.is_error]
    again, diags = lower_tools(back, target)
    assert not [d for d in diags if d.is_error]
    assert to_target_json(again, target) == first


def test_recursive_schema_is_an_error_for_gemini_not_for_jsonschema() -> None:
    tools = _json_tools(FIXTURES / "json" / "lowering" / "mcp_recursive_tree.json")
    _out, diags = lower_tools(tools, "gemini")
    assert any(d.code == "PS413" and d.is_error and "Node" in d.message for d in diags)
    lower_ok(tools, "gemini-jsonschema")
    lower_ok(tools, "openai-strict")
    out, diags = lower_tools(tools, "anthropic-strict")
    assert out[0]["metadata"]["lowered"]["strict"] is False
    assert any(d.code == "PS426" for d in diags)
