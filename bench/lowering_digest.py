"""One sha256 over everything ``--lower`` makes observable, for refactors that must not
change behaviour.

For every input set the lowering benchmarks use (``bench_lower_vs_pydantic.py``'s
``fixtures``, ``gptel``, ``mcp`` and ``semantics`` sets, ``bench_lower.py``'s MCP
fixtures and small deep/chain/bomb schemas) and every target of
:data:`plistspec.lowering.TARGETS`, the tools as the library sends the target
(``sent_tools``) are lowered with the public API, the whole set at once (as the
benchmarks do) and each tool alone, and the digest takes in: the lowered tools and the
request's ``tools`` (``to_target_json``) as canonical JSON (``sort_keys``), every
diagnostic of ``lower_tools`` (code, severity, span, effect, message — lazy messages
read), every :class:`~plistspec.lowering.tools.Rewrite` of ``lower_tools_detailed``, and
whether the input was left unchanged. Prints one line per set and the total digest.

    python bench/lowering_digest.py

The same source gives the same digest on every run (no clock, no randomness); a refactor
that changes none of it keeps the digest.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

import bench_lower  # noqa: E402
import bench_lower_vs_pydantic as vs  # noqa: E402

from plistspec.emit_json.target import sent_tools, to_target_json  # noqa: E402
from plistspec.lowering import TARGETS, lower_tools  # noqa: E402
from plistspec.lowering.tools import lower_tools_detailed  # noqa: E402


def canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def input_sets() -> dict[str, list[dict[str, Any]]]:
    sets = {name: make() for name, make in vs.INPUTS.items()}
    sets["bench_lower.fixtures"] = bench_lower.fixtures()
    sets["bench_lower.shapes"] = [
        bench_lower.deep(60),
        bench_lower.chain(40),
        bench_lower.bomb(12),
    ]
    return sets


def feed(h: Any, tools: list[dict[str, Any]], target: str) -> None:
    """The observable results of lowering ``tools`` for ``target``, into ``h``."""
    before = canon(tools)
    out, diags = lower_tools(tools, target)
    h.update(canon(out).encode())
    h.update(canon(to_target_json(copy.deepcopy(out), target)).encode())
    for d in diags:
        row = [d.code, d.severity, d.start, d.end, d.line, d.column, d.effect, str(d.message)]
        h.update(canon(row).encode())
    h.update(b"unchanged" if canon(tools) == before else b"MUTATED")
    out2, records = lower_tools_detailed(tools, target)
    h.update(canon(out2).encode())
    for r in records:
        h.update(canon([str(x) if i == 5 else x for i, x in enumerate(r)]).encode())
    h.update(b"unchanged" if canon(tools) == before else b"MUTATED")


def main() -> None:
    warnings.simplefilter("ignore")
    total = hashlib.sha256()
    for label, tools in input_sets().items():
        h = hashlib.sha256()
        for target in TARGETS:
            sent = sent_tools(copy.deepcopy(tools), target)[0]
            h.update(f"{label}/{target}".encode())
            feed(h, sent, target)
            for tool in sent:
                feed(h, [tool], target)
        print(f"  {label:22} {len(tools):5} tools  {h.hexdigest()[:16]}")
        total.update(h.digest())
    print(f"lowering digest: {total.hexdigest()}")


if __name__ == "__main__":
    main()
