"""Running real gptel (and mcp.el) in ``emacs --batch`` against the stub provider.

:func:`run_harness` starts a :class:`~stub_provider.StubProvider`, writes the harness's
configuration, runs ``harness.el`` in a real Emacs with the real gptel 0.9.9.5 and mcp.el
from ``$PLISTSPEC_ELISP_DEPS`` and this checkout's plistspec package (its CLI from this
checkout's ``src``), and returns what Emacs reported, every request the stub received
and Emacs's standard error (where batch Emacs prints its messages).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from stub_provider import StubProvider

import runtime_support
from runtime_support import (
    MCP_SERVERS,
    deps_or_skip,
    mcp_servers,
    run_harness_el,
)
from runtime_support import run_emacs as run_emacs  # for the tests that import it from here
from support import ROOT

HERE = Path(__file__).resolve().parent

BACKENDS = ["gemini", "openai", "openai-responses", "anthropic", "ollama"]


def preamble(deps: Path, executable: list[str] | None = None) -> str:
    return runtime_support.preamble(
        deps,
        """(require 'gptel)
(dolist (f '(gptel-openai gptel-openai-responses gptel-anthropic gptel-gemini
             gptel-ollama gptel-bedrock))
  (require f))""",
        "(setq plistspec-gptel-wait 60)",
        executable,
    )


def many_tools(n: int, folder: Path) -> list[list[str]]:
    """``n`` real MCP tools: the fixtures' tools/list payloads, copied under new names as
    often as needed, written to ``folder``; the ``mcp`` argument of :func:`run_harness`."""
    tools = []
    for s in [*MCP_SERVERS, "fastmcp_pydantic"]:
        name = f"mcp_{s}_server.json" if s in MCP_SERVERS else f"mcp_{s}.json"
        data = json.loads((ROOT / "fixtures" / "json" / name).read_text())
        tools.extend(data.get("result", data)["tools"])
    out = [
        dict(t, name=f"{t['name']}_{i // len(tools)}")
        for i, t in zip(range(n), _cycle(tools), strict=False)
    ]
    file = folder / f"many_{n}.json"
    file.write_text(json.dumps({"tools": out}))
    return [["many", str(file), "mcp-many"]]


def _cycle(xs: list[Any]) -> Any:
    while True:
        yield from xs


def run_harness(
    mode: bool,
    scenarios: list[dict[str, Any]],
    script: dict[int, list[Any]],
    executable: list[str] | None = None,
    before: str = "",
    mcp: list[list[str]] | None = None,
    **extra: Any,
) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """(what Emacs reported, the requests the stub received, Emacs's stderr). ``before``
    is Elisp run before the harness; ``mcp``: more MCP servers, ``[SERVER, FILE,
    CATEGORY]`` each; ``extra`` goes into its configuration."""
    deps = deps_or_skip()
    with tempfile.TemporaryDirectory() as tmp, StubProvider() as stub:
        stub.script = {k: json.loads(json.dumps(v)) for k, v in script.items()}
        config = {
            "host": stub.host,
            "mode": mode,
            "scenarios": scenarios,
            **extra,
            "mcp": mcp_servers() + (mcp or []),
        }
        report, err = run_harness_el(
            HERE / "harness.el", preamble(deps, executable) + before, config, tmp
        )
        return report, list(stub.requests), err
