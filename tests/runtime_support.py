"""What the gptel-mode and llm-mode tests share: running a mode's ``harness.el`` in real Emacs.

``tests/gptel_mode/gptel_harness.py`` and ``tests/llm_mode/llm_harness.py`` each start their
stub, build their preamble (the real gptel or llm, mcp.el, this checkout's plistspec) and call
:func:`run_harness_el`; the skip when the real libraries are absent, the Lisp string quoting,
the batch Emacs run and the MCP fixture servers are here, once.
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

from support import ELISP_DEPS_DIRS, ROOT, elisp_deps

MCP_SERVERS = ["everything", "filesystem", "github", "playwright"]
# The Elisp both harnesses load first (harness-record, harness-read-json...).
HARNESS_COMMON = Path(__file__).resolve().parent / "runtime_harness.el"


def deps_or_skip() -> Path:
    """The real gptel/llm sources, or a skip saying why the tests cannot run."""
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
    """``s`` as an Elisp string literal."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def preamble(deps: Path, library: str, settings: str, executable: list[str] | None = None) -> str:
    """Elisp loading the real ``library`` code (gptel or llm, with compat and mcp.el from
    ``deps``) and this checkout's plistspec (its CLI ``executable``, by default this
    checkout's ``python -m plistspec``), then ``settings``."""
    dirs = " ".join(lisp(str(deps / d)) for d in (*ELISP_DEPS_DIRS, "mcp.el"))
    exe = executable if executable is not None else [sys.executable, "-m", "plistspec"]
    return f"""
(dolist (d (list {dirs})) (push d load-path))
(require 'compat)
{library}
(require 'mcp)
(setenv "PYTHONPATH" {lisp(str(ROOT / "src"))})
(push {lisp(str(ROOT / "elisp"))} load-path)
(require 'plistspec)
(setq plistspec-executable (list {" ".join(lisp(x) for x in exe)}))
{settings}
"""


def mcp_servers() -> list[list[str]]:
    """``[SERVER, FILE]`` of each fixture MCP server's tools/list answer."""
    return [[s, str(ROOT / "fixtures" / "json" / f"mcp_{s}_server.json")] for s in MCP_SERVERS]


def run_emacs(code: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run Elisp ``code`` in ``emacs --batch -Q`` (HOME a temporary folder)."""
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


def servers_after_turning_on(preamble: str, mode: str, extra: str = "nil") -> str:
    """``(BEFORE LIVE EXTRA)`` printed by Emacs after ``preamble``: how many plistspec
    processes ran before ``(MODE 1)``, whether plistspec's process is live right after
    it (no request made), and the value of the Elisp form ``extra`` then."""
    code = (
        preamble
        + f"""
(let ((before (hash-table-count plistspec--servers)))
  ({mode} 1)
  (let ((proc (gethash (let ((default-directory (expand-file-name "~/")))
                         (plistspec-command))
                       plistspec--servers)))
    (princ (format "%S\\n" (list before (and (processp proc) (process-live-p proc) t)
                                {extra})))))
"""
    )
    proc = run_emacs(code, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    return proc.stdout.decode().strip()


def run_harness_el(
    harness: Path, code: str, config: dict[str, Any], folder: str
) -> tuple[dict[str, Any], str]:
    """Run ``harness`` after ``code`` with ``config`` (plus its ``out`` file, in ``folder``).

    Returns (what Emacs reported, Emacs's stderr); raises AssertionError with the end of the
    stderr when Emacs failed or wrote no report.
    """
    out = Path(folder) / "out.json"
    cfg = Path(folder) / "config.json"
    cfg.write_text(json.dumps({**config, "out": str(out)}))
    proc = run_emacs(
        code
        + f"(setq harness-config {lisp(str(cfg))})\n"
        + f"(load {lisp(str(HARNESS_COMMON))} nil t)\n"
        + f"(load {lisp(str(harness))} nil t)\n"
    )
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0 or not out.exists():
        short = "\n".join(x[:300] for x in err.splitlines() if not x.startswith("  "))
        raise AssertionError(f"emacs exited {proc.returncode}:\n{short[-4000:]}")
    return json.loads(out.read_text()), err
