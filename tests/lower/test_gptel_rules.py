"""gptel's rules, one test per row of semantics.md §1-§5 and §9 (hand-derived from it;
the OpenAI-family and Anthropic rows are also covered by the real-code table)."""

from __future__ import annotations

import json

import pytest
from lower_helpers import gptel, gptel_params, lower_text

from plistspec.emit_json import emit

OPENAI_FAMILY = ("openai", "openai-responses", "ollama", "bedrock")


def keys(d: dict) -> list[str]:
    return list(d)


# §1 tool slots
def test_missing_description_is_empty_object() -> None:
    v = gptel('\'((:name "a" :type string))', "openai", extra=':name "t"')
    assert v[0]["function"]["description"] == {}


def test_symbol_description_fails() -> None:
    tool, diags = lower_text('(gptel-make-tool :name "t" :description \'foo)')
    assert tool is None and diags[0].code == "PS201" and "json-value-p" in diags[0].message


def test_first_slot_wins() -> None:
    tool, _ = lower_text('(gptel-make-tool :name "a" :name "b" :description "d")')
    assert tool["name"] == "a"


# §2 preprocessing
@pytest.mark.parametrize(
    "written,sent",
    [
        ("string", "string"),
        (":string", ":string"),
        ("nil", "nil"),
        ("t", "t"),
        ('"string"', "string"),
    ],
)
def test_type_symbol_becomes_string(written: str, sent: str) -> None:
    p = gptel_params(f'\'((:name "a" :type {written}))', "anthropic")
    assert p["properties"]["a"]["type"] == sent


def test_type_array_of_strings_passes() -> None:
    p = gptel_params('\'((:name "a" :type ["string" "null"]))', "openai")
    assert p["properties"]["a"]["type"] == ["string", "null"]


@pytest.mark.parametrize(
    "arg,needle",
    [
        ('(:name "a" :type [string null])', "json-value-p"),
        ('(:name "a" :type \'string)', "json-value-p"),
        ('(:name "a" :type string :default foo)', "json-value-p foo"),
        ('(:name "a" :type string :enum ("x" "y"))', 'symbolp "x"'),
        ('(:name "a" :type string :foo)', "consp nil"),
        ('(:name "a" :type integer :default 100000000000000000000)', "args-out-of-range"),
        ('(:name "a" :type number :default 1.0e+INF)', "json-out-of-memory"),
        ('(:name "a" :type string :default "\\xff")', "utf-8-string-p"),
        ("(:name sym :type string)", "sequencep"),
        ("(:name 5 :type string)", "sequencep"),
        ("(:name :loc :type string)", "json-value-p :loc"),
    ],
)
def test_gptel_failures(arg: str, needle: str) -> None:
    tool, diags = lower_text(f'(gptel-make-tool :name "t" :description "d" :args \'({arg}))')
    assert tool is None
    assert len(diags) == 1 and diags[0].code == "PS201" and diags[0].severity == "error"
    assert needle in diags[0].message
    assert diags[0].message.startswith("gptel fails on this spec: ")
    assert diags[0].start > 0 and diags[0].end > diags[0].start


def test_failure_span_points_at_offending_datum() -> None:
    text = '(gptel-make-tool :name "t" :description "d" :args \'((:name "a" :type string :default foo)))'
    _, diags = lower_text(text)
    assert text[diags[0].start : diags[0].end] == "foo"


def test_args_single_plist_fails() -> None:
    _, diags = lower_text('(gptel-make-tool :name "t" :args \'(:name "a" :type string))')
    assert "sequencep :name" in diags[0].message


def test_dangling_type_fails_at_creation() -> None:
    tool, diags = lower_text('(gptel-make-tool :name "t" :args \'((:name "a" :type)))')
    assert tool is None and "consp nil" in diags[0].message


# §3.1 property keys
@pytest.mark.parametrize(
    "name,key,required",
    [('"S"', "S", ["S"]), ('""', ":", [""]), ('":x"', ":x", [":x"]), (None, ":", [])],
)
def test_property_key(name: str | None, key: str, required: list) -> None:
    arg = f"(:name {name} :type string)" if name else "(:type string)"
    p = gptel_params(f"'({arg})", "anthropic")
    assert list(p["properties"]) == [key] and p["required"] == required


def test_optional_keyword_name_is_fine() -> None:
    p = gptel_params("'((:name :loc :type string :optional t))", "openai")
    assert list(p["properties"]) == ["loc"] and p["required"] == []


