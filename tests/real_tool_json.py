"""Run tool forms through the REAL gptel and llm (``real_tool_json.el``) in one
``emacs --batch``: what both ground-truth generators (``tests/lower/gen_semantics.py``,
``tests/corpus/gen_expected.py``) record and what ``tests/lower/test_tables_real.py``
holds the recorded tables to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from support import elisp_deps_preamble

GLUE = Path(__file__).resolve().parent / "real_tool_json.el"
FAMILIES = ("openai", "anthropic", "llm")


def run_pairs(
    cases: list[tuple[str, str]], deps: Path, exe: str = "emacs", timeout: float = 600
) -> list[dict]:
    """Each ``(gptel text, llm text)`` pair as a table row ``{"id", "elisp", "openai",
    "anthropic", "llm"}``, a family's value ``{"json": tools}`` or ``{"error": signal}``."""
    entries = []
    for i, (g, lt) in enumerate(cases):
        entries += [[i, "gptel", g], [i, "llm", lt]]
    with tempfile.TemporaryDirectory() as tmp:
        src, out, boot = Path(tmp, "in.json"), Path(tmp, "out.jsonl"), Path(tmp, "boot.el")
        src.write_text(json.dumps(entries, ensure_ascii=False), encoding="utf-8")
        boot.write_text(
            ";; -*- lexical-binding: t -*-\n"
            + elisp_deps_preamble(deps)
            + f'(load "{GLUE.as_posix()}" nil t)\n'
            + f'(plistspec-rtj-run "{src.as_posix()}" "{out.as_posix()}")\n',
            encoding="utf-8",
        )
        proc = subprocess.run(
            [exe, "--batch", "-Q", "-l", str(boot)], capture_output=True, timeout=timeout
        )
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(proc.stderr.decode("utf-8", "replace")[-2000:])
        lines = out.read_text(encoding="utf-8").splitlines()
    rows = [{"id": i, "elisp": g} for i, (g, _) in enumerate(cases)]
    for line in lines:
        rec = json.loads(line)
        if "error" in rec:
            value = {"error": rec["error"]}
        else:  # the JSON text as Emacs wrote it: the line's tail
            text = line[line.index(',"json":') + len(',"json":') : -1]
            value = _value(text)
        rows[rec["id"]][rec["family"]] = value
    return rows


class _Repeated(Exception):
    pass


def _pairs(pairs: list[tuple[str, object]]) -> dict:
    if len({k for k, _ in pairs}) != len(pairs):
        raise _Repeated
    return dict(pairs)


def _value(text: str) -> dict:
    """``{"json": parsed}``, or ``{"json_text": text}`` where an object repeats a key
    (Emacs 30 sends every occurrence; a parsed object would keep only one)."""
    try:
        return {"json": json.loads(text, object_pairs_hook=_pairs)}
    except _Repeated:
        return {"json_text": text}


def emacs_major(exe: str) -> int:
    """The major version of the Emacs ``exe``."""
    out = subprocess.run(
        [exe, "--batch", "-Q", "--eval", "(princ emacs-major-version)"],
        capture_output=True,
        timeout=60,
        check=True,
    )
    return int(out.stdout)


def expected(row: dict, family: str, major: int) -> dict:
    """What a table row records for ``family`` on Emacs ``major`` (28, or 30 where its
    ``emacs30`` entry says Emacs 30 differs)."""
    if major == 30:
        return row.get("emacs30", {}).get(family, row[family])
    return row[family]


def record(rows28: list[dict], rows30: list[dict]) -> list[dict]:
    """The Emacs 28 rows, each with an ``emacs30`` entry for the families Emacs 30
    sends (or signals) differently."""
    for r28, r30 in zip(rows28, rows30, strict=True):
        differ = {f: r30[f] for f in FAMILIES if r30[f] != r28[f]}
        if differ:
            r28["emacs30"] = differ
    return rows28


def llm_text(gptel_text: str) -> str:
    """The llm form of a recorded gptel form: a ``progn`` (wrapper definitions, then the
    call) with every ``gptel-make-tool`` renamed, any other form its head only."""
    if gptel_text.startswith("(progn "):
        return gptel_text.replace("gptel-make-tool", "llm-make-tool")
    return gptel_text.replace("(gptel-make-tool", "(llm-make-tool", 1)


def generate(pairs: list[tuple[str, str]]) -> list[dict]:
    """The table rows of ``pairs``, run on Emacs 28 (``PLISTSPEC_EMACS28``, default
    ``emacs``) and 30 (``PLISTSPEC_EMACS30``, default /opt/plistspec-emacs-30.1/bin/emacs)."""
    from support import elisp_deps

    deps = elisp_deps()
    if deps is None:
        sys.exit("the real gptel/llm are absent: set PLISTSPEC_ELISP_DEPS")
    e28 = os.environ.get("PLISTSPEC_EMACS28", "emacs")
    e30 = os.environ.get("PLISTSPEC_EMACS30", "/opt/plistspec-emacs-30.1/bin/emacs")
    if (emacs_major(e28), emacs_major(e30)) != (28, 30):
        sys.exit(f"{e28} must be Emacs 28 and {e30} Emacs 30")
    return record(run_pairs(pairs, deps, e28), run_pairs(pairs, deps, e30))
