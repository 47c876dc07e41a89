"""PS104: a file that makes tools gets either its tools read or one info per form that
makes a tool plistspec cannot read statically, so that silence means clean.

Every ``.el`` file of ``fixtures/`` and ``tests/lint/data/unread/`` (the shapes of real
repositories: kmontag/macher's ``(apply (if anon #'gptel--make-tool #'gptel-make-tool)
slots)``, ``(apply #'gptel-make-tool args)`` over a list built at run time, a user macro's
template, ``(funcall #'llm-make-tool ...)``) that names a tool constructor yields tools
or PS104; the constructor named where nothing is made (``declare-function``...) does not.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from plistspec.checking.checker import check_text
from plistspec.elisp.recover import read_recovering
from plistspec.extract import find_tools

ROOT = Path(__file__).resolve().parents[2]
UNREAD = Path(__file__).with_name("data") / "unread"
FILES = sorted((ROOT / "fixtures").rglob("*.el")) + sorted(UNREAD.glob("*.el"))
CONSTRUCTOR = re.compile(
    r"(?<![\w-])(gptel-make-tool|gptel--make-tool|llm-make-tool|make-llm-tool)(?![\w-])"
)


def _makes_tools(text: str) -> bool:
    """A constructor's name outside comments and strings (roughly: the line's code part)."""
    code = "\n".join(line.split(";", 1)[0] for line in text.splitlines())
    code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', code)
    return bool(CONSTRUCTOR.search(code))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_tools_or_the_info(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    if not _makes_tools(text):
        pytest.skip("names no tool constructor")
    diags = check_text(text, str(path))
    datums, _ = read_recovering(text)
    tools, _ = find_tools(datums, text)
    infos = [d for d in diags if d.code == "PS104"]
    assert tools or infos, "a file that makes tools passes check in silence"
    for d in infos:
        assert d.severity == "info"
        assert d.message.startswith("a tool is made here that plistspec cannot read statically: ")


def test_the_unreadable_shapes_get_one_info_each() -> None:
    got = {}
    for path in sorted(UNREAD.glob("*.el")):
        text = path.read_text(encoding="utf-8")
        got[path.name] = [
            (d.line, d.column) for d in check_text(text, path.name) if d.code == "PS104"
        ]
    assert got == {
        "apply_args.el": [(6, 5)],
        "funcall_llm.el": [(4, 3)],
        "macher.el": [(5, 3)],
        "user_macro.el": [(4, 4)],
    }


@pytest.mark.parametrize(
    "text",
    [
        '(declare-function gptel-make-tool "gptel")',
        '(when (fboundp \'gptel-make-tool) (message "ok"))',
        '(setq x \'(gptel-make-tool :name "quoted data"))',
        '(gptel-make-tool :name "t" :description "d" :function #\'ignore)',
        # a pass-through wrapper is read where it is called
        "(defun my-tool (&rest args) (apply #'gptel-make-tool args))\n"
        '(my-tool :name "t" :description "d" :function #\'ignore)',
        # spec plists handed to apply are read where they are written
        '(dolist (s (list \'(:name "t" :description "d" :function ignore)))\n'
        "  (apply #'gptel-make-tool s))",
    ],
)
def test_no_info_where_nothing_unread_is_made(text: str) -> None:
    assert [d for d in check_text(text, "x.el") if d.code == "PS104"] == []