# §3.2 shallow copy minus first :name/:optional, user order
def test_second_name_and_optional_pass_through() -> None:
    p = gptel_params(
        '\'((:name "a" :optional t :type string :name "b" :optional nil))', "anthropic"
    )
    assert p["properties"]["a"] == {"type": "string", "name": "b", "optional": {}}
    assert p["required"] == []


def test_typo_keys_kept_in_user_order() -> None:
    p = gptel_params('\'((:description: "x" :name "a" :minimum 0 :type integer))', "openai")
    assert keys(p["properties"]["a"]) == ["description:", "minimum", "type"]


# §3.3 object-typed args
@pytest.mark.parametrize("fmt", OPENAI_FAMILY)
def test_object_additions_openai(fmt: str) -> None:
    p = gptel_params(
        '\'((:name "obj" :type object :properties (:x (:type string)) :anyOf [(:required ["x"])]))',
        fmt,
    )
    assert keys(p["properties"]["obj"]) == [
        "type",
        "properties",
        "anyOf",
        "required",
        "additionalProperties",
    ]
    assert p["properties"]["obj"]["additionalProperties"] is False
    assert keys(p) == ["type", "properties", "required", "additionalProperties"]


def test_additional_properties_overwritten_in_place() -> None:
    p = gptel_params(
        '\'((:name "open" :type object :additionalProperties t :properties (:x (:type string)) :required ["x"]))',
        "openai",
    )
    assert keys(p["properties"]["open"]) == [
        "type",
        "additionalProperties",
        "properties",
        "required",
    ]
    assert p["properties"]["open"]["additionalProperties"] is False


@pytest.mark.parametrize("written,sent", [("t", True), ("nil", {}), (":json-false", False)])
def test_anthropic_keeps_additional_properties(written: str, sent) -> None:
    p = gptel_params(f'\'((:name "o" :type object :additionalProperties {written}))', "anthropic")
    assert p["properties"]["o"] == {"type": "object", "additionalProperties": sent, "required": []}


@pytest.mark.parametrize("typ", ['"Object"', ":object", '["object" "null"]'])
def test_not_object_typed(typ: str) -> None:
    p = gptel_params(f'\'((:name "o" :type {typ}))', "openai")
    assert "required" not in p["properties"]["o"]


def test_required_nil_is_kept_as_empty_object() -> None:
    p = gptel_params('\'((:name "o" :type object :required nil))', "openai")
    assert p["properties"]["o"]["required"] == {}


def test_nested_objects_get_nothing() -> None:
    p = gptel_params(
        '\'((:name "o" :type array :items (:type object :properties (:x (:type string)))))',
        "openai",
    )
    assert p["properties"]["o"]["items"] == {
        "type": "object",
        "properties": {"x": {"type": "string"}},
    }


# §3.4 / §3.5
def test_required_duplicates_and_first_wins() -> None:
    p = gptel_params('\'((:name "a" :type string) (:name "a" :type integer))', "anthropic")
    assert p["properties"] == {"a": {"type": "string"}} and p["required"] == ["a", "a"]


def test_optional_json_false_is_optional() -> None:
    p = gptel_params('\'((:name "a" :type string :optional :json-false))', "openai")
    assert p["required"] == []


def test_dangling_optional_is_required() -> None:
    p = gptel_params('\'((:name "a" :type string :optional))', "openai")
    assert p["required"] == ["a"] and p["properties"]["a"] == {"type": "string"}


# §4 shapes
def test_zero_arg_shapes() -> None:
    for fmt in ("openai", "ollama", "openai-responses"):
        assert gptel_params(None, fmt) == {"type": "object", "properties": {}}
    assert gptel_params(None, "bedrock") == {"type": "object", "properties": {}}
    assert gptel_params(None, "anthropic") == {"type": "object", "properties": {}, "required": []}
    assert gptel(None, "gemini") == [
        {"functionDeclarations": [{"name": "t", "description": "d", "parameters": None}]}
    ]


def test_empty_vector_args_is_not_zero_arg() -> None:
    assert gptel_params("[]", "openai") == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    assert gptel_params("[]", "gemini") == {"type": "object", "properties": {}, "required": []}


def test_vector_args_gives_inconsistent_json() -> None:
    p = gptel_params('[(:name "a" :type string)]', "anthropic")
    assert p == {"type": "object", "properties": {}, "required": ["a"]}


