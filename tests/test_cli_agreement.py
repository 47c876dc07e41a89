"""The commands agree on their inputs and say what they left undone (issue 23 §4):
``to-json --lower`` refuses the JSON ``from-json`` refuses, with the same error at the
same place; ``check --fix`` says how many of the findings left have an unsafe fix, and
the option that applies them (as ruff does)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from plistspec.cli import main

NOT_TOOLS = [
    {"name": "pkg", "version": "1.0.0", "dependencies": {"a": "^1"}},  # a package.json
    [{"name": "a", "parameters": {"type": "object"}}, 3],
    {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "nope"}},
]


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


def test_to_json_lower_refuses_what_from_json_refuses(tmp_path: Path) -> None:
    for i, value in enumerate(NOT_TOOLS):
        f = tmp_path / f"x{i}.json"
        f.write_text(json.dumps(value, indent=2), encoding="utf-8")
        fj = _cli("from-json", str(f))
        tj = _cli("to-json", "-t", "gemini", "--lower", str(f))
        assert fj.exit_code == tj.exit_code == 1, (value, fj.output, tj.output)
        assert tj.stdout == "" and "[PS500]" in tj.stderr
        assert tj.stderr == fj.stderr  # the same error, at the same FILE:LINE:COL


def test_to_json_lower_still_reads_every_tool_fixture() -> None:
    root = Path(__file__).resolve().parent.parent / "fixtures" / "json"
    for f in sorted(root.glob("*.json")):
        if _cli("from-json", str(f)).exit_code == 0:
            r = _cli("to-json", "-t", "openai", "--lower", str(f))
            assert r.exit_code == 0 and json.loads(r.stdout), (f.name, r.output)


UNSAFE = """(gptel-make-tool :name "x" :description "d" :function (lambda (a b) a)
 :args (list '(:name "a" :type string :description "a" :enum ("x" "y"))
             '(:name "b" :type string :description "b" :enum ("p" "q"))))
"""


def test_fix_says_how_many_fixes_are_unsafe(tmp_path: Path) -> None:
    f = tmp_path / "t.el"
    f.write_text(UNSAFE, encoding="utf-8")
    r = _cli("check", "--fix", str(f))
    assert r.exit_code == 1
    assert r.stderr.rstrip().endswith(
        "Fixed 0 findings in 0 files; 2 left (2 errors); "
        "2 fixes are unsafe: --unsafe-fixes applies them."
    ), r.stderr
    assert f.read_text(encoding="utf-8") == UNSAFE
    r = _cli("check", "--diff", str(f))
    assert "2 fixes are unsafe: --unsafe-fixes applies them." in r.stderr
    r = _cli("check", "--fix", "--unsafe-fixes", str(f))
    assert r.exit_code == 0 and "unsafe" not in r.stderr.splitlines()[-1], r.stderr
    assert ":enum [" in f.read_text(encoding="utf-8")
    f.write_text(UNSAFE.replace(' :enum ("p" "q")', ""), encoding="utf-8")
    assert "; 1 fix is unsafe: --unsafe-fixes applies it." in _cli("check", "--fix", str(f)).stderr
