"""emit(): formats, mixed dialects, tools without a dialect, MCP, metadata."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lower"))
from lower_helpers import lower_text  # noqa: E402

from plistspec.core.ir import make_tool  # noqa: E402
from plistspec.core.jsonout import dumps  # noqa: E402
from plistspec.emit_json import SUPPORTED_FORMATS, emit  # noqa: E402
from support import GRAMMARS  # noqa: E402

GPTEL = '(gptel-make-tool :name "g" :description "d" :args \'((:name "a" :type string)))'
LLM = '(llm-make-tool :name "l" :description "d" :args \'((:name "a" :type string)))'


def test_supported_formats() -> None:
    assert set(SUPPORTED_FORMATS) == {
        "ir",
        "openai",
        "openai-responses",
        "anthropic",
        "gemini",
        "vertex",
        "bedrock",
        "ollama",
        "mcp",
    }
    with pytest.raises(ValueError):
        emit([], "nope")


def test_mixed_dialects_gemini_wrapper() -> None:
    g, _ = lower_text(GPTEL)
    lt, _ = lower_text(LLM)
    (w,), _ = emit([g, lt], "gemini")
    assert list(w) == ["functionDeclarations"]
    assert [d["name"] for d in w["functionDeclarations"]] == ["g", "l"]
    assert w["functionDeclarations"][0]["parameters"]["required"] == ["a"]
    (w2,), _ = emit([lt], "gemini")
    assert list(w2) == ["function_declarations"]


def test_dialect_override() -> None:
    tool, _ = lower_text(GPTEL, "llm")
    assert tool["metadata"]["dialect"] == "llm"
    assert "additionalProperties" not in emit([tool], "openai")[0][0]["function"]["parameters"]


def test_plain_tools() -> None:
    t = make_tool(
        "f",
        "does f",
        {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
    )
    z = make_tool("z", None)
    (o,), _ = emit([t], "openai")
    assert o == {
        "type": "function",
        "function": {"name": "f", "description": "does f", "parameters": t["parameters"]},
    }
    (w,), _ = emit([t, z], "gemini")
    assert w["functionDeclarations"][1] == {"name": "z"}
    assert emit([z], "anthropic")[0] == [
        {"name": "z", "input_schema": {"type": "object", "properties": {}}}
    ]
    assert emit([t], "bedrock")[0][0]["toolSpec"]["inputSchema"]["json"] == t["parameters"]


def test_mcp() -> None:
    g, _ = lower_text(GPTEL)
    (m,), _ = emit([g], "mcp")
    assert m == {"name": "g", "description": "d", "inputSchema": g["parameters"]}
    z, _ = lower_text('(gptel-make-tool :name "z")')
    assert emit([z], "mcp")[0][0]["inputSchema"] == {"type": "object", "properties": {}}


def test_metadata_and_schema() -> None:
    import jsonschema

    text = (
        ';; c\n(gptel-make-tool :name "g" :function #\'identity :category "files" :confirm t\n'
        " :include nil :async t :tags '(a) :args nil)"
    )
    tool, diags = lower_text(text)
    assert diags == []
    meta = tool["metadata"]
    assert (
        meta["dialect"] == "gptel" and meta["head"] == "gptel-make-tool" and meta["args"] == "nil"
    )
    assert meta["function"] == "#'identity" and meta["async"] is True
    assert meta["category"] == "files" and meta["confirm"] is True and meta["include"] == {}
    assert [s["key"] for s in meta["slots"]] == [
        ":function",
        ":category",
        ":confirm",
        ":include",
        ":async",
        ":tags",
    ]
    fn = meta["slots"][0]
    line = text.splitlines()[1]
    assert line[fn["column"] : fn["column"] + len(fn["text"])] == fn["text"]
    assert meta["source"] == {
        "path": "t.el",
        "line": 2,
        "column": 1,
        "end_line": 3,
        "end_column": 45,
    }
    schema = json.loads((GRAMMARS / "ir.schema.json").read_text())
    jsonschema.validate([tool], schema, cls=jsonschema.Draft202012Validator)


def test_gptel_parameters_metadata_validates() -> None:
    import jsonschema

    tool, _ = lower_text(
        '(gptel-make-tool :name "t" :args \'((:name "a" :type string :anyOf ((:x)))))'
    )
    assert "error" in tool["metadata"]["gptel_parameters"]["gemini"]
    schema = json.loads((GRAMMARS / "ir.schema.json").read_text())
    jsonschema.validate([tool], schema, cls=jsonschema.Draft202012Validator)


def test_non_static_args_skipped_silently() -> None:
    tool, diags = lower_text('(gptel-make-tool :name "t" :args my-args)')
    assert tool is None and not any(d.code.startswith("PS2") for d in diags)


def test_deep_nesting_refused_without_recursion() -> None:
    inner = '(:type "string")'
    for _ in range(300):
        inner = f'(:type "array" :items {inner})'
    tool, diags = lower_text(f'(gptel-make-tool :name "t" :args \'((:name "a" {inner[1:-1]})))')
    assert tool is None and diags[0].code == "PS204"


def test_dumps_format() -> None:
    assert dumps({"a": [1, 0.1, 1e20, "é\x01"], "b": {}}) == (
        '{\n  "a": [\n    1,\n    0.1,\n    1e+20,\n    "é\\u0001"\n  ],\n  "b": {}\n}\n'
    )