def test_envelopes_key_order() -> None:
    a = '\'((:name "a" :type string))'
    assert keys(gptel(a, "openai")[0]) == ["type", "function"]
    assert keys(gptel(a, "openai")[0]["function"]) == ["name", "description", "parameters"]
    assert gptel(a, "ollama") == gptel(a, "openai")
    assert keys(gptel(a, "openai-responses")[0]) == ["type", "name", "description", "parameters"]
    assert keys(gptel(a, "anthropic")[0]) == ["name", "description", "input_schema"]
    assert keys(gptel(a, "bedrock")[0]["toolSpec"]) == ["name", "description", "inputSchema"]
    assert gptel(a, "bedrock")[0]["toolSpec"]["inputSchema"]["json"] == gptel_params(a, "openai")


def test_zero_tools() -> None:
    assert emit([], "openai") == ([], [])
    assert emit([], "gemini") == ([{"functionDeclarations": []}], [])


# §5 Gemini
def test_gemini_removes_top_level_string_format_only() -> None:
    p = gptel_params(
        '\'((:name "d" :type string :format "date") '
        '(:name "o" :type object :properties (:x (:type string :format "date"))))',
        "gemini",
    )
    assert p["properties"]["d"] == {"type": "string"}
    assert p["properties"]["o"]["properties"]["x"] == {"type": "string", "format": "date"}


def test_gemini_filter_removes_additional_properties_everywhere_reachable() -> None:
    p = gptel_params(
        '\'((:name "o" :type object :additionalProperties t '
        ":properties (:x (:type object :additionalProperties :json-false) :additionalProperties (:type string)) "
        ":anyOf [(:additionalProperties t :type object)] :oneOf [(:additionalProperties t)]))",
        "gemini",
    )
    o = p["properties"]["o"]
    assert "additionalProperties" not in o
    assert o["properties"] == {"x": {"type": "object"}}
    assert o["anyOf"] == [{"type": "object"}]
    assert o["oneOf"] == [{"additionalProperties": True}]
    assert keys(o) == ["type", "properties", "anyOf", "oneOf", "required"]


def test_gemini_second_occurrence_is_exposed() -> None:
    tool, diags = lower_text(
        '(gptel-make-tool :name "t" :args \'((:name "o" :type object :additionalProperties t '
        ':x 1 :additionalProperties nil) (:name "s" :type string :format "a" :y 2 :format "b")))'
    )
    assert diags == []
    assert tool["parameters"]["properties"]["o"] == {
        "type": "object",
        "additionalProperties": True,
        "x": 1,
    }
    (wrapper,), _ = emit([tool], "gemini")
    p = wrapper["functionDeclarations"][0]["parameters"]
    assert p["properties"]["o"] == {
        "type": "object",
        "x": 1,
        "additionalProperties": {},
        "required": [],
    }
    assert p["properties"]["s"] == {"type": "string", "y": 2, "format": "b"}
    assert "gemini" in tool["metadata"]["gptel_parameters"]
    assert "openai" not in tool["metadata"]["gptel_parameters"]


def test_gemini_any_of_list_fails_only_on_gemini() -> None:
    tool, diags = lower_text(
        '(gptel-make-tool :name "t" :args \'((:name "a" :type string :anyOf ((:x) (:y)))))'
    )
    assert diags == [] and tool is not None
    assert emit([tool], "openai")[1] == []
    value, diags = emit([tool], "gemini")
    assert value is None and diags[0].code == "PS203" and "arrayp" in diags[0].message
    assert diags[0].line == 1 and diags[0].path == "t.el"


def test_no_leak_between_backends() -> None:
    a = '\'((:name "o" :type object :properties (:x (:type object :additionalProperties t))))'
    tool, _ = lower_text(f'(gptel-make-tool :name "t" :args {a})')
    emit([tool], "gemini")
    p = emit([tool], "anthropic")[0][0]["input_schema"]
    assert p["properties"]["o"]["properties"]["x"]["additionalProperties"] is True


# §6 serialization
def test_serialization_values() -> None:
    p = gptel_params(
        '\'((:name "a" :type string :default nil :x :null :y :json-false :z t :w 1e3 :v 0.1 :u ?a))',
        "anthropic",
    )
    a = p["properties"]["a"]
    assert a == {
        "type": "string",
        "default": {},
        "x": None,
        "y": False,
        "z": True,
        "w": 1000.0,
        "v": 0.1,
        "u": 97,
    }
    assert json.dumps(a["w"]) == "1000.0"


def test_ir_is_the_generic_schema() -> None:
    tool, _ = lower_text(
        '(gptel-make-tool :name "t" :args \'((:name "o" :type object :optional t)))'
    )
    assert tool["parameters"] == {"type": "object", "properties": {"o": {"type": "object"}}}
    assert "gptel_parameters" not in tool["metadata"]
