"""Shared checks for the lowering tests: every rule of a target, from grammars/providers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

from plistspec.emit_json.target import to_target_json
from plistspec.lowering import TARGETS, lower_tools
from plistspec.lowering.grammar import grammar
from plistspec.lowering.rules import grammar_dir, rules
from plistspec.lowering.validate import schema_violations, tool_violations

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"


def run_cli(
    *args: str, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m plistspec ARGS`` from this checkout's src/, from the repository root,
    output captured (every wait on the process bounded by ``timeout``)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "plistspec", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )


@cache
def fixture_tools(elisp: bool = True) -> tuple[tuple[str, dict[str, Any]], ...]:
    """Every real tool of fixtures/ as ``(file:name, IR tool)``: the tool JSON of
    fixtures/json (MCP servers, provider JSON), then, when ``elisp``, the tools of
    fixtures/elisp and fixtures/corpus as read from Elisp. Shared by every test that
    runs the lowering on real tools (copy a tool before changing it)."""
    import plistspec
    from plistspec.fromjson.rawjson import raw_tools

    out: list[tuple[str, dict[str, Any]]] = []
    for path in sorted((FIXTURES / "json").glob("**/*.json")):
        tools, _ = raw_tools(json.loads(path.read_text(encoding="utf-8")))
        out += [(f"{path.name}:{t['name']}", t) for t in tools]
    if elisp:
        for path in sorted((FIXTURES / "elisp").glob("*.el")) + sorted(
            (FIXTURES / "corpus").glob("*.el")
        ):
            tools, _ = plistspec.read_tools(path.read_text(encoding="utf-8"), str(path))
            out += [(f"{path.name}:{t['name']}", t) for t in tools]
    return tuple(out)


@cache
def validator(target: str, strict: bool):
    """A jsonschema validator for the target's grammar file (checked in, generated)."""
    import jsonschema

    r = rules(target)
    stem = r.name
    schema = json.loads((grammar_dir() / f"{stem}.schema.json").read_text(encoding="utf-8"))
    if r.strict_flag is not None and not strict:
        schema = grammar(target, strict=False)
    return jsonschema.Draft202012Validator(schema)


def violations(tool: dict[str, Any], target: str) -> list[str]:
    """Every rule of ``target`` that a lowered IR tool breaks (both rule forms)."""
    strict = bool(tool["metadata"]["lowered"]["strict"])
    out = [f"{p}: {m}" for p, m in schema_violations(tool["parameters"], target, strict=strict)]
    out += [f"{p}: {m}" for p, m in tool_violations(tool["name"], tool["description"], target)]
    out += [
        f"grammar {'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator(target, strict).iter_errors(tool["parameters"])
    ]
    return out


def lower_ok(tools: list[dict[str, Any]], target: str):
    """Lower and check: no error, no violation, idempotent; returns (lowered, diags)."""
    out, diags = lower_tools(tools, target)
    errors = [d.message for d in diags if d.is_error]
    assert not errors, errors
    for t in out:
        assert not violations(t, target), (t["name"], violations(t, target))
    again, _ = lower_tools(out, target)
    assert again == out, f"lowering for {target} is not idempotent"
    to_target_json(out, target)
    return out, diags


__all__ = ["TARGETS", "FIXTURES", "lower_ok", "violations", "validator"]
