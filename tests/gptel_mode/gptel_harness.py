"""Running real gptel (and mcp.el) in ``emacs --batch`` against the stub provider.

:func:`run_harness` starts a :class:`~stub_provider.StubProvider`, writes the harness's
configuration, runs ``harness.el`` in a real Emacs with the real gptel 0.9.9.5 and mcp.el
from ``$PLISTSPEC_ELISP_DEPS`` and this checkout's plistspec package (its CLI from this
checkout's ``src``), and returns what Emacs reported, every request the stub received
and Emacs's standard error (where batch Emacs prints its messages).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from stub_provider import StubProvider

from support import ELISP_DEPS_DIRS, ROOT, elisp_deps

HERE = Path(__file__).resolve().parent

MCP_SERVERS = ["everything", "filesystem", "github", "playwright"]
BACKENDS = ["gemini", "openai", "openai-responses", "anthropic", "ollama"]


def deps_or_skip() -> Path:
    deps = elisp_deps()
    if deps is None:
        pytest.skip(
            "the real gptel/llm sources are not here (set PLISTSPEC_ELISP_DEPS or put "
            "them in ../shared/elisp-deps): the gptel-mode tests need them"
        )
    if not (deps / "mcp.el" / "mcp.el").is_file():
        pytest.skip(f"mcp.el is not in {deps}: the gptel-mode tests register tools with it")
    if shutil.which("emacs") is None:
        pytest.skip("emacs is not installed")
    return deps


def lisp(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def preamble(deps: Path, executable: list[str] | None = None) -> str:
    dirs = " ".join(lisp(str(deps / d)) for d in (*ELISP_DEPS_DIRS, "mcp.el"))
    exe = executable if executable is not None else [sys.executable, "-m", "plistspec"]
    return f"""
(dolist (d (list {dirs})) (push d load-path))
(require 'compat)
(require 'gptel)
(dolist (f '(gptel-openai gptel-openai-responses gptel-anthropic gptel-gemini
             gptel-ollama gptel-bedrock))
  (require f))
(require 'mcp)
(setenv "PYTHONPATH" {lisp(str(ROOT / "src"))})
(push {lisp(str(ROOT / "elisp"))} load-path)
(require 'plistspec)
(setq plistspec-executable (list {" ".join(lisp(x) for x in exe)}))
(setq plistspec-gptel-wait 60)
"""


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


def run_emacs(code: str, timeout: float = 600) -> subprocess.CompletedProcess:
    with tempfile.NamedTemporaryFile("w", suffix=".el", delete=False, encoding="utf-8") as f:
        f.write(";; -*- lexical-binding: t; coding: utf-8 -*-\n" + code)
        script = f.name
    try:
        return subprocess.run(
            ["emacs", "--batch", "-Q", "-l", script],
            capture_output=True,
            timeout=timeout,
            env={**os.environ, "HOME": tempfile.gettempdir()},
        )
    finally:
        os.unlink(script)


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
        out = Path(tmp) / "out.json"
        cfg = Path(tmp) / "config.json"
        cfg.write_text(
            json.dumps(
                {
                    "host": stub.host,
                    "mode": mode,
                    "out": str(out),
                    "scenarios": scenarios,
                    **extra,
                    "mcp": [
                        [s, str(ROOT / "fixtures" / "json" / f"mcp_{s}_server.json")]
                        for s in MCP_SERVERS
                    ]
                    + (mcp or []),
                }
            )
        )
        code = (
            preamble(deps, executable)
            + before
            + f"(setq harness-config {lisp(str(cfg))})\n"
            + f"(load {lisp(str(HERE / 'harness.el'))} nil t)\n"
        )
        proc = run_emacs(code)
        err = proc.stderr.decode("utf-8", "replace")
        if proc.returncode != 0 or not out.exists():
            short = "\n".join(x[:300] for x in err.splitlines() if not x.startswith("  "))
            raise AssertionError(f"emacs exited {proc.returncode}:\n{short[-4000:]}")
        return json.loads(out.read_text()), list(stub.requests), err
