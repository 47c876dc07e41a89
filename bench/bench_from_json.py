"""``from-json`` on large and hostile inputs: time and output size, in process.

Cases: placing a diagnostic per tool in a big file (one scan for all); an MCP
``tools/list`` of many tools; JSON nested 100 000 deep (the iterative parser
takes over from Python's ``json``); a "billion laughs" ``$ref`` schema of 40 levels (refused
with PS519 after a linear walk); the same at 14 levels (written in full). Prints numbers,
not pass/fail.

    python bench/bench_from_json.py
"""

from __future__ import annotations

import json
import time


def _many(n: int) -> str:
    props = {f"p{i}": {"type": "string", "description": f"Parameter {i}."} for i in range(8)}
    tools = [
        {
            "name": f"tool_{i}",
            "description": "A tool.",
            "inputSchema": {"type": "object", "properties": props},
        }
        for i in range(n)
    ]
    return json.dumps({"tools": tools})


def _deep(n: int) -> str:
    items = '{"type":"array","items":' * n + '{"type":"string"}' + "}" * n
    return (
        '{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"x":'
        + items
        + "}}}"
    )


def _laughs(levels: int) -> str:
    defs: dict = {"L0": {"type": "string"}}
    for i in range(1, levels + 1):
        ref = {"$ref": f"#/$defs/L{i - 1}"}
        defs[f"L{i}"] = {"type": "object", "properties": {"a": ref, "b": dict(ref)}}
    schema = {"type": "object", "$defs": defs, "properties": {"x": {"$ref": f"#/$defs/L{levels}"}}}
    return json.dumps({"name": "t", "description": "d", "inputSchema": schema})


def run(label: str, text: str) -> None:
    from plistspec.core.jsontext import load_json
    from plistspec.emit_elisp import to_elisp
    from plistspec.fromjson.detect import from_json

    t = time.perf_counter()
    value, _ = load_json(text)
    tools, diags = from_json(value)
    errors = [d.code for d in diags if d.is_error]
    out = "" if errors else to_elisp(tools, "gptel")[0]
    ms = (time.perf_counter() - t) * 1000
    print(
        f"{label:32} in {len(text) / 1e6:7.2f} MB  out {len(out) / 1e6:7.2f} MB  "
        f"{ms:8.0f} ms  {'errors ' + ','.join(sorted(set(errors))) if errors else ''}"
    )


def place(n: int) -> None:
    """Placing one diagnostic per tool (``at /tools/N``): one scan for all of them."""
    from plistspec.core.jsonpos import pointer_spans

    text = _many(n)
    t = time.perf_counter()
    pointer_spans(text, [f"/tools/{i}" for i in range(n)])
    ms = (time.perf_counter() - t) * 1000
    print(f"{'place ' + str(n) + ' pointers':32} in {len(text) / 1e6:7.2f} MB  {ms:25.0f} ms")


def main() -> None:
    place(4000)
    run("MCP tools/list, 2 000 tools", _many(2000))
    run("nested 100 000 deep", _deep(100_000))
    run("$ref billion laughs, 14 levels", _laughs(14))
    run("$ref billion laughs, 40 levels", _laughs(40))


if __name__ == "__main__":
    main()
