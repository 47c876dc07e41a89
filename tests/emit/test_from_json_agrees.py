"""What from-json writes, check accepts (issue 23 §4): snake_case property names make
readable stub parameters, a property the JSON gives no type is written as it is *and*
passes check (a PS313 suppression on its line, which a :type added later turns into a
PS920), and --category files every gptel tool under one category, as real gptel sees it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from plistspec.checking.run import Settings, findings
from plistspec.cli import main
from plistspec.elisp.reader import read_all

ROOT = Path(__file__).resolve().parents[2]

SNAKE = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a file.",
        "parameters": {
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Path."},
                "max_bytes": {"type": "integer", "description": "Limit."},
                "opts": {"description": "Anything."},
                "filter": {
                    "type": "object",
                    "description": "Filter.",
                    "properties": {"value": {"description": "Any value."}},
                },
                "all": {"allOf": [{"type": "string"}, {"maxLength": 3}], "description": "A."},
                "file-path": {"type": "string", "description": "Kebab."},
            },
            "required": ["file_path"],
        },
    },
}


def check_text(text: str, name: str):
    """What `plistspec check` reports (suppression comments applied)."""
    return findings(text, name, Settings())


def _cli(*args: str, stdin: str | None = None):
    return CliRunner().invoke(main, list(args), input=stdin)


def _from_json(value, *args: str):
    r = _cli("from-json", *args, "-", stdin=json.dumps(value))
    assert r.exit_code == 0, r.output
    return r


def test_snake_case_properties_name_the_stub_parameters() -> None:
    text = _from_json(SNAKE).stdout
    assert "(lambda (_file_path _max_bytes _opts _filter _all _file-path)" in text, (
        text
    )  # not _arg1: the names say what each argument is
    assert "_arg" not in text


def test_check_accepts_what_from_json_writes() -> None:
    r = _from_json(SNAKE)
    text = r.stdout
    codes = [d.code for d in check_text(text, "t.el")]
    assert "PS313" not in codes and "PS920" not in codes, codes
    assert not [d for d in check_text(text, "t.el") if d.severity == "error"]
    # the typeless property, the typeless nested one and the allOf member: one comment each
    marked = [ln for ln in text.split("\n") if "; plistspec: ignore[PS313]" in ln]
    assert len(marked) == 3, marked
    assert any('( :name "opts"' in ln for ln in marked)
    assert any(":properties ( :value" in ln for ln in marked)
    assert any(":allOf [" in ln for ln in marked)
    # the file still says exactly what the JSON said (no :type was invented)
    ir = json.loads(_cli("to-json", "-", stdin=text).stdout)
    props = ir[0]["parameters"]["properties"]
    assert "type" not in props["opts"] and "type" not in props["filter"]["properties"]["value"]
    # a :type added later leaves the comment silencing nothing: PS920 says so
    typed = text.replace(
        '\'( :name "opts"  ; plistspec: ignore[PS313]',
        '\'( :name "opts" :type string  ; plistspec: ignore[PS313]',
    )
    assert typed != text
    assert "PS920" in [d.code for d in check_text(typed, "t.el")]


def test_every_fixture_from_json_writes_passes_check_without_ps313() -> None:
    for f in sorted((ROOT / "fixtures" / "json").glob("*.json")):
        r = _cli("from-json", str(f))
        if r.exit_code != 0:
            continue
        codes = {d.code for d in check_text(r.stdout, f.name)}
        assert "PS313" not in codes and "PS920" not in codes, (f.name, codes)


def test_llm_files_keep_the_finding() -> None:
    """llm sends a missing :type as "type": "nil": a real problem, reported by both."""
    r = _from_json(SNAKE, "-d", "llm")
    assert "PS520" in r.stderr and "plistspec: ignore" not in r.stdout
    assert "PS313" in [d.code for d in check_text(r.stdout, "t.el")]


def test_category_files_every_tool(tmp_path: Path) -> None:
    tools = [SNAKE, json.loads(json.dumps(SNAKE).replace("read_file", "write_file"))]
    text = _from_json(tools, "--category", "files").stdout
    forms = read_all(text)
    made = [f for f in forms if getattr(f.items[0], "name", "") == "gptel-make-tool"]
    assert len(made) == 2 and text.count(':category "files"') == 2
    # IR that has a category of its own: replaced, and said
    ir = json.loads(_cli("to-json", "-", stdin=text).stdout)
    r = _cli("from-json", "--category", "io", "-", stdin=json.dumps(ir))
    assert r.exit_code == 0 and r.stdout.count(':category "io"') == 2
    assert r.stderr.count("[PS531]") == 2 and ':category "files" is replaced by "io"' in r.stderr
    # llm has no categories
    r = _cli("from-json", "-d", "llm", "--category", "x", "-", stdin=json.dumps(SNAKE))
    assert r.exit_code == 2 and "--category" in r.output


@pytest.mark.slow
@pytest.mark.emacs
def test_real_gptel_files_the_tools_under_the_category(emacs, elisp_deps_dir, tmp_path) -> None:
    from support import elisp_deps_preamble

    out = tmp_path / "cat-tools.el"
    r = _cli("from-json", "--category", "github", "-o", str(out), "-", stdin=json.dumps(SNAKE))
    assert r.exit_code == 0, r.output
    got = emacs.run(
        elisp_deps_preamble(elisp_deps_dir)
        + f"(push {json.dumps(str(tmp_path))} load-path)\n(require 'cat-tools)\n"
        + '(princ (gptel-tool-category (gptel-get-tool (list "github" "read_file"))))'
    )
    assert got == "github"
