"""Issue 19: the same input gets the same bound and the same linear walk on every path.

``$ref`` chains and "billion laughs" bombs through ``to-json --lower`` (JSON input),
``from-json --target`` and the library's ``lower_tools`` (what ``serve --lower`` runs):
one diagnostic per rewrite kind and input node (not per expansion: a chain of N links
reports about N, never N²), a bomb refused with PS519 as from-json refuses it, and
schemas nested thousands deep in ``not``, ``additionalProperties`` or an enum value
lowered without a RecursionError (PS903). Counts, not times: the times are
``bench/bench_lower.py``'s.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import run_cli  # noqa: E402

from plistspec.core.jsonout import dumps  # noqa: E402
from plistspec.lowering import TARGETS, lower_tools  # noqa: E402


def _tool(schema: dict[str, Any], name: str = "t") -> dict[str, Any]:
    return {"type": "function", "name": name, "description": "d", "parameters": schema}


def chain(n: int) -> dict[str, Any]:
    defs = {
        f"D{i}": {"type": "object", "properties": {"n": {"$ref": f"#/$defs/D{i + 1}"}}}
        for i in range(n)
    }
    defs[f"D{n}"] = {"type": "string"}
    return {"type": "object", "properties": {"a": {"$ref": "#/$defs/D0"}}, "$defs": defs}


def bomb(levels: int = 40, beside: bool = False) -> dict[str, Any]:
    """Each definition uses the one before twice (``beside``: with a description next to
    each ``$ref``, which strict mode and gemini-jsonschema must inline)."""
    defs: dict[str, Any] = {"L0": {"type": "string", "enum": ["x", "y"]}}
    for i in range(1, levels + 1):
        ref: dict[str, Any] = {"$ref": f"#/$defs/L{i - 1}"}
        if beside:
            ref["description"] = "d"
        defs[f"L{i}"] = {"type": "object", "properties": {"a": ref, "b": dict(ref)}}
        if beside:
            defs[f"L{i}"]["required"] = ["a", "b"]
    return {"type": "object", "properties": {"x": {"$ref": f"#/$defs/L{levels}"}}, "$defs": defs}


@pytest.mark.parametrize("target", TARGETS)
def test_a_chain_reports_once_per_node(target: str) -> None:
    n = 300
    _out, diags = lower_tools([_tool(chain(n))], target)
    assert not [d for d in diags if d.is_error], [d.message for d in diags if d.is_error][:3]
    # per link: at most a few rewrites (inlined, closed, made nullable...), never n per link
    assert len(diags) <= 4 * n + 10, len(diags)
    inlined = [d for d in diags if d.code == "PS412" and "inlined $ref" in d.message]
    assert len(inlined) <= n + 1


def test_a_definition_used_many_times_is_reported_once() -> None:
    props = {f"p{i}": {"$ref": "#/$defs/N"} for i in range(50)}
    schema = {
        "type": "object",
        "properties": props,
        "$defs": {"N": {"type": "integer", "enum": [1, 2]}},
    }
    _out, diags = lower_tools([_tool(schema)], "gemini")
    moved = [d for d in diags if d.code == "PS416"]
    assert len(moved) == 1, [d.message for d in moved]
    assert "/$defs/N" in moved[0].message  # reported where it is in the input


@pytest.mark.parametrize("target", ["gemini", "ollama", "mcp-2025-06-18", "gemini-jsonschema"])
def test_a_bomb_is_refused_as_from_json_refuses_it(target: str) -> None:
    _out, diags = lower_tools([_tool(bomb(beside=target == "gemini-jsonschema"))], target)
    assert "PS519" in {d.code for d in diags if d.is_error}


def test_a_bomb_the_target_keeps_as_references_is_not_expanded() -> None:
    """openai keeps $ref: nothing is inlined, nothing to refuse; strict mode must inline
    a $ref beside other keywords, so the strict attempt refuses and the tool goes
    non-strict (its references kept)."""
    out, diags = lower_tools([_tool(bomb())], "openai-strict")
    assert not [d for d in diags if d.is_error] and out[0]["metadata"]["lowered"]["strict"]
    out, diags = lower_tools([_tool(bomb(beside=True))], "openai-strict")
    assert not [d for d in diags if d.is_error]
    assert not out[0]["metadata"]["lowered"]["strict"]
    assert any(d.code == "PS426" and "200000" in d.message for d in diags)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, timeout=300)  # (the bounds' inputs are large)


def test_every_path_refuses_the_bomb_and_walks_the_chain(tmp_path: Path) -> None:
    b = tmp_path / "bomb.json"
    b.write_text(json.dumps({"tools": [{"name": "b", "description": "d", "inputSchema": bomb()}]}))
    c = tmp_path / "chain.json"
    c.write_text(dumps({"tools": [{"name": "c", "description": "d", "inputSchema": chain(1000)}]}))
    for args in (("to-json", "-t", "ollama", "--lower"), ("from-json", "-t", "ollama")):
        p = _run(*args, str(b), "-o", str(tmp_path / "out"))
        assert p.returncode == 1, p.stderr[-300:]
        assert "[PS519]" in p.stderr and len(p.stderr.splitlines()) < 200
        p = _run(*args, str(c), "-o", str(tmp_path / "out"))
        assert "Traceback" not in p.stderr and "[PS903]" not in p.stderr
        # one line per link at most (the 1 000 links printed 501 501 PS412 lines)
        assert len(p.stderr.splitlines()) <= 1100, len(p.stderr.splitlines())


DEEP = 3000


def _deep(kind: str) -> dict[str, Any]:
    if kind == "not":
        v: Any = {"type": "string"}
        for _ in range(DEEP):
            v = {"not": v}
    elif kind == "additionalProperties":
        v = {"type": "string"}
        for _ in range(DEEP):
            v = {"type": "object", "additionalProperties": v}
    else:
        e: Any = [1]
        for _ in range(DEEP):
            e = [e]
        v = {"enum": [e, "x"]}
    return {"type": "object", "properties": {"p": v}}


@pytest.mark.parametrize("kind", ["not", "additionalProperties", "enum"])
@pytest.mark.parametrize("target", TARGETS)
def test_deep_keywords_lower_without_recursion_error(kind: str, target: str) -> None:
    out, diags = lower_tools([_tool(_deep(kind))], target)
    assert all(d.code != "PS903" for d in diags)
    assert out and out[0]["name"] == "t"


def test_deep_keywords_through_the_command_line(tmp_path: Path) -> None:
    for kind in ("not", "additionalProperties", "enum"):
        f = tmp_path / f"{kind}.json"
        f.write_text(
            dumps({"tools": [{"name": "t", "description": "d", "inputSchema": _deep(kind)}]})
        )
        for target in ("gemini", "openai-strict"):
            p = _run("to-json", str(f), "-t", target, "--lower")
            assert "[PS903]" not in p.stderr and "Traceback" not in p.stderr, p.stderr[-400:]
            assert p.returncode == 0, p.stderr[-400:]
