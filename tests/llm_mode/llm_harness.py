"""Running the real llm 0.31.1 (and mcp.el) in ``emacs --batch`` against the stub.

:func:`run_harness` starts an :class:`~llm_stub.LlmStub`, writes the harness's
configuration, runs ``harness.el`` in a real Emacs with the real llm, plz and mcp.el from
``$PLISTSPEC_ELISP_DEPS`` and this checkout's plistspec package (its CLI from this
checkout's ``src``), and returns what Emacs reported, every request the stub received and
Emacs's standard error.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from llm_stub import LlmStub

import runtime_support
from runtime_support import deps_or_skip, mcp_servers, run_harness_el

HERE = Path(__file__).resolve().parent

PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini", "vertex", "ollama"]
ENTRIES = ["sync", "async", "streaming"]
TARGET = {"vertex": "gemini"}  # the rules each provider's tools are judged by


def preamble(deps: Path, executable: list[str] | None = None) -> str:
    return runtime_support.preamble(
        deps,
        """(require 'llm)
(dolist (f '(llm-openai llm-claude llm-gemini llm-vertex llm-ollama)) (require f))""",
        "(setq plistspec-llm-wait 20)",
        executable,
    )


def run_harness(
    mode: bool,
    scenarios: list[dict[str, Any]],
    script: dict[int, list[Any]],
    executable: list[str] | None = None,
    before: str = "",
    mcp: bool = True,
    **extra: Any,
) -> tuple[dict[str, Any], list[dict[str, Any]], str]:
    """(what Emacs reported, the requests the stub received, Emacs's stderr)."""
    deps = deps_or_skip()
    with tempfile.TemporaryDirectory() as tmp, LlmStub() as stub:
        stub.script = {k: json.loads(json.dumps(v)) for k, v in script.items()}
        config = {
            "port": stub.port,
            "mode": mode,
            "scenarios": scenarios,
            "mcp": mcp_servers() if mcp else [],
            **extra,
        }
        report, err = run_harness_el(
            HERE / "harness.el", preamble(deps, executable) + before, config, tmp
        )
        return report, list(stub.requests), err
