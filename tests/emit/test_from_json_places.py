"""from-json's diagnostics on JSON input print as FILE:LINE:COL: one that names a JSON
pointer at that value, one about a tool at the tool's object, one about a property of a
tool at that property of the tool's parameter schema; in every format, through the
command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

# one tool per format, each with a property llm drops keys of (PS520 with -d llm)
SCHEMA = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 1, "description": "How many."},
        "q": {"type": "string", "description": "Query."},
    },
    "required": ["q"],
}
FORMATS = {
    "mcp": {"tools": [{"name": "t", "description": "T.", "inputSchema": SCHEMA}]},
    "openai": [
        {"type": "function", "function": {"name": "t", "description": "T.", "parameters": SCHEMA}}
    ],
    "anthropic": [{"name": "t", "description": "T.", "input_schema": SCHEMA}],
    "gemini": {"functionDeclarations": [{"name": "t", "description": "T.", "parameters": SCHEMA}]},
    "bedrock": {
        "tools": [{"toolSpec": {"name": "t", "description": "T.", "inputSchema": {"json": SCHEMA}}}]
    },
}

_LINE = re.compile(r"^(?P<file>[^\n]*?):(?P<line>\d+):(?P<col>\d+): (?P<sev>\w+): (?P<msg>.*)$")


def _run(tmp_path: Path, value: object, *args: str) -> tuple[str, list[str]]:
    from click.testing import CliRunner

    from plistspec.cli import main

    text = json.dumps(value, indent=2)
    f = tmp_path / "tools.json"
    f.write_text(text, encoding="utf-8")
    r = CliRunner().invoke(main, ["from-json", str(f), "-o", str(tmp_path / "out.el"), *args])
    assert r.exit_code == 0, r.output
    return text, [line for line in r.stderr.splitlines() if line]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_property_diagnostics_point_at_the_property(tmp_path: Path, fmt: str) -> None:
    text, lines = _run(tmp_path, FORMATS[fmt], "-d", "llm")
    dropped = [line for line in lines if "property 'count'" in line]
    assert dropped, lines
    count_line = next(
        i for i, x in enumerate(text.splitlines(), 1) if '"count": {' in x
    )  # the property's own line
    for line in dropped:
        m = _LINE.match(line)
        assert m is not None, line
        assert int(m["line"]) == count_line, (line, text)


def test_every_diagnostic_of_a_tool_has_a_place(tmp_path: Path) -> None:
    value = {
        "tools": [
            {"name": "ok", "description": "Fine.", "inputSchema": {"type": "object"}},
            {
                "name": "root",
                "description": "Root keys gptel and llm have no place for.",
                "inputSchema": dict(SCHEMA, additionalProperties=False, title="Root"),
            },
        ]
    }
    text, lines = _run(tmp_path, value, "-d", "llm")
    assert lines
    for line in lines:
        m = _LINE.match(line)
        assert m is not None, line  # FILE:LINE:COL, never FILE: alone
        if "'root'" in m["msg"] and "property" not in m["msg"]:
            # at the tool's object or inside it
            start = next(i for i, x in enumerate(text.splitlines(), 1) if '"name": "root"' in x)
            assert start - 1 <= int(m["line"]) <= len(text.splitlines()), (line, text)


def test_tools_sharing_a_name_are_not_guessed(tmp_path: Path) -> None:
    """Two tools with one name: a diagnostic naming it could be about either, so it keeps
    no position rather than a wrong one."""
    tool = {"name": "same", "description": "S.", "inputSchema": SCHEMA}
    _, lines = _run(tmp_path, {"tools": [tool, dict(tool, description="Other.")]}, "-d", "llm")
    about = [line for line in lines if "tool 'same': property" in line]
    assert about and all(_LINE.match(line) is None for line in about), lines


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_target_rewrites_point_at_the_node(tmp_path: Path, fmt: str) -> None:
    """from-json --target: each lowering rewrite prints at the schema node it rewrote."""
    value = json.loads(json.dumps(FORMATS[fmt]).replace('"minimum": 1', '"exclusiveMinimum": 0'))
    text, lines = _run(tmp_path, value, "--target", "gemini")
    rewrites = [line for line in lines if "/parameters/properties/count" in line]
    assert rewrites, lines
    count_line = next(i for i, x in enumerate(text.splitlines(), 1) if '"count": {' in x)
    for line in rewrites:
        m = _LINE.match(line)
        assert m is not None and int(m["line"]) == count_line, (line, text)


def test_awkward_names_are_placed(tmp_path: Path) -> None:
    """Tool and property names holding ": ", quotes, "/", "~" and backslashes (their
    labels are Python reprs, their pointers escaped) are placed like any other."""
    props = {
        "a/b~c": {"type": "integer", "minimum": 1},
        "it's": {"type": "string", "format": "uri"},
        'q"uote\\': {"type": "number", "maximum": 3},
    }
    value = {
        "tools": [
            {
                "name": 'it\'s: "odd"/~',
                "description": "x",
                "inputSchema": {"type": "object", "properties": props},
            }
        ]
    }
    text, lines = _run(tmp_path, value, "-d", "llm")
    assert len(lines) == 3, lines
    rows = text.splitlines()
    for line, key in zip(lines, props, strict=True):
        m = _LINE.match(line)
        assert m is not None, line
        assert json.dumps(key) + ": {" in rows[int(m["line"]) - 1], (line, key)


def test_a_tool_renamed_for_the_target_is_placed(tmp_path: Path) -> None:
    """--target may rename a tool (``fs.read`` is ``fs_read`` for OpenAI): what the writer
    then says of ``'fs_read'`` is placed at the tool it came from."""
    value = {
        "tools": [
            {
                "name": "fs.read",
                "description": "Read.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"path": {"type": "string", "minimum": 1}},
                    "additionalProperties": False,
                },
            }
        ]
    }
    text, lines = _run(tmp_path, value, "--target", "openai-strict", "-d", "llm")
    assert any("'fs_read'" in line for line in lines), lines
    for line in lines:
        assert _LINE.match(line) is not None, line


def test_lower_json_places_what_it_skips(tmp_path: Path) -> None:
    """to-json --lower: an element that is not a function tool is skipped where it is."""
    from click.testing import CliRunner

    from plistspec.cli import main

    value = [
        {"type": "function", "name": "f", "description": "F.", "parameters": SCHEMA},
        {"type": "web_search_preview"},
    ]
    f = tmp_path / "tools.json"
    f.write_text(json.dumps(value, indent=2), encoding="utf-8")
    r = CliRunner().invoke(main, ["to-json", str(f), "-t", "gemini", "--lower"])
    assert r.exit_code == 0, r.output
    skipped = [line for line in r.stderr.splitlines() if "PS429" in line and "element 2" in line]
    assert skipped and _LINE.match(skipped[0]) is not None, r.stderr
    rows = f.read_text().splitlines()
    assert '"web_search_preview"' in "".join(rows[int(_LINE.match(skipped[0])["line"]) - 1 :][:3])
