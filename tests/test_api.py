"""The public API composes the stages; one bad form does not hide the others' tools."""

from __future__ import annotations

import plistspec

TOOL = '(gptel-make-tool :name "t" :description "d" :function #\'ignore)'


def test_unsupported_syntax_elsewhere_costs_only_its_form():
    text = "(defvar h #s(hash-table data (a 1)))\n" + TOOL + "\n"
    tools, diags = plistspec.read_tools(text, path="init.el")
    assert [t["name"] for t in tools] == ["t"]
    assert [(d.code, d.severity, d.line, d.column) for d in diags] == [("PS002", "info", 1, 11)]


def test_a_syntax_error_is_an_error_and_to_json_refuses():
    text = '(defvar x "unterminated)\n\n' + TOOL + "\n"
    tools, diags = plistspec.read_tools(text, path="f.el")
    assert any(d.code == "PS001" and d.severity == "error" for d in diags)
    assert plistspec.to_json(text, "openai").value is None


def test_to_json_gives_the_provider_value():
    value, diags = plistspec.to_json(TOOL, "anthropic")
    assert diags == []
    assert value == [
        {
            "name": "t",
            "description": "d",
            "input_schema": {"type": "object", "properties": {}, "required": []},
        }
    ]


def test_check_can_be_called_twice():
    # plistspec.check once got shadowed by a submodule of the same name
    assert plistspec.check(TOOL) == plistspec.check(TOOL)
