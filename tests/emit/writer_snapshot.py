"""The Elisp writer's recorded inputs and outputs, for the differential test of any rewrite.

Owns: how ``tests/emit/data/writer_snapshot.json.xz`` is made and replayed. Each case is
one call of the writer with its whole input stored beside the output it gave when the
snapshot was recorded, so the replay depends on nothing but the writer (not on the
reader or lowering, which may change on their own):

* ``form``: :func:`plistspec.emit_elisp.tool_form` (tool IR, dialect, indent) → (text,
  diagnostics). The stored cases are the calls ``fmt`` made (before it laid forms out
  from their source) on the ``.el`` fixtures and on a 200 KB file from
  ``bench/gen_tools.py`` (seed 7), each formatted as written, as gptel and as llm; plus
  seeded random tools (odd values, lines near the fill column, nesting past
  ``MAX_INDENT``), both dialects. (Cases of the comment plans the writer once took were
  recorded again without them, by the writer before their removal.) The recorder now
  writes each tool of those files at column 0.
* ``file``: :func:`plistspec.emit_elisp.to_elisp` (tools, dialect, file options) → (text,
  diagnostics): ``from-json`` of every JSON fixture that gives tools, the IR of the 200 KB
  file, and the random tools, both dialects.

Regenerate (only when the layout is meant to change, after checking the diff):
``PYTHONPATH=src python3 tests/emit/writer_snapshot.py``.
"""

from __future__ import annotations

import json
import lzma
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data" / "writer_snapshot.json.xz"


def _diags(diags: list) -> list[str]:
    return [f"{d.code} {d.severity} {d.message}" for d in diags]


def replay(case: dict) -> dict:
    """The writer's output for ``case`` now: ``{"text": ..., "diags": [...]}``."""
    from plistspec.emit_elisp import to_elisp, tool_form

    if case["kind"] == "form":
        text, diags = tool_form(case["tool"], case["dialect"], case["indent"])
    else:
        text, diags = to_elisp(case["tools"], case["dialect"], **case["options"])
    return {"text": text, "diags": _diags(diags)}


# -- recording -------------------------------------------------------------------------


def _json_safe(v: Any) -> Any:
    """``v`` as JSON gives it back (the check that storing it loses nothing)."""
    return json.loads(json.dumps(v, ensure_ascii=False))


def _form_cases(text: str, name: str) -> list[dict]:
    """``form`` cases of every tool of ``text`` (its IR), in its own dialect and in both."""
    from plistspec.api import read_tools

    out = []
    for tool in read_tools(text, fmt="ir").tools:
        if _json_safe(tool) != tool:
            continue
        own = (tool.get("metadata") or {}).get("dialect", "gptel")
        for dialect in dict.fromkeys((own, "gptel", "llm")):
            out.append(
                {"kind": "form", "name": name, "tool": tool, "dialect": dialect, "indent": 0}
            )
    return out


_KEYS = ["type", "description", "items", "properties", "enum", "", ":x", "nil", "a b", "é", "k"]
_KEYS += ["default", "minimum", "required", "format", "optional", "anyOf", "title", "t"]


