"""``--lower``: tools per second for every target, and deep schemas (a linear walk).

Numbers, not pass/fail. Part 1 lowers the MCP fixtures (fixtures/json, about 40 tools of
real servers) N times for each target and prints tools/s. Part 2 lowers one schema of
objects nested D deep (D = 2 500 ... 40 000) for gemini and openai-strict: the seconds
should grow about linearly with D (no recursion limit, no quadratic path). Part 3 (issue
19): a linear ``$ref`` chain of N links (ollama inlines it, anthropic-strict keeps it and
looks for recursion) and a 4 KB "billion laughs" bomb: seconds and diagnostics, which
should grow linearly with N (the chain once printed N²/2 PS412 lines), the bomb refused
at once (PS519).

    python bench/bench_lower.py [--runs N]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from plistspec.emit_json.target import to_target_json  # noqa: E402
from plistspec.fromjson.rawjson import raw_tools  # noqa: E402
from plistspec.lowering import TARGETS, lower_tools  # noqa: E402


def fixtures() -> list[dict]:
    tools = []
    for path in sorted((ROOT / "fixtures" / "json").glob("*.json")):
        found, _ = raw_tools(json.loads(path.read_text(encoding="utf-8")))
        tools.extend(found)
    return tools


def deep(depth: int) -> dict:
    node: dict = {"type": "string", "minLength": 1}
    for _ in range(depth):
        node = {"type": "object", "properties": {"n": node}, "additionalProperties": False}
    return {
        "type": "function",
        "name": "deep",
        "description": "d",
        "parameters": node,
        "metadata": {},
    }


def chain(n: int) -> dict:
    defs = {
        f"D{i}": {"type": "object", "properties": {"n": {"$ref": f"#/$defs/D{i + 1}"}}}
        for i in range(n)
    }
    defs[f"D{n}"] = {"type": "string"}
    params = {"type": "object", "properties": {"a": {"$ref": "#/$defs/D0"}}, "$defs": defs}
    return {"type": "function", "name": "chain", "description": "c", "parameters": params}


def bomb(levels: int = 40) -> dict:
    defs: dict = {"L0": {"type": "string"}}
    for i in range(1, levels + 1):
        ref = {"$ref": f"#/$defs/L{i - 1}", "description": "d"}
        defs[f"L{i}"] = {"type": "object", "properties": {"a": ref, "b": dict(ref)}}
    params = {"type": "object", "properties": {"x": {"$ref": f"#/$defs/L{levels}"}}}
    params["$defs"] = defs
    return {"type": "function", "name": "bomb", "description": "b", "parameters": params}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    tools = fixtures()
    print(f"{len(tools)} MCP fixture tools, {args.runs} runs per target")
    for target in TARGETS:
        t0 = time.perf_counter()
        for _ in range(args.runs):
            out, _diags = lower_tools(tools, target)
            to_target_json(out, target)
        dt = time.perf_counter() - t0
        print(f"  {target:18} {len(tools) * args.runs / dt:9.0f} tools/s")
    print("deep schemas (seconds; about linear in depth)")
    for depth in (2500, 5000, 10000, 20000, 40000):
        row = []
        for target in ("gemini", "openai-strict"):
            t0 = time.perf_counter()
            lower_tools([deep(depth)], target)
            row.append(f"{target} {time.perf_counter() - t0:6.2f}")
        print(f"  depth {depth:6}: " + "  ".join(row))
    print("$ref chains and a bomb (seconds, diagnostics)")
    for n in (1000, 2000, 4000, 20000):
        row = []
        for target in ("ollama", "anthropic-strict"):
            t0 = time.perf_counter()
            _out, diags = lower_tools([chain(n)], target)
            row.append(f"{target} {time.perf_counter() - t0:6.2f} {len(diags):6}")
        print(f"  chain {n:6}: " + "  ".join(row))
    for target in ("ollama", "gemini", "gemini-jsonschema"):
        t0 = time.perf_counter()
        _out, diags = lower_tools([bomb()], target)
        codes = sorted({d.code for d in diags if d.is_error})
        print(f"  bomb {target:18} {time.perf_counter() - t0:6.2f} s, errors {codes}")


if __name__ == "__main__":
    main()
