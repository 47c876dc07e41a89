"""``--lower`` against pydantic-ai's schema transformers: tools per second, per target.

Numbers, not pass/fail (issue 20's goal: plistspec at least as fast as pydantic-ai on
every target, with its validation and diagnostics on). Both lower the same real tools,
in sets (``--inputs``, default ``fixtures,gptel,mcp``, each timed alone and together):

``fixtures``
    every tool of ``fixtures/json`` (MCP servers with their nested schemas, provider
    JSON) and of the Elisp fixtures (``fixtures/elisp``, ``fixtures/corpus``; for
    plistspec as gptel/llm send the target, for pydantic-ai their IR schema);
``gptel``
    the Elisp forms of ``fixtures/corpus`` and ``fixtures/elisp`` as gptel sends them
    (plistspec's own ``to-json -t openai`` path, the JSON gptel 0.9.9.5 sends: closed
    objects, ``required`` lists), read back as tool JSON, and the MCP tools of
    ``fixtures/json`` again: what ``check --server`` lowers for ``plistspec-gptel-mode``;
``mcp``
    the MCP tools of ``fixtures/json`` alone (FastMCP/pydantic models with ``$defs``,
    ``default`` on every optional argument, draft-07 ``definitions``, recursion): the
    share of a real tool set where the rate is lowest;
``semantics`` (only when named)
    the JSON the real gptel produced for the Elisp forms of
    ``fixtures/semantics/cases.json`` (recorded in Emacs): not real tools but a table of
    every odd shape an ``:args`` list takes (``:type "float"``, ``:optional {}``...),
    where most of the work is rewriting and reporting, and pydantic-ai gives up early
    on a fifth of them (an exception, timed as it happens).

In ``gptel``, ``mcp`` and ``semantics`` both sides lower the same JSON. Runs are interleaved
(plistspec, pydantic-ai, plistspec, ...) and the minimum of each is kept, so a noisy
neighbour costs both alike.

plistspec's side is the whole library call a program makes: ``lower_tools`` (rewrites,
the strict attempt and its fallback, the validation of the result against the target's
rules, one diagnostic per rewrite) and ``to_target_json`` (the request's ``tools``),
which is handed the lowered tools (``owned=True``, as ``to-json --lower`` does: they
are made for it, so the envelope takes them without a copy).
pydantic-ai's side is ``Transformer(schema, ...).walk()`` per tool, the transformer its
model class uses for that provider. Times are CPU time of this process
(``time.process_time``): on a shared machine, waiting for a CPU is not counted against
either side.

==================  =====================================================
target              pydantic-ai
==================  =====================================================
gemini              GoogleOpenAPISchemaTransformer (``parameters``)
gemini-jsonschema   GoogleJsonSchemaTransformer (``parametersJsonSchema``)
openai              OpenAIJsonSchemaTransformer(strict=False)
openai-strict/-resp OpenAIJsonSchemaTransformer(strict=True)
anthropic, bedrock  AnthropicJsonSchemaTransformer(strict=False)
anthropic-strict    AnthropicJsonSchemaTransformer(strict=True) (the SDK's transform_schema)
ollama, mcp-*       InlineDefsJsonSchemaTransformer (pydantic-ai has none of its own)
==================  =====================================================

    python bench/bench_lower_vs_pydantic.py [--runs N] [--targets gemini,openai-strict]
        [--inputs fixtures,gptel,mcp,semantics]

Needs the test extras (``pydantic-ai-slim``; ``anthropic`` for the Anthropic rows).
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import plistspec  # noqa: E402
from plistspec.emit_json.target import sent_tools, to_target_json  # noqa: E402
from plistspec.fromjson.rawjson import raw_tools  # noqa: E402
from plistspec.lowering import TARGETS, lower_tools  # noqa: E402


def real_tools() -> list[dict[str, Any]]:
    """The ``fixtures`` set (IR tools; Elisp ones carry their dialect)."""
    tools: list[dict[str, Any]] = []
    for path in sorted((ROOT / "fixtures" / "json").glob("**/*.json")):
        found, _ = raw_tools(json.loads(path.read_text(encoding="utf-8")))
        tools += [t for t in found if isinstance(t.get("parameters"), dict)]
    for path in _elisp_files():
        found, _ = plistspec.read_tools(path.read_text(encoding="utf-8"), str(path))
        tools += list(found)
    return tools


def _elisp_files() -> list[Path]:
    return sorted((ROOT / "fixtures" / "elisp").glob("*.el")) + sorted(
        (ROOT / "fixtures" / "corpus").glob("*.el")
    )


def gptel_tools() -> list[dict[str, Any]]:
    """The ``gptel`` set: the Elisp forms as gptel sends them (``to-json -t openai``),
    and the MCP tools of fixtures/json, as tool JSON."""
    tools: list[dict[str, Any]] = []
    for path in _elisp_files():
        sent = plistspec.to_json(path.read_text(encoding="utf-8"), "openai", str(path))
        found, _ = raw_tools(sent.value)
        tools += [t for t in found if isinstance(t.get("parameters"), dict)]
    return tools + mcp_tools()


def semantics_tools() -> list[dict[str, Any]]:
    """The ``semantics`` set: what the real gptel sent for each form of the table."""
    cases = json.loads((ROOT / "fixtures" / "semantics" / "cases.json").read_text("utf-8"))
    tools: list[dict[str, Any]] = []
    for case in cases["cases"]:
        sent = (case.get("openai") or {}).get("json")
        if sent:
            found, _ = raw_tools(sent)
            tools += [t for t in found if isinstance(t.get("parameters"), dict)]
    return tools


def mcp_tools() -> list[dict[str, Any]]:
    """The ``mcp`` set: the tools of the MCP ``tools/list`` payloads of fixtures/json."""
    tools: list[dict[str, Any]] = []
    for path in sorted((ROOT / "fixtures" / "json").glob("**/mcp_*.json")):
        found, _ = raw_tools(json.loads(path.read_text(encoding="utf-8")))
        tools += [t for t in found if isinstance(t.get("parameters"), dict)]
    return tools


INPUTS = {
    "fixtures": real_tools,
    "gptel": gptel_tools,
    "mcp": mcp_tools,
    "semantics": semantics_tools,
}
DEFAULT_INPUTS = "fixtures,gptel,mcp"


def transformer(target: str):
    """A function schema -> pydantic-ai's lowered schema for ``target`` (None: missing)."""
    from pydantic_ai._json_schema import InlineDefsJsonSchemaTransformer
    from pydantic_ai.profiles.google import (
        GoogleJsonSchemaTransformer,
        GoogleOpenAPISchemaTransformer,
    )
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

    try:
        from pydantic_ai.providers.anthropic import AnthropicJsonSchemaTransformer
    except ImportError:
        AnthropicJsonSchemaTransformer = None  # noqa: N806

    table: dict[str, Any] = {
        "gemini": lambda s: GoogleOpenAPISchemaTransformer(s),
        "gemini-jsonschema": lambda s: GoogleJsonSchemaTransformer(s),
        "openai": lambda s: OpenAIJsonSchemaTransformer(s, strict=False),
        "openai-strict": lambda s: OpenAIJsonSchemaTransformer(s, strict=True),
        "openai-responses": lambda s: OpenAIJsonSchemaTransformer(s, strict=True),
        "ollama": lambda s: InlineDefsJsonSchemaTransformer(s),
    }
    if AnthropicJsonSchemaTransformer is not None:
        table["anthropic"] = lambda s: AnthropicJsonSchemaTransformer(s, strict=False)
        table["bedrock"] = table["anthropic"]
        table["anthropic-strict"] = lambda s: AnthropicJsonSchemaTransformer(s, strict=True)
    make = table.get(target, (lambda s: InlineDefsJsonSchemaTransformer(s)))
    if target.startswith("anthropic") and AnthropicJsonSchemaTransformer is None:
        return None

    def run(schema: dict[str, Any]) -> Any:
        try:
            return make(schema).walk()
        except Exception:  # noqa: BLE001 - it refuses the schema (as plistspec may)
            return None

    return run


