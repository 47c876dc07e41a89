"""from-json's file options: --forms-only (what an editor inserts), --variable/--feature
and the provide/defvar frame, checked through the command line."""

from __future__ import annotations

import json

from plistspec.elisp.datum import List, Symbol
from plistspec.elisp.reader import read_all

TWO = json.dumps(
    [
        {
            "type": "function",
            "function": {
                "name": "a",
                "description": "A.",
                "parameters": {"type": "object", "properties": {"x": {"type": "string"}}},
            },
        },
        {"name": "b", "description": "B.", "inputSchema": {"type": "object"}, "title": "Bee"},
    ]
)


def _cli(*args: str, stdin: str | None = None):
    from click.testing import CliRunner

    from plistspec.cli import main

    return CliRunner().invoke(main, list(args), input=stdin)


def test_forms_only_writes_just_the_tool_forms() -> None:
    for dialect in ("gptel", "llm"):
        r = _cli("from-json", "--forms-only", "-d", dialect, "-", stdin=TWO)
        assert r.exit_code == 0, r.stderr
        text = r.stdout
        forms = read_all(text)
        head = {"gptel": "gptel-make-tool", "llm": "llm-make-tool"}[dialect]
        assert [f.items[0] for f in forms] == [Symbol(head), Symbol(head)]
        assert all(isinstance(f, List) for f in forms)
        for banned in ("lexical-binding", "Commentary", "(require", "(provide", "ends here"):
            assert banned not in text
        assert ';; MCP title: "Bee"' in text  # the comments of a form stay with it
        assert "\n\n" in text and not text.startswith("\n") and text.endswith(")\n")
    # warnings still go to stderr, never into the forms
    r = _cli("from-json", "--forms-only", "-", stdin=TWO.replace('"A."', '"A.", "strict": 1'))
    assert "PS503" in r.stderr and "PS503" not in r.stdout
