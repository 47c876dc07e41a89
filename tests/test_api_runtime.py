"""plistspec.lower and plistspec.check_call (issue 27 §4): the run-time engine of
plistspec-gptel-mode for Python, with the contract of a call (issue 27 §1): the schema
the tool declared judges it, after mapping back from the lowered schema the model saw.

The mode's own cases are the data here: the tools of tests/gptel_mode/harness.el (read
with plistspec.read_tools) and the MCP fixtures it registers, and the VALID, INVALID and
STRICT_CALLS of tests/gptel_mode/test_gptel_mode.py, on the five backends it runs; the
API's verdicts are compared with the mode's engine (plistspec.calls.toolset) on the
JSON gptel sends (plistspec.to_provider: gptel's exact replay)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import plistspec
from plistspec.calls.toolset import Toolsets
from plistspec.cli import main
from plistspec.core.formats import LOWER_TARGETS

ROOT = Path(__file__).resolve().parent.parent
MODE = ROOT / "tests" / "gptel_mode"
MCP_SERVERS = ["everything", "filesystem", "github", "playwright"]


def _mode_cases() -> Any:
    """tests/gptel_mode/test_gptel_mode.py as a module (its data: VALID, INVALID...)."""
    sys.path.insert(0, str(MODE))  # it imports its helpers from its folder
    try:
        spec = importlib.util.spec_from_file_location(
            "_gptel_mode_cases", MODE / "test_gptel_mode.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(MODE))


CASES = _mode_cases()
BACKENDS = list(CASES.BACKENDS)


@pytest.fixture(scope="module")
def tools() -> dict[str, Any]:
    """name → IR tool: the harness's hand-written tools and the MCP fixtures' tools."""
    found, diags = plistspec.read_tools((MODE / "harness.el").read_text(), path="harness.el")
    assert not [d for d in diags if d.is_error]
    out: dict[str, Any] = {t["name"]: t for t in found}
    for server in MCP_SERVERS:
        value = json.loads((ROOT / "fixtures" / "json" / f"mcp_{server}_server.json").read_text())
        for t in value.get("result", value)["tools"]:  # a tools/list result or its response
            out[t["name"]] = t  # an MCP Tool as the server lists it
    return out


# --- the mode's cases ------------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_modes_valid_calls_run_and_invalid_ones_are_refused(tools, backend: str) -> None:
    for name, args in CASES.VALID:
        got = plistspec.check_call(tools[name], backend, json.dumps(args))
        assert got.ok and got.problems == [] and got.message is None, (backend, name, got)
        assert got.arguments == args, (backend, name)  # nothing to map back in these
    for name, args in CASES.INVALID:
        got = plistspec.check_call(tools[name], backend, json.dumps(args))
        assert not got.ok and got.problems, (backend, name)
        assert got.message.startswith(f"Error: tool {got.name} was not run: its arguments")
    weather = plistspec.check_call(tools["get_weather"], backend, '{"unit": "kelvin"}')
    assert "/location: missing (required)" in weather.message
    assert '/unit: expected one of "celsius"' in weather.message


def test_strict_mode_nulls_are_mapped_back_as_the_mode_maps_them(tools) -> None:
    """The mode's STRICT_CALLS: the function got ``((:title "t") nil)`` and ``("Paris" nil)``."""
    calls = dict(CASES.STRICT_CALLS)
    item = plistspec.check_call(
        tools["create_item"], "openai-responses", json.dumps(calls["create_item"])
    )
    assert item.ok and item.arguments == {"item": {"title": "t"}}
    weather = plistspec.check_call(
        tools["get_weather"], "openai-responses", json.dumps(calls["get_weather"])
    )
    assert weather.ok and weather.arguments == {"location": "Paris"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_api_and_the_modes_engine_agree_on_the_modes_calls(tools, backend: str) -> None:
    names = sorted({n for n, _ in CASES.VALID + CASES.INVALID})
    sent = plistspec.to_provider([_ir(tools[n]) for n in names], backend)
    assert not [d for d in sent.diagnostics if d.is_error]
    ts = Toolsets()
    answer = ts.lower(backend, json.dumps(sent.value))
    by_original = {names[i]: tool_id for i, _name, tool_id in answer["sent"]}
    assert len(by_original) == len(names), answer["left_out"]
    for name, args in CASES.VALID + CASES.INVALID:
        mode = ts.call(by_original[name], json.dumps(args))
        api = plistspec.check_call(tools[name], backend, json.dumps(args))
        assert mode["ok"] == api.ok, (backend, name, args, mode, api)
        if not api.ok:  # every problem the API names, the mode names (its extras: §1)
            assert {p.pointer for p in api.problems} <= {p[0] for p in mode["problems"]}


def _ir(tool: dict[str, Any]) -> dict[str, Any]:
    if "parameters" in tool:
        return tool
    got, _ = plistspec.from_provider([tool])
    return got[0]


# --- the contract ----------------------------------------------------------------------------

LEVEL = {
    "type": "function",
    "name": "set_level",
    "description": "Set the level.",
    "parameters": {
        "type": "object",
        "properties": {
            "level": {"type": "integer", "enum": [1, 2, 3]},
            "step": {"type": "integer", "exclusiveMinimum": 0},
            "size": {"type": "number", "multipleOf": 5},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "mode": {"type": ["string", "null"], "enum": ["fast", "slow", None]},
            "note": {"type": "string", "minLength": 3},
        },
        "required": ["level"],
    },
}

# (target, arguments that break a constraint the lowering moved into the description,
#  the JSON pointer of the one problem)
MOVED = [
    ("gemini", {"level": 5}, "/level"),
    ("gemini", {"level": 1, "step": 0}, "/step"),
    ("gemini", {"level": 1, "size": 7}, "/size"),
    ("gemini", {"level": 1, "tags": ["a", "a"]}, "/tags"),
    ("openai-responses", {"level": 1, "note": "ab"}, "/note"),
    ("openai-responses", {"level": 1, "tags": ["a", "a"]}, "/tags"),
]


@pytest.mark.parametrize("target,args,pointer", MOVED)
def test_a_constraint_moved_into_the_description_is_still_enforced(
    target: str, args: dict, pointer: str
) -> None:
    lowered = plistspec.lower([LEVEL], target)
    node = lowered.tools[0]["parameters"]["properties"][pointer[1:]]
    assert "(" in node.get("description", ""), node  # the lowering did move it
    got = plistspec.check_call(LEVEL, target, json.dumps(args))
    assert not got.ok
    assert [p.pointer for p in got.problems] == [pointer]
    assert f"- {pointer}: expected" in got.message


@pytest.mark.parametrize("target,args,pointer", MOVED)
def test_the_modes_engine_enforces_a_moved_constraint_too(
    target: str, args: dict, pointer: str
) -> None:
    """The same contract held of plistspec.calls.toolset, which plistspec-gptel-mode asks
    today: such calls run (issue 27 §1, "today such calls run")."""
    ts, tool_id = _lowered_by_the_mode(LEVEL, target)
    answer = ts_call(ts, tool_id, args)
    assert answer["ok"] is False and {p[0] for p in answer["problems"]} == {pointer}


def _lowered_by_the_mode(tool: dict, target: str) -> tuple[Toolsets, str]:
    ts = Toolsets()
    sent = plistspec.to_provider([tool], target).value
    answer = ts.lower(target, json.dumps(sent))
    return ts, answer["sent"][0][2]


def ts_call(ts: Toolsets, tool_id: str, args: Any) -> dict:
    return ts.call(tool_id, json.dumps(args))


def test_the_modes_engine_names_one_problem_for_one_wrong_value_on_responses() -> None:
    ts, tool_id = _lowered_by_the_mode(LEVEL, "openai-responses")
    assert {p[0] for p in ts_call(ts, tool_id, {"level": "two"})["problems"]} == {"/level"}


@pytest.mark.parametrize("target", ["openai-responses", "openai-strict", "anthropic-strict"])
def test_one_wrong_value_is_one_problem_in_strict_mode(target: str) -> None:
    got = plistspec.check_call(LEVEL, target, '{"level": "two"}')
    assert {p.pointer for p in got.problems} == {"/level"}, got.problems
    assert "missing" not in got.message


def test_a_nullable_enum_made_nullable_for_gemini_keeps_its_values() -> None:
    lowered = plistspec.lower([LEVEL], "gemini").tools[0]["parameters"]["properties"]["mode"]
    assert lowered == {"type": "string", "enum": ["fast", "slow"], "nullable": True}
    assert plistspec.check_call(LEVEL, "gemini", '{"level": 1, "mode": null}').ok
    got = plistspec.check_call(LEVEL, "gemini", '{"level": 1, "mode": "medium"}')
    assert [p.pointer for p in got.problems] == ["/mode"]


def test_valid_calls_run_with_their_arguments_in_the_declared_shape() -> None:
    args = {"level": 2, "step": 1, "size": 10, "tags": ["a", "b"], "mode": None, "note": "abc"}
    for target in LOWER_TARGETS:
        got = plistspec.check_call(LEVEL, target, json.dumps(args))
        assert got.ok and got.arguments == args, (target, got)
    strict = plistspec.check_call(
        LEVEL,
        "openai-strict",
        '{"level": 1, "step": null, "size": null, "tags": null, "mode": null, "note": null}',
    )  # what strict mode makes a model send for the optional ones
    assert strict.ok and strict.arguments == {"level": 1, "mode": None}  # mode takes null


def test_what_only_the_lowering_added_never_refuses_a_call() -> None:
    """Strict mode closes every object (additionalProperties: false): the tool's own
    schema does not, so an extra argument runs (as gptel alone runs it on Anthropic)."""
    for target in ("openai-strict", "openai-responses", "anthropic-strict", "gemini"):
        got = plistspec.check_call(LEVEL, target, '{"level": 1, "extra": true}')
        assert got.ok and got.arguments == {"level": 1, "extra": True}, target
    closed = dict(LEVEL, parameters=dict(LEVEL["parameters"], additionalProperties=False))
    got = plistspec.check_call(closed, "anthropic", '{"level": 1, "extra": true}')
    assert not got.ok and got.problems[0].keyword == "additionalProperties"  # the tool's own


def test_arguments_that_are_not_json_are_one_problem_said_as_such() -> None:
    got = plistspec.check_call(LEVEL, "openai", '{"level": 1')
    assert not got.ok and got.arguments is None and len(got.problems) == 1
    assert "invalid JSON" in got.message and "missing" not in got.message
    raw = plistspec.check_call(LEVEL, "openai", b'{"level": "\xff"}')
    assert not raw.ok and "invalid UTF-8" in raw.message
    assert plistspec.check_call(LEVEL, "openai", b'{"level": 3}').ok
    assert plistspec.check_call(LEVEL, "openai", {"level": 3}).ok  # a parsed value
    nothing = {"type": "function", "name": "n", "description": "d", "parameters": {}}
    for empty in ("", "null", "{}", None):
        assert plistspec.check_call(nothing, "gemini", empty).ok, empty


def test_the_message_uses_the_name_the_model_called() -> None:
    dotted = dict(LEVEL, name="fs.level")
    got = plistspec.check_call(dotted, "openai", '{"level": 9}')
    assert got.name == "fs_level" and "tool fs_level was not run" in got.message
    assert plistspec.check_call(dotted, "mcp", '{"level": 9}').name == "fs.level"


def test_any_tool_json_is_a_tool() -> None:
    mcp = {"name": "w", "description": "d", "inputSchema": LEVEL["parameters"]}
    chat = {"type": "function", "function": {**mcp, "parameters": LEVEL["parameters"]}}
    for tool in (mcp, chat):
        assert not plistspec.check_call(tool, "gemini", '{"level": 5}').ok
        assert plistspec.check_call(tool, "gemini", '{"level": 3}').ok


def test_what_no_model_could_call_is_a_value_error() -> None:
    loop = {
        "type": "function",
        "name": "tree",
        "description": "d",
        "parameters": {
            "type": "object",
            "properties": {"node": {"$ref": "#/$defs/N"}},
            "$defs": {
                "N": {
                    "type": "object",
                    "properties": {"kids": {"items": {"$ref": "#/$defs/N"}, "type": "array"}},
                }
            },
        },
    }
    with pytest.raises(ValueError, match="not sent to gemini.*recursive"):
        plistspec.check_call(loop, "gemini", "{}")
    assert plistspec.check_call(loop, "gemini-jsonschema", '{"node": {"kids": [{}]}}').ok
    with pytest.raises(ValueError, match="unknown target 'gemeni'"):
        plistspec.check_call(LEVEL, "gemeni", "{}")
    with pytest.raises(ValueError, match="one tool"):
        plistspec.check_call([LEVEL, LEVEL], "gemini", "{}")


# --- lower: to-json -t T --lower as a function ------------------------------------------------


@pytest.mark.parametrize("target", ["gemini", "openai-strict", "openai-responses", "ollama"])
def test_lower_is_to_json_lower(tmp_path: Path, target: str) -> None:
    for name in ("mcp_github_server.json", "mcp_everything_server.json"):
        src = ROOT / "fixtures" / "json" / name
        cli = CliRunner().invoke(main, ["to-json", "-t", target, "--lower", str(src)])
        assert cli.exit_code == 0, cli.output
        got = plistspec.lower(json.loads(src.read_text()), target)
        assert got.value == json.loads(cli.stdout)
        assert [d.code for d in got.diagnostics] == [d["code"] for d in _json_report(target, src)]
    el = ROOT / "fixtures" / "elisp" / "get_weather.el"
    cli = CliRunner().invoke(main, ["to-json", "-t", target, "--lower", str(el)])
    tools, _ = plistspec.read_tools(el.read_bytes(), path=str(el))
    assert plistspec.lower(tools, target).value == json.loads(cli.stdout)


def _json_report(target: str, src: Path) -> list[dict]:
    r = CliRunner().invoke(
        main, ["to-json", "-t", target, "--lower", "--output-format", "json", str(src)]
    )
    return json.loads(r.stderr) if r.stderr.strip() else []


def test_lower_reports_every_rewrite_and_refuses_or_leaves_out_what_cannot_be_sent() -> None:
    loop = {
        "name": "tree",
        "inputSchema": {
            "type": "object",
            "properties": {"n": {"$ref": "#/$defs/N"}},
            "$defs": {"N": {"type": "object", "properties": {"k": {"$ref": "#/$defs/N"}}}},
        },
    }
    both = [{"name": "lvl", "inputSchema": LEVEL["parameters"]}, loop]
    whole = plistspec.lower(both, "gemini")
    assert whole.value is None
    assert {d.code for d in whole.diagnostics} >= {"PS413", "PS416", "PS419", "PS414"}
    assert all(d.effect for d in whole.diagnostics if d.code in ("PS416", "PS419"))
    part = plistspec.lower(both, "gemini", partial=True)
    assert [d["name"] for d in part.value[0]["functionDeclarations"]] == ["lvl"]
    assert [t["name"] for t in part.tools] == ["lvl"]
    assert plistspec.lower([], "openai").value == []
    with pytest.raises(ValueError, match="unknown target"):
        plistspec.lower(both, "vertex")  # an emitter format, not a lowering target


def test_the_results_unpack_as_the_issue_names_them() -> None:
    """lower: (provider JSON, rewrites); check_call: (ok, arguments, problems, message)."""
    value, rewrites = plistspec.lower([LEVEL], "gemini")
    assert value[0]["functionDeclarations"][0]["name"] == "set_level" and rewrites
    assert plistspec.lower([LEVEL], "gemini").tools[0]["metadata"]["lowered"]["target"] == "gemini"
    ok, arguments, problems, message = plistspec.check_call(
        LEVEL, target="openai-strict", arguments='{"level": 1, "note": null}'
    )
    assert (ok, arguments, problems, message) == (True, {"level": 1}, [], None)
    refused = plistspec.check_call(dict(LEVEL, name="a.b"), "openai", '{"level": 0}')
    assert refused.name == "a_b" and refused.unchecked is None and not refused.ok


def test_a_schema_the_validator_cannot_use_lets_the_call_run_and_says_why() -> None:
    odd = {
        "name": "a",
        "description": "d",
        "parameters": {
            "type": "object",
            "properties": {"x": {"type": "string", "pattern": "(?<=a+)b"}},
        },
    }
    got = plistspec.check_call(odd, "anthropic", '{"x": "zz"}')
    assert got.ok and got.arguments == {"x": "zz"} and "look-behind" in got.unchecked


@pytest.mark.slow
def test_a_pattern_cannot_stall_the_checker() -> None:
    """Issue 27 §1: "^(a+)+$" against 34 a's and a "!" backtracks for hours in Python's
    re; one validation must be bounded (answered, checked or not, well within 15 s)."""
    import subprocess

    code = (
        "import plistspec\n"
        "t = {'name': 'r', 'description': 'd', 'parameters': {'type': 'object', "
        "'properties': {'s': {'type': 'string', 'pattern': '^(a+)+$'}}}}\n"
        "print(plistspec.check_call(t, 'openai', {'s': 'a' * 34 + '!'}).ok)\n"
    )
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=15)
    except subprocess.TimeoutExpired:
        raise AssertionError("one call's validation ran past 15 s") from None
    assert r.returncode == 0, r.stderr
