"""PS003: ``check`` given a file that is not Emacs Lisp says so once; a Markdown or Org
file is read for its Emacs Lisp source blocks, at the file's own lines and columns."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from plistspec.checking.run import Settings, findings
from plistspec.elisp.embedded import elisp_view

PY = 'def greet(who: str) -> str:\n    """Greet (someone."""\n    return f"Hello {who}"\n'
BLOCK = (
    '(gptel-make-tool :name "greet" :description "Greet." :function #\'ignore\n'
    ' :args (list \'(:name "who" :type strin :description "Who")))\n'
)
MD = '# Tools "quote (\n\nProse.\n\n```emacs-lisp\n' + BLOCK + "```\n\n```python\nx = (\n```\n"
ORG = '* Tools\nProse "(.\n#+BEGIN_SRC elisp :tangle yes\n' + BLOCK + "#+END_SRC\n"


def _codes(text: str, path: str) -> list[tuple[str, str, int, int]]:
    return [(d.code, d.severity, d.line, d.column) for d in findings(text, path, Settings())]


def test_python_is_one_error() -> None:
    assert _codes(PY, "tools.py") == [("PS003", "error", 1, 1)]
    (d,) = findings(PY, "tools.py", Settings())
    assert "this is Python, not Emacs Lisp" in d.message and "from-py" in d.message


@pytest.mark.parametrize("name", ["notes.md", "notes.org", "README.markdown"])
def test_prose_without_a_block_is_one_warning(name: str) -> None:
    assert _codes('# Title\n\nProse with a "quote and a (.\n', name) == [("PS003", "warning", 1, 1)]


@pytest.mark.parametrize(("name", "text", "line"), [("t.md", MD, 7), ("t.org", ORG, 5)])
def test_source_blocks_are_checked_in_place(name: str, text: str, line: int) -> None:
    # :type strin is on the block's second line; the prose and the Python block are not read
    assert _codes(text, name) == [("PS314", "error", line, 34)]


def test_the_view_keeps_offsets() -> None:
    view = elisp_view("t.md", MD)
    assert view.text is not None and len(view.text) == len(MD) and view.blocks == 1
    assert view.text.count("\n") == MD.count("\n")
    start = MD.index("(gptel")
    assert view.text[start : start + len(BLOCK)] == BLOCK
    assert view.text[:start].strip() == ""
    assert elisp_view("t.el", MD).text is MD and elisp_view(None, PY).text is PY


@pytest.mark.slow
def test_command_line(tmp_path: Path) -> None:
    py = tmp_path / "tools.py"
    py.write_text(PY, encoding="utf-8")
    run = [sys.executable, "-m", "plistspec", "check"]
    p = subprocess.run([*run, str(py)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1
    assert p.stdout.count("\n") == 1 and p.stdout.endswith("[PS003]\n"), p.stdout
    p = subprocess.run(
        [*run, "-", "--stdin-filename", "x.py"],
        input=PY,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 1 and p.stdout.startswith("x.py:1:1: error: this is Python")


GOOD = '(gptel-make-tool :name "greet" :description "Greet." :function #\'ignore :args nil)\n'
# a tool form in the prose (read as Emacs Lisp it would be one) and one in a block
PROSE_FORM = (
    'Call\n(gptel-make-tool :name "prose" :description "In prose.")\nas this shows:\n\n'
    "```elisp\n" + GOOD + "```\n"
)


@pytest.mark.parametrize(
    ("name", "text", "count"),
    [("t.md", PROSE_FORM, 1), ("t.el", GOOD + GOOD.replace("greet", "hi"), 2), ("t.py", PY, 0)],
)
def test_tool_forms_counted_as_checked(name: str, text: str, count: int) -> None:
    """``check``'s summary counts the tool forms it checked: a Markdown file's are those
    of its Emacs Lisp blocks, not a form in its prose (it once read the whole file again)."""
    tally: dict[str, int] = {}
    findings(text, name, Settings(), tally)
    assert tally == {"tool_forms": count}


def test_summary_line_counts_the_blocks(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from plistspec.cli import main

    (tmp_path / "t.md").write_text(PROSE_FORM, encoding="utf-8")
    r = CliRunner().invoke(main, ["check", str(tmp_path / "t.md")])
    assert r.exit_code == 0, r.output
    assert "All checks passed! 1 file read, 1 tool form found." in r.output
