"""``to-json --lower`` and ``from-json --target``: exit codes, placed diagnostics, envelopes,
and Elisp that the REAL gptel turns into JSON each target accepts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import FIXTURES  # noqa: E402
from _lowering_support import run_cli as run  # noqa: E402

from plistspec.fromjson.rawjson import raw_tools  # noqa: E402
from plistspec.lowering.validate import schema_violations, tool_violations  # noqa: E402

EVERYTHING = FIXTURES / "json" / "mcp_everything_server.json"


def test_lower_elisp_places_rewrites_at_the_arg() -> None:
    el = FIXTURES / "elisp" / "init.el"
    p = run("to-json", str(el), "-t", "openai-strict", "--lower")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert all(e["type"] == "function" for e in out)
    # search_notes' optional `limit` is made required+nullable, reported at its arg plist
    line = next(
        i for i, t in enumerate(el.read_text().splitlines(), 1) if '"limit"' in t and ":name" in t
    )
    assert f"{el}:{line}:" in p.stderr and "[PS425]" in p.stderr
    strict = [e["function"].get("strict") for e in out]
    assert all(s is True for s in strict)


@pytest.mark.slow
def test_lower_json_for_every_envelope() -> None:
    p = run("to-json", str(EVERYTHING), "-t", "gemini-jsonschema", "--lower")
    assert p.returncode == 0, p.stderr
    decls = json.loads(p.stdout)[0]["functionDeclarations"]
    assert all("parameters" not in d for d in decls)
    assert any("parametersJsonSchema" in d for d in decls)
    # a tool without arguments keeps its schema (issue 20: additionalProperties: false
    # and the like are not lost); only gemini's `parameters` leaves it out
    assert all("parametersJsonSchema" in d for d in decls if d["name"] == "getTinyImage")
    p = run("to-json", str(EVERYTHING), "-t", "openai-responses", "--lower")
    out = json.loads(p.stdout)
    assert all(isinstance(e["strict"], bool) for e in out)
    by_name = {e["name"]: e for e in out}
    assert by_name["echo"]["strict"] is True
    assert by_name["calendar_create_event"]["strict"] is False  # a free-form object
    assert "calendar.create_event" in p.stderr and "[PS423]" in p.stderr
    p = run("to-json", str(EVERYTHING), "-t", "openai-strict", "--lower")
    out = json.loads(p.stdout)
    assert (
        "strict" not in {e["function"]["name"]: e for e in out}["calendar_create_event"]["function"]
    )
    p = run("to-json", str(EVERYTHING), "-t", "bedrock", "--lower")
    assert all(e["toolSpec"]["description"] for e in json.loads(p.stdout))


@pytest.mark.slow
def test_lower_refuses_what_the_target_cannot_express() -> None:
    rec = FIXTURES / "json" / "lowering" / "mcp_recursive_tree.json"
    p = run("to-json", str(rec), "-t", "gemini", "--lower")
    assert p.returncode == 1 and p.stdout == ""
    assert "#/$defs/Node" in p.stderr and "[PS413]" in p.stderr
    p = run("to-json", str(rec), "-t", "gemini-jsonschema", "--lower")
    assert p.returncode == 0 and "$ref" in p.stdout


@pytest.mark.slow
def test_a_target_that_exists_only_lowered_implies_the_flag() -> None:
    """Every target `to-json --help` names works: gemini-jsonschema, openai-strict... exist
    only lowered, so -t names them without --lower too, and prints what --lower prints."""
    el = str(FIXTURES / "elisp" / "get_weather.el")
    for target in ("gemini-jsonschema", "openai-strict", "mcp-2025-06-18"):
        implied = run("to-json", el, "-t", target)
        explicit = run("to-json", el, "-t", target, "--lower")
        assert implied.returncode == 0, implied.stderr
        assert (implied.stdout, implied.stderr) == (explicit.stdout, explicit.stderr)
    p = run("to-json", el, "-t", "ir", "--lower")
    assert p.returncode == 2 and "--lower needs -t TARGET" in p.stderr


def test_from_json_target_reports_and_writes(tmp_path: Path) -> None:
    out = tmp_path / "tools.el"
    p = run("from-json", str(EVERYTHING), "--target", "gemini", "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert "[PS416]" in p.stderr  # numeric enums moved into descriptions, reported
    text = out.read_text(encoding="utf-8")
    assert ":nullable t" in text and ":const" not in text


#: backend constructor, feature, and how to find each tool's schema in what gptel sends
BACKENDS = {
    "gemini": ('(gptel-make-gemini "g" :key "k")', "gptel-gemini"),
    "openai": ('(gptel-make-openai "o" :key "k")', "gptel-openai"),
    "anthropic": ('(gptel-make-anthropic "a" :key "k")', "gptel-anthropic"),
    "ollama": ('(gptel-make-ollama "l")', "gptel-ollama"),
}


@pytest.mark.slow
@pytest.mark.emacs
@pytest.mark.parametrize("target", list(BACKENDS))
def test_real_gptel_sends_what_the_target_accepts(target, emacs, elisp_deps_dir, tmp_path):
    """MCP tools → from-json --target → the real gptel 0.9.9.5 → JSON the target accepts."""
    from support import elisp_deps_preamble

    out = tmp_path / "tools.el"
    p = run("from-json", str(EVERYTHING), "--target", target, "-o", str(out))
    assert p.returncode == 0, p.stderr
    make, feature = BACKENDS[target]
    code = (
        elisp_deps_preamble(elisp_deps_dir)
        + f"(require 'gptel) (require '{feature})\n"
        + "(defvar pt-tools nil)\n"
        + "(advice-add 'gptel-make-tool :filter-return (lambda (tl) (push tl pt-tools) tl))\n"
        + f'(load "{out.as_posix()}" nil t)\n'
        + f"(princ (gptel--json-encode (gptel--parse-tools {make} (reverse pt-tools))))\n"
    )
    sent = json.loads(emacs.run(code))
    tools, diags = raw_tools(sent)
    assert not [d for d in diags if d.is_error]
    assert len(tools) == 10
    for t in tools:
        if t["parameters"] is None:  # a Gemini declaration without arguments
            assert target == "gemini" and t["name"] == "getTinyImage"
        else:
            assert not schema_violations(t["parameters"], target, wire=True), t["name"]
        assert not tool_violations(t["name"], t["description"], target), t["name"]


_SCHEMA = {
    "type": "object",
    "properties": {
        "limit": {"type": "integer", "exclusiveMinimum": 0},
        "mode": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "additionalProperties": False,
}


@pytest.mark.slow
@pytest.mark.parametrize(
    "value",
    [
        {"tools": [{"name": "t", "description": "T.", "inputSchema": _SCHEMA}]},
        [
            {
                "type": "function",
                "function": {"name": "t", "description": "T.", "parameters": _SCHEMA},
            }
        ],
        {
            "functionDeclarations": [
                {"name": "t", "description": "T.", "parametersJsonSchema": _SCHEMA}
            ]
        },
        {"toolSpec": {"name": "t", "description": "T.", "inputSchema": {"json": _SCHEMA}}},
    ],
    ids=["mcp", "openai", "gemini", "bedrock"],
)
def test_lower_json_places_rewrites_in_the_json(tmp_path: Path, value: object) -> None:
    """Each rewrite of JSON input prints as FILE:LINE:COL at the schema node it rewrote:
    the IR's /parameters is the input's parameter schema, wherever the envelope puts it."""
    f = tmp_path / "tools.json"
    text = json.dumps(value, indent=2)
    f.write_text(text, encoding="utf-8")
    p = run("to-json", str(f), "-t", "gemini", "--lower")
    assert p.returncode == 0, p.stderr
    lines = text.splitlines()
    want = {
        "/parameters/properties/limit": next(i for i, t in enumerate(lines, 1) if '"limit"' in t),
        "/parameters/properties/mode": next(i for i, t in enumerate(lines, 1) if '"mode"' in t),
    }
    seen = set()
    for line in p.stderr.splitlines():
        for ptr, n in want.items():
            if f", {ptr}:" in line:
                assert line.startswith(f"{f}:{n}:"), (line, text)
                seen.add(ptr)
        assert line.startswith(f"{f}:") and line.split(":")[1].isdigit(), line
    assert seen == set(want), p.stderr


@pytest.mark.slow
def test_lower_json_at_any_depth_and_bad_json_placed(tmp_path: Path) -> None:
    """to-json --lower reads tool JSON as from-json does: nested 3 000 deep it lowers and
    prints it (no RecursionError, no "invalid JSON"), and invalid JSON is an error at its
    FILE:LINE:COL."""
    n = 3000
    schema = '{"type": "object", "properties": {"p": ' * n + '{"type": "string"}' + "}}" * n
    f = tmp_path / "deep.json"
    f.write_text(
        '{"tools": [{"name": "deep", "description": "D.", "inputSchema": ' + schema + "}]}"
    )
    p = run("to-json", str(f), "-t", "gemini", "--lower")
    assert p.returncode == 0, p.stderr[-500:]
    assert "internal error" not in p.stderr and "invalid JSON" not in p.stderr
    assert '"name": "deep"' in p.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"tools": [1,\n }')
    p = run("to-json", str(bad), "-t", "gemini", "--lower")
    assert p.returncode == 1
    assert p.stderr.startswith(f"{bad}:2:2: error: invalid JSON"), p.stderr