def time_ours(tools: list[dict[str, Any]], target: str) -> float:
    t0 = time.process_time()
    out, _diags = lower_tools(tools, target)
    to_target_json(out, target, owned=True)
    return time.process_time() - t0


def time_theirs(schemas: list[dict[str, Any]], run) -> float:
    t0 = time.process_time()
    for s in schemas:
        run(s)
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--inputs", default=DEFAULT_INPUTS)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    targets = [t for t in args.targets.split(",") if t]
    sets = {name: INPUTS[name]() for name in args.inputs.split(",") if name}
    if len(sets) > 1:
        sets["all"] = [t for tools in list(sets.values()) for t in tools]
    runners = {t: transformer(t) for t in targets}
    for label, tools in sets.items():
        # plistspec lowers what the library sends the target (a tool read from Elisp) or
        # the tool JSON; pydantic-ai the JSON Schema (the IR's, or the same JSON)
        ours = {t: sent_tools(copy.deepcopy(tools), t)[0] for t in targets}
        theirs = [t.get("parameters") or {"type": "object", "properties": {}} for t in tools]
        best: dict[str, list[float]] = {t: [float("inf"), float("inf")] for t in targets}
        gc.collect()
        for _ in range(args.runs):
            for t in targets:
                best[t][0] = min(best[t][0], time_ours(ours[t], t))
                if runners[t] is not None:
                    best[t][1] = min(best[t][1], time_theirs(theirs, runners[t]))
        n = len(tools)
        print(f"{label}: {n} real tools, {args.runs} interleaved runs, minimum of each (tools/s)")
        print(f"  {'target':18} {'plistspec':>10} {'pydantic-ai':>12} {'ratio':>7}")
        for t in targets:
            mine = n / best[t][0]
            if runners[t] is None:
                print(f"  {t:18} {mine:10.0f} {'(missing)':>12}")
                continue
            other = n / best[t][1]
            print(f"  {t:18} {mine:10.0f} {other:12.0f} {mine / other:7.2f}")


if __name__ == "__main__":
    main()
