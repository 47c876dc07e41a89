"""from-json on real MCP servers' tool lists: everything the gptel dialect carries comes
back (to-json -t mcp), idempotence through the IR, JSON pointers located in the
text, and error messages that say what was expected and where."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plistspec.api import read_tools
from plistspec.core.jsonpos import pointer_span
from plistspec.emit_elisp import to_elisp
from plistspec.emit_json import emit
from plistspec.fromjson.detect import from_json

ROOT = Path(__file__).resolve().parents[2]
JSON = ROOT / "fixtures" / "json"
SERVERS = sorted(JSON.glob("mcp_*_server.json")) + [JSON / "mcp_fastmcp_pydantic.json"]


def _tools_of(raw: dict) -> list[dict]:
    return (raw.get("result") or raw)["tools"]


def _reread(text: str) -> list[dict]:
    tools, diags = read_tools(text, "t.el")
    assert not any(d.is_error for d in diags), [d.render() for d in diags]
    return tools


@pytest.mark.parametrize("path", SERVERS, ids=lambda p: p.name)
def test_mcp_server_round_trip_keeps_every_schema_keyword(path: Path) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    tools, diags = from_json(raw)
    assert not any(d.is_error for d in diags)
    text, wdiags = to_elisp(tools, "gptel")
    assert not [d for d in wdiags if d.severity == "error"]
    back, _ = emit(_reread(text), "mcp")
    originals = _tools_of(raw)
    assert [t["name"] for t in back] == [t["name"] for t in originals]
    for got, orig in zip(back, originals, strict=True):
        assert got["description"] == orig["description"]
        schema = orig["inputSchema"]
        if "$defs" in schema:
            continue  # inlined: checked below
        # an empty "required" means the same as none (the IR leaves it out)
        want = {k: schema[k] for k in ("type", "properties", "required") if schema.get(k, []) != []}
        assert got["inputSchema"] == want


def test_refs_are_inlined_and_nullable_types_kept() -> None:
    raw = json.loads((JSON / "mcp_fastmcp_pydantic.json").read_text(encoding="utf-8"))
    tools, diags = from_json(raw)
    text, _ = to_elisp(tools, "gptel")
    (search, close) = emit(_reread(text), "mcp")[0]
    props = search["inputSchema"]["properties"]
    flt = props["filter"]["anyOf"]
    assert flt[1] == {"type": "null"} and props["filter"]["default"] is None
    assert flt[0]["properties"]["created"]["required"] == ["from", "to"]
    assert props["sort"] == {
        "type": "string",
        "enum": ["newest", "oldest", "priority"],
        "title": "Sort",
        "default": "newest",
    }
    assert props["tags"]["items"]["properties"]["key"] == {"type": "string", "title": "Key"}
    assert list(props) == list(
        _tools_of(raw)[0]["inputSchema"]["properties"]
    )  # odd names: x-request-id, page.size, "sort order", $cursor
    assert props["$cursor"]["type"] == ["string", "null"]
    assert search["inputSchema"]["required"] == ["query", "tags"]
    # the destructive MCP tool asks for confirmation in gptel
    assert ":confirm t" in text.split(':name "close_ticket"')[1]
    assert ';; MCP title: "Search tickets"' in text
    codes = {d.code for d in diags}
    assert {"PS503", "PS505"} <= codes  # _meta, root title: named, not silently lost


@pytest.mark.parametrize("path", sorted(JSON.glob("*.json")), ids=lambda p: p.name)
def test_from_json_through_the_ir_is_stable(path: Path) -> None:
    """from-json X | to-json -t ir | from-json gives the same file (less the MCP
    comments, which no gptel slot carries), and the next round is a fixed point."""
    tools, diags = from_json(json.loads(path.read_text(encoding="utf-8")))
    if any(d.is_error for d in diags):
        # only the recursive $ref fixture: an error naming the cycle, the others still go on
        assert {d.code for d in diags if d.is_error} == {"PS510"} and tools
        tools = [t for t in tools if t["name"] != "tree"]
    first, wdiags = to_elisp(tools, "gptel")
    ir, _ = emit(_reread(first), "ir")
    second, _ = to_elisp(from_json(json.loads(json.dumps(ir)))[0], "gptel")
    strip = [line for line in first.split("\n") if not line.startswith(";; MCP ")]
    if not [d for d in wdiags if d.severity == "warning" and d.code != "PS524"]:
        assert second == "\n".join(strip)
    else:  # what the first round could not carry was reported; it is stable from then on
        assert "PS521" in {d.code for d in wdiags}
    ir2, _ = emit(_reread(second), "ir")
    assert to_elisp(from_json(ir2)[0], "gptel")[0] == second


def test_pointer_span_finds_values_in_the_text() -> None:
    text = '{"tools": [\n  {"name": "a", "x": [1, {"k": "v\\"}"}]},\n  {"a/b": {"~": true}}\n]}'
    value = json.loads(text)

    def at(ptr: str) -> str:
        span = pointer_span(text, ptr)
        assert span is not None
        return text[span[0] : span[1]]

    assert json.loads(at("/tools/0/x/1")) == value["tools"][0]["x"][1]
    assert at("/tools/0/x/1/k") == '"v\\"}"'
    assert at("/tools/1/a~1b/~0") == "true"
    assert json.loads(at("")) == value
    assert at("/tools/0/missing") == at("/tools/0")  # deepest existing prefix
    dup = '{"a": 1, "a": 2}'
    assert pointer_span(dup, "/a") == (dup.rindex("2"), dup.rindex("2") + 1)  # last wins


def _cli(*args: str, stdin: str | None = None):
    from click.testing import CliRunner

    from plistspec.cli import main

    return CliRunner().invoke(main, list(args), input=stdin)


def test_errors_say_where_and_what_was_expected() -> None:
    r = _cli("from-json", "-", "--stdin-filename", "t.json", stdin='{"tools": [\n {"nme": "y"}]}')
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith("t.json:2:2: error: not a tool definition")
    assert "at /tools/0" in r.stderr and 'MCP {"name",…,"inputSchema"}' in r.stderr
    r = _cli("from-json", "-", stdin='{"name": "x", "input-schema": {}}')
    assert 'did you mean "input_schema"' in r.stderr
    r = _cli("from-json", "-", stdin='[{"name": "x", "description": "d"}]')
    assert "no parameter schema" in r.stderr and "--from gemini" in r.stderr
    assert _cli("from-json", "-", "--from", "gemini", stdin='[{"name": "x"}]').exit_code == 0
    r = _cli("from-json", "-", stdin='{"tools": [\n  {"name": "a",}\n]}')
    assert r.exit_code == 1 and r.stderr.startswith("<stdin>:2:16: error: invalid JSON")


def test_repeated_notes_are_merged() -> None:
    path = JSON / "mcp_playwright_server.json"
    r = _cli("from-json", str(path))
    assert r.exit_code == 0
    notes = [line for line in r.stderr.splitlines() if "PS505" in line]
    assert len(notes) == 2 and "and 1 more" in notes[0] and "$schema" in notes[0]
    # the tool without arguments: gptel adds nothing back there, and the note says so
    assert "'browser_snapshot'" in notes[1] and "without arguments" in notes[1]
