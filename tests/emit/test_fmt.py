"""plistspec fmt: canonical layout of tool forms only, byte preservation, idempotence, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plistspec.api import read_tools
from plistspec.emit_json import emit
from plistspec.fmt.rewrite import format_text

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "elisp"

MESSY = """;;; messy.el --- test  -*- lexical-binding: t; -*-
;; A comment that must stay.   Trailing spaces too.\x20\x20\x20

(defun my-fn (x y) (list x y))   ; unrelated code, kept byte for byte
(setq my-tools
      (list (gptel-make-tool :name "a" :description "The A tool." :function #'my-fn
                             :args (list '(:name "x" :type "string" :optional t)
                                         '(:name "y" :type integer :enum [1 2])) :category "c")))


\t(llm-make-tool :name "b" :args '((:name "q" :type string)) :description "B")
(gptel-make-tool :name "c" ; a comment in the form
  :description "C" :args nil)
(gptel-make-tool :name (my-name) :description "D")
"""


def _json(text: str) -> dict[str, str]:
    tools, _ = read_tools(text)
    return {f: json.dumps(emit(tools, f)[0]) for f in ("openai", "anthropic", "gemini")}


def test_only_tool_forms_change_and_json_is_the_same() -> None:
    new, diags = format_text(MESSY, "messy.el")
    assert new != MESSY
    head = MESSY[: MESSY.index("(setq")]
    assert new.startswith(head)  # comments, blank lines, trailing spaces, other code
    assert "(defun my-fn (x y) (list x y))   ; unrelated code, kept byte for byte" in new
    assert new.endswith('(gptel-make-tool :name (my-name) :description "D")\n')
    # the comment stays after the :name slot it trails; no slot is dropped or moved
    assert (
        '(gptel-make-tool\n :name "c" ; a comment in the form\n :description "C"\n :args nil)'
        in new
    )
    assert _json(new) == _json(MESSY)
    reasons = " ".join(d.message for d in diags if d.code == "PS530")
    assert "comment" not in reasons and "(gptel-make-tool ...)" not in reasons
    assert "\n\t(llm-make-tool\n\t :name" not in new and "(llm-make-tool\n" in new
    # string literals are kept as written: fmt lays out, it does not respell
    assert ':type "string"' in new


def test_idempotent() -> None:
    once, _ = format_text(MESSY)
    twice, _ = format_text(once)
    assert twice == once


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.el")), ids=lambda p: p.name)
def test_fixtures(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    new, _ = format_text(text, path.name)
    assert format_text(new)[0] == new
    assert _json(new) == _json(text)
    # the function slots are still there, as written
    for t_old, t_new in zip(read_tools(text)[0], read_tools(new)[0], strict=True):
        assert [s["key"] for s in t_old["metadata"]["slots"]] == [
            s["key"] for s in t_new["metadata"]["slots"]
        ]


def test_syntax_error_leaves_text() -> None:
    text = '(gptel-make-tool :name "a'
    new, diags = format_text(text)
    assert new == text and diags and diags[0].is_error


class _Result:
    def __init__(self, r) -> None:
        self.returncode = r.exit_code
        self.stdout = r.stdout
        self.stderr = r.stderr


def _cli(*args: str, stdin: str | None = None) -> _Result:
    from click.testing import CliRunner

    from plistspec.cli import main

    return _Result(CliRunner().invoke(main, list(args), input=stdin))


def test_cli_check_and_in_place(tmp_path: Path) -> None:
    f = tmp_path / "m.el"
    f.write_text(MESSY, encoding="utf-8")
    r = _cli("fmt", "--check", str(f))
    assert r.returncode == 1 and str(f) in r.stderr and f.read_text() == MESSY
    r = _cli("fmt", str(f))
    assert r.returncode == 0 and r.stdout == format_text(MESSY)[0]
    r = _cli("fmt", "--in-place", str(f))
    assert r.returncode == 0 and f.read_text() == format_text(MESSY)[0]
    r = _cli("fmt", "--check", str(f))
    assert r.returncode == 0
    assert _cli("fmt", "--check", "--in-place", str(f)).returncode == 2


def test_cli_from_json(tmp_path: Path) -> None:
    src = ROOT / "fixtures" / "json" / "mcp_tools_list.json"
    out = tmp_path / "mcp-tools.el"
    r = _cli("from-json", str(src), "-o", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith(";;; mcp-tools.el --- ") and "(gptel-make-tool" in text
    assert "PS524" in r.stderr  # outputSchema dropped, said so
    r = _cli("from-json", "-", "--dialect", "llm", stdin=src.read_text())
    assert r.returncode == 0 and "(llm-make-tool" in r.stdout
    r = _cli("from-json", "-", stdin='{"foo": 1}')
    assert r.returncode == 1 and "PS500" in r.stderr and r.stdout == ""
    r = _cli("from-json", "-", stdin="[NaN]")
    assert r.returncode == 1 and "invalid JSON" in r.stderr
    r = _cli("from-json", str(src), "--from", "anthropic")
    assert r.returncode == 1 and "not anthropic tool JSON" in r.stderr
    assert _cli("from-json", str(src), "--dialect", "nope").returncode == 2


def test_fmt_keeps_references_to_same_file_constants():
    """A form whose :args names a defconst is left as written, not inlined."""
    from plistspec.fmt.rewrite import format_text

    text = (
        '(defconst my-args (list \'(:name "x" :type string :description "d")))\n'
        '(gptel-make-tool :name "t" :description "d" :function #\'ignore :args my-args)\n'
    )
    out, diags = format_text(text)
    assert out == text
    assert any(d.code == "PS530" and "my-args" in d.message for d in diags)
