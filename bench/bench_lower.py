"""``--lower``: tools per second for every target, and deep schemas (a linear walk).

Numbers, not pass/fail. Part 1 lowers the MCP fixtures (fixtures/json, about 40 tools of
real servers) N times for each target and prints tools/s. Part 2 lowers one schema of
objects nested D deep (D = 2 500 ... 40 000) for gemini and openai-strict: the seconds
should grow about linearly with D (no recursion limit, no quadratic path).

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


if __name__ == "__main__":
    main()