def _rand_value(rng: random.Random, depth: int) -> Any:
    r = rng.random()
    if depth <= 0 or r < 0.45:
        return rng.choice(
            [
                True,
                False,
                None,
                0,
                -7,
                2**70,
                1.5,
                -0.0,
                1e300,
                "",
                "x" * rng.choice([0, 1, 5, 20, 60, 90, 95, 100, 110]),
                'line\nbreak "q" \\ é 😀',
                rng.choice(["string", "integer", "nil", "t", "a b", "Object", "x-y_z", "9"]),
                {},
                [],
            ]
        )
    if r < 0.6:
        return [_rand_value(rng, depth - 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(_KEYS): _rand_value(rng, depth - 1) for _ in range(rng.randint(1, 4))}


def _rand_schema(rng: random.Random, depth: int) -> Any:
    if rng.random() < 0.05:
        return _rand_value(rng, 2)
    s: dict = {}
    for k in rng.sample(_KEYS, rng.randint(0, 3)):
        s[k] = _rand_value(rng, rng.randint(0, 3))
    if rng.random() < 0.8:
        s["type"] = rng.choice(["string", "array", "object", ["string", "null"], "a b", "nil"])
    if rng.random() < 0.3:
        s["description"] = "d" * rng.randint(0, 120)
    if depth > 0 and rng.random() < 0.4:
        s["items"] = _rand_schema(rng, depth - 1)
    if depth > 0 and rng.random() < 0.4:
        s["properties"] = {
            rng.choice(_KEYS + ["p", "q"]): _rand_schema(rng, depth - 1)
            for _ in range(rng.randint(0, 3))
        }
    if rng.random() < 0.2:
        s["enum"] = [_rand_value(rng, 1) for _ in range(rng.randint(0, 12))]
    if rng.random() < 0.1:
        s["anyOf"] = [_rand_schema(rng, 0), {"type": "null"}]
    return s


def _deep(n: int, leaf: Any) -> Any:
    v = leaf
    for i in range(n):
        v = {"type": "array", "items": v} if i % 3 else [v, {"k": "w" * 30}]
    return v


def _rand_tool(rng: random.Random, i: int) -> dict:
    props = {}
    for _ in range(rng.randint(0, 5)):
        props[rng.choice(["city", "unit", "", "a b", "n" * 60, "x", "y", "é"])] = _rand_schema(
            rng, 2
        )
    if rng.random() < 0.06:
        props["deep"] = {"type": "array", "items": _deep(rng.randint(10, 60), "leaf")}
    params: Any = {"type": "object", "properties": props}
    if rng.random() < 0.7:
        params["required"] = [k for k in props if rng.random() < 0.5] + (
            ["missing"] if rng.random() < 0.1 else []
        )
    if rng.random() < 0.05:
        params["additionalProperties"] = False
    if rng.random() < 0.03:
        params = [1]
    meta: dict = {}
    for key, val in (
        ("function", '(lambda (a)\n  (message "%s" a))'),
        ("async", True),
        ("category", rng.choice(["files", {"a": 1}, [1, "x"], True, None])),
        ("confirm", rng.choice([True, False, {}])),
        ("include", True),
        ("annotations", {"readOnlyHint": rng.random() < 0.5, "title": "T ;; x"}),
        ("title", "Nice title\nwith a line"),
        ("output_schema", {"type": "object"}),
        ("args", "vector"),
    ):
        if rng.random() < 0.15:
            meta[key] = val
    name = rng.choice([f"tool_{i}", "", {"n": 1}, [1, 2], "é" * 40, None])
    tool = {"type": "function", "name": name, "parameters": params, "metadata": meta}
    if rng.random() < 0.9:
        tool["description"] = rng.choice(
            ["Does it.", "D" * 150, {"x": [1, {}]}, ["a"], "multi\nline", {}]
        )
    return tool


def _json_cases() -> list[dict]:
    from plistspec.core.jsontext import load_json
    from plistspec.fromjson.detect import from_json

    out = []
    for p in sorted((ROOT / "fixtures").rglob("*.json")):
        try:
            value, _ = load_json(p.read_text(encoding="utf-8"))
            tools, diags = from_json(value)
        except Exception:  # noqa: BLE001 - a fixture that is not tool JSON
            continue
        if not tools or any(d.is_error for d in diags) or _json_safe(tools) != tools:
            continue
        for dialect in ("gptel", "llm"):
            out.append(_file_case(str(p.relative_to(ROOT)), tools, dialect, {}))
    return out


def _file_case(name: str, tools: list, dialect: str | None, options: dict) -> dict:
    return {"kind": "file", "name": name, "tools": tools, "dialect": dialect, "options": options}


def collect() -> list[dict]:
    """Every case's input (see the module doc)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from gen_tools import generate

    from plistspec.api import read_tools

    cases: list[dict] = []
    for p in sorted((ROOT / "fixtures").rglob("*.el")):
        cases += _form_cases(p.read_text(encoding="utf-8"), str(p.relative_to(ROOT)))
    big = generate(200_000, seed=7)[0]
    cases += _form_cases(big, "gen_tools 200K seed 7")
    tools = read_tools(big, fmt="ir").tools
    for dialect in ("gptel", "llm", None):
        cases.append(_file_case("gen_tools 200K seed 7", tools, dialect, {}))
    cases += _json_cases()
    rng = random.Random(20261123)
    rand = [_rand_tool(rng, i) for i in range(300)]
    for i, tool in enumerate(rand):
        for dialect in ("gptel", "llm"):
            cases.append(
                {
                    "kind": "form",
                    "name": f"random {i}",
                    "tool": tool,
                    "dialect": dialect,
                    "indent": rng.choice([0, 0, 2, 37, 119, 130]),
                }
            )
    opts = [{}, {"forms_only": True}, {"file_name": "x.el", "variable": "v"}]
    for j, k in enumerate(range(0, 60, 12)):
        for dialect in ("gptel", "llm", None):
            cases.append(_file_case(f"random {k}", rand[k : k + 12], dialect, opts[j % len(opts)]))
    return cases


def load() -> list[dict]:
    """The recorded cases (inputs and ``expect``), tools put back in place."""
    data = json.loads(lzma.decompress(DATA.read_bytes()))
    tools = data["tools"]
    for c in data["cases"]:
        if c["kind"] == "form":
            c["tool"] = tools[c.pop("tool_index")]
        else:
            c["tools"] = [tools[i] for i in c.pop("tool_indexes")]
    return data["cases"]


def main() -> None:
    cases = collect()
    table: dict[str, int] = {}

    def index(tool: Any) -> int:
        return table.setdefault(json.dumps(tool, ensure_ascii=False), len(table))

    for c in cases:
        c["expect"] = replay(c)
        if c["kind"] == "form":
            c["tool_index"] = index(c.pop("tool"))
        else:
            c["tool_indexes"] = [index(t) for t in c.pop("tools")]
    tools = [json.loads(t) for t in table]
    doc = {"tools": tools, "cases": cases}
    data = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))
    print(f"{len(cases)} cases, {len(data)} bytes, {DATA.stat().st_size} compressed: {DATA}")


if __name__ == "__main__":
    main()
