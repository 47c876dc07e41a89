"""llm 0.31.1's rules (semantics.md §7-§9), one test per row."""

from __future__ import annotations

import pytest
from lower_helpers import llm, lower_text


def params(args: str) -> dict:
    return llm(args)[0]["function"]["parameters"]


def test_fixed_key_order_and_dropped_keys() -> None:
    p = params(
        '\'((:name "a" :properties (:x (:type string)) :items (:type string) :enum ["e"] '
        ':description "d" :type object :required ["x"] :format "f" :minimum 0 :default "z"))'
    )
    assert list(p["properties"]["a"]) == ["type", "description", "enum", "items", "properties"]


@pytest.mark.parametrize(
    "typ,sent", [("string", "string"), (":string", ":string"), ("float", "float"), ("nil", "nil")]
)
def test_type_symbol_name(typ: str, sent: str) -> None:
    assert params(f'\'((:name "a" :type {typ}))')["properties"]["a"]["type"] == sent


def test_missing_type_is_nil_string() -> None:
    assert params('\'((:name "a"))')["properties"]["a"] == {"type": "nil"}


@pytest.mark.parametrize("typ", ['"string"', '["string" "null"]', "'string"])
def test_non_symbol_type_fails(typ: str) -> None:
    tool, diags = lower_text(f'(llm-make-tool :name "t" :args \'((:name "a" :type {typ})))')
    assert tool is None and diags[0].code == "PS202" and "symbolp" in diags[0].message
    assert diags[0].message.startswith("llm fails on this spec: ")


@pytest.mark.parametrize(
    "name,key,req",
    [
        ('"loc"', "loc", "loc"),
        ('""', ":", ""),
        (":loc", ":loc", ":loc"),
        ("sym", "sym", "sym"),
        ("5", "5", 5),
    ],
)
def test_property_keys_and_required(name: str, key: str, req) -> None:
    p = params(f"'((:name {name} :type string))")
    assert list(p["properties"]) == [key] and p["required"] == [req]


def test_missing_name() -> None:
    p = params("'((:type string))")
    assert p["properties"] == {"nil": {"type": "string"}} and p["required"] == ["nil"]


def test_required_omitted_when_empty_and_zero_arg() -> None:
    assert "required" not in params('\'((:name "a" :type string :optional t))')
    for fmt in ("openai", "anthropic", "gemini"):
        v = llm("nil", fmt)
        p = (
            v[0]["function"]["parameters"]
            if fmt == "openai"
            else (
                v[0]["input_schema"]
                if fmt == "anthropic"
                else v[0]["function_declarations"][0]["parameters"]
            )
        )
        assert p == {"type": "object", "properties": {}}


def test_duplicate_names_last_wins_first_position() -> None:
    p = params('\'((:name "a" :type string) (:name "b" :type string) (:name "a" :type integer))')
    assert list(p["properties"]) == ["a", "b"] and p["properties"]["a"] == {"type": "integer"}
    assert p["required"] == ["a", "b", "a"]


def test_nested_conversion() -> None:
    p = params(
        '\'((:name "a" :type object :properties (:x (:type string :n nil :f :json-false :g :false '
        ":t t :s foo :k :null :v [1 nil]) :y (:type integer :odd))))"
    )
    x = p["properties"]["a"]["properties"]
    assert x["x"] == {
        "type": "string",
        "n": None,
        "f": False,
        "g": False,
        "t": True,
        "s": "foo",
        "k": ":null",
        "v": [1, {}],
    }
    assert x["y"] == {"type": "integer", "odd": None}


def test_properties_nil_omitted() -> None:
    assert params('\'((:name "a" :type object :properties nil))')["properties"]["a"] == {
        "type": "object"
    }


@pytest.mark.parametrize(
    "args,needle",
    [
        ('[(:name "a" :type string)]', "listp"),
        ('\'((:name "a" :type string :enum ("x")))', "consp nil"),
        ('\'((:name "a" :type string :enum [:json-false]))', "json-value-p :json-false"),
        ('\'((:name "a" :type string :items (:enum ("x" "y"))))', 'symbolp "x"'),
    ],
)
def test_llm_failures(args: str, needle: str) -> None:
    tool, diags = lower_text(f'(llm-make-tool :name "t" :args {args})')
    assert tool is None and diags[0].code == "PS202" and needle in diags[0].message


def test_single_plist_args_is_garbage_not_error() -> None:
    p = params('\'(:name "a" :type string)')
    assert p == {
        "type": "object",
        "properties": {"nil": {"type": "nil"}},
        "required": ["nil", "nil", "nil", "nil"],
    }


def test_gptel_only_slots_ignored_and_wrappers() -> None:
    v = llm('\'((:name "a" :type string))', "gemini")
    assert list(v[0]) == ["function_declarations"]
    assert llm('\'((:name "a" :type string))', "vertex") == v
    r = llm('\'((:name "a" :type string))', "openai-responses")
    assert list(r[0]) == ["type", "name", "description", "parameters"]
