"""The Elisp writer: layout, determinism, value mapping, escaping, and the llm dialect."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plistspec.core.ir import make_tool
from plistspec.elisp.datum import List, Symbol, Vector, quoted
from plistspec.elisp.reader import read_all
from plistspec.emit_elisp import reindent, to_elisp, tool_form_text


def _tool(props, required=None, **meta):
    params = {"type": "object", "properties": props}
    if required is not None:
        params["required"] = required
    return make_tool("t", "A tool.", params, dict(meta))


def _plist(d):
    items = d.items
    return {items[i].name: items[i + 1] for i in range(0, len(items), 2)}


def _args(form_text: str):
    (form,) = read_all(form_text)
    slots = _plist(List(form.items[1:]))
    args = slots[":args"]
    assert isinstance(args, List) and args.items[0] == Symbol("list")
    return slots, [_plist(quoted(a)) for a in args.items[1:]]


def test_readme_layout() -> None:
    tool = _tool(
        {
            "location": {"type": "string", "description": "City"},
            "unit": {"type": "string", "enum": ["c", "f"]},
        },
        ["location"],
        function="#'my-weather",
    )
    text = tool_form_text(tool)
    lines = text.split("\n")
    assert lines[0] == "(gptel-make-tool"
    assert [ln.split()[0] for ln in lines[1:4]] == [":name", ":function", ":description"]
    assert all(ln.startswith(" :") for ln in lines[1:5])
    assert lines[4].startswith(' :args (list \'( :name "location"')
    col = lines[4].index(":name")
    # every key of the arg plists is aligned under :name
    keys = [ln for ln in lines[5:] if ln.strip().startswith(":")]
    assert keys and all(len(ln) - len(ln.lstrip()) == col for ln in keys)
    assert "\t" not in text and "'string" not in text and ":type string" in text
    assert lines[-1].endswith(":optional t)))")


def test_optional_matched_by_name_not_position() -> None:
    tool = _tool(
        {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}}, ["c", "a"]
    )
    _, args = _args(tool_form_text(tool))
    opt = {a[":name"].value: a.get(":optional") for a in args}
    assert opt == {"a": None, "b": Symbol("t"), "c": None}


def test_json_values_map_to_elisp() -> None:
    schema = {
        "type": "object",
        "default": {"t": True, "f": False, "n": None, "e": {}, "a": [], "v": [1, 2.5, "x"]},
        "properties": {},
    }
    _, (arg,) = _args(tool_form_text(_tool({"x": schema}, ["x"])))
    d = _plist(arg[":default"])
    assert (
        d[":t"] == Symbol("t") and d[":f"] == Symbol(":json-false") and d[":n"] == Symbol(":null")
    )
    assert d[":e"] == Symbol("nil") and d[":a"] == Vector([])
    assert isinstance(d[":v"], Vector) and len(d[":v"]) == 3
    assert arg[":properties"] == Symbol("nil")


def test_same_ir_same_bytes_and_no_mutation() -> None:
    tool = _tool(
        {
            "a": {
                "type": "object",
                "properties": {"b": {"type": "array", "items": {"type": "string"}}},
            }
        },
        ["a"],
    )
    before = json.dumps(tool)
    assert tool_form_text(tool) == tool_form_text(json.loads(before))
    assert json.dumps(tool) == before
    assert to_elisp([tool])[0] == to_elisp([tool])[0]


def test_file_frame() -> None:
    text, _ = to_elisp([_tool({"a": {"type": "string"}}, ["a"])], file_name="my-tools.el")
    first = text.split("\n", 1)[0]
    assert first.startswith(";;; my-tools.el --- ") and first.endswith(
        "-*- lexical-binding: t; -*-"
    )
    assert text.endswith(";;; my-tools.el ends here\n") and "(provide 'my-tools)" in text
    assert "(require 'gptel)" in text
    text, _ = to_elisp([make_tool("t", "Größe", None, {})])
    assert "coding: utf-8" in text.split("\n", 1)[0]


def test_stub_function_and_zero_arg() -> None:
    text = tool_form_text(make_tool("now", "Time.", None, {}))
    assert ":args" not in text
    (form,) = read_all(text)
    fn = _plist(List(form.items[1:]))[":function"]
    assert fn.items[0] == Symbol("lambda") and fn.items[1] == Symbol("nil")
    assert "user-error" in text and '"now"' in text


def test_slots_written_back_and_reindented() -> None:
    slots = [
        {
            "key": ":function",
            "text": '(lambda (x)\n             (concat "a\n   b" x))',
            "column": 11,
        },
        {"key": ":category", "text": '"files"', "column": 11},
        {"key": ":confirm", "text": "t", "column": 11},
    ]
    tool = _tool({"x": {"type": "string"}}, ["x"], slots=slots)
    text = tool_form_text(tool, indent=4)
    assert "\n" + " " * 17 + '(concat "a\n   b" x))' in text  # shifted by 4, string body untouched
    assert (
        text.index(":function")
        < text.index(":description")
        < text.index(":args")
        < text.index(":category")
    )
    assert reindent("(a\n  b)", 3, 1) == "(a\nb)" and reindent("(a\n b)", 3, 0) == "(a\nb)"


def test_odd_names_read_back() -> None:
    names = [
        "a b",
        "#x",
        "?q",
        ".",
        "1",
        "1.5",
        "-1",
        "",
        ":x",
        "a;b",
        "é",
        "x\\y",
        "(p)",
        "[v]",
        'q"',
    ] + ["\u00a0nb"]
    obj = {n: i for i, n in enumerate(names)}
    schema = {
        "type": "object",
        "properties": {n: {"type": "string"} for n in names if n},
        "default": obj,
    }
    _, (arg,) = _args(tool_form_text(_tool({"x": schema}, ["x"])))
    back = arg[":default"].items
    got = [back[i].name for i in range(0, len(back), 2)]
    assert got == ["" if n == "" else ":" + n for n in names]


def test_llm_dialect_keeps_only_what_llm_keeps() -> None:
    tool = _tool(
        {
            "a": {"format": "date", "type": ["string", "null"], "description": "d", "minLength": 1},
            "b": {
                "type": "object",
                "properties": {"n": {"type": "null", "default": None, "x": False}},
            },
            "c": {"anyOf": [{"type": "string"}]},
        },
        ["a"],
    )
    text, diags = to_elisp([tool], "llm")
    form = read_all(text)[-2].items[2].items[1]  # (defvar tools-tools (list FORM) "doc")
    assert form.items[0] == Symbol("llm-make-tool")
    slots = _plist(List(form.items[1:]))
    args = [_plist(a) for a in quoted(slots[":args"]).items]
    # a required nullable: the non-null type, and :optional t (llm cannot send null)
    assert list(args[0]) == [":name", ":type", ":description", ":optional"]
    assert args[0][":type"] == Symbol("string")
    n = _plist(_plist(args[1][":properties"])[":n"])
    assert n[":default"] == Symbol("nil") and n[":x"] == Symbol(":false")
    msgs = " ".join(d.message for d in diags)
    for word in (":format", ":minLength", ":anyOf"):
        assert word in msgs
    assert "type array" not in msgs  # nothing is lost there


_names = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=8
)
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**40), 2**40), st.text(max_size=20))
_json = st.recursive(
    _scalars,
    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(_names, c, max_size=3)),
    max_leaves=10,
)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(_json)
def test_flat_and_multiline_read_back_the_same(value) -> None:
    schema = {"type": "object", "properties": {}, "default": value}
    text = tool_form_text(_tool({"x": schema}, ["x"]))
    _, (arg,) = _args(text)
    from plistspec.replay.lisp import from_datum
    from plistspec.replay.lispjson import GPTEL, serialize

    assert serialize(from_datum(arg[":default"]), GPTEL) == value
