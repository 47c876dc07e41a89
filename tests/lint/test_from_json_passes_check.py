"""What the project writes passes its own ``check``: every fixture's MCP/provider JSON,
written by ``from-json`` as gptel and as llm forms (and lowered for a target, checked
for that target), gives ``check`` exit 0.

Tool names with dots (``fs.write_file``, which MCP and Gemini take and gptel/llm send as
they are) are PS339, a warning, without ``-t``; ``check -t openai`` applies OpenAI's rule
(PS401) and ``from-json -t openai`` maps the name. A fixture ``from-json`` itself refuses
(a recursive ``$ref``: PS510) writes no file and says why.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from plistspec.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "fixtures" / "json").rglob("*.json"))
REFUSED = {"mcp_jsonrpc.json": "PS510", "mcp_recursive_tree.json": "PS510"}


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("dialect", ["gptel", "llm"])
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_from_json_output_passes_check(path: Path, dialect: str, tmp_path: Path) -> None:
    out = tmp_path / "tools.el"
    made = _run("from-json", "-d", dialect, str(path), "-o", str(out))
    if path.name in REFUSED:
        assert made.exit_code == 1 and f"[{REFUSED[path.name]}]" in made.stderr
        assert not out.exists()
        return
    assert made.exit_code == 0, made.stderr
    checked = _run("check", str(out))
    assert checked.exit_code == 0, checked.stdout
    assert ": error:" not in checked.stdout


@pytest.mark.parametrize("target", ["openai", "anthropic", "gemini"])
def test_lowered_output_passes_check_for_its_target(target: str, tmp_path: Path) -> None:
    for path in FIXTURES:
        if path.name in REFUSED:
            continue
        out = tmp_path / f"{path.stem}.el"
        made = _run("from-json", "-t", target, str(path), "-o", str(out))
        assert made.exit_code == 0, (path.name, made.stderr)
        checked = _run("check", "-t", target, str(out))
        assert checked.exit_code == 0, (path.name, checked.stdout)


def test_dotted_names_are_a_warning_until_a_target_refuses_them() -> None:
    from plistspec.checking.checker import check_text

    text = (
        '(gptel-make-tool :name "fs.write_file" :description "Write." :function #\'ignore\n'
        ' :args (list \'(:name "path" :type string :description "Where")))\n'
    )

    def codes(target: str | None) -> set[tuple[str, str]]:
        return {(d.code, d.severity) for d in check_text(text, "t.el", target)}

    assert codes(None) == {("PS339", "warning")}
    assert ("PS401", "error") in codes("openai") and "PS339" not in {c for c, _ in codes("openai")}
    assert codes("mcp") == set() and codes("gemini") == set()
    # a name no provider takes stays an error
    spaced = text.replace("fs.write_file", "write file")
    assert {(d.code, d.severity) for d in check_text(spaced, "t.el")} == {("PS307", "error")}
