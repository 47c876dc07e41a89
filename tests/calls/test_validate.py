"""plistspec.calls: a model's arguments checked, every problem named, the model's message."""

from __future__ import annotations

import pytest

from plistspec.calls import Checker, Problem, message, validate

WEATHER = {
    "type": "object",
    "properties": {
        "location": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "opts": {
            "type": "object",
            "properties": {"deep": {"type": "boolean"}},
            "required": ["deep"],
        },
        "when": {"anyOf": [{"type": "string", "pattern": "^[0-9]{4}$"}, {"type": "null"}]},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    },
    "required": ["location", "days"],
    "additionalProperties": False,
}


def test_a_call_that_fits_has_no_problem() -> None:
    assert validate(WEATHER, {"location": "Paris", "days": 2}) == []
    assert validate(WEATHER, {"location": "Paris", "days": 2, "tags": ["a"], "when": "2026"}) == []


def test_every_problem_is_named_with_pointer_expected_and_got() -> None:
    got = validate(
        WEATHER,
        {"unit": "kelvin", "days": "three", "zzz": 1, "opts": {}, "tags": ["a", 2, "c"]},
    )
    assert got == [
        Problem("/days", "integer", '"three"', "type"),
        Problem("/location", "string", "nothing", "required"),
        Problem("/opts/deep", "boolean", "nothing", "required"),
        Problem("/tags", "at most 2 items", '["a",2,"c"]', "maxItems"),
        Problem("/tags/1", "string", "2", "type"),
        Problem("/unit", 'one of "celsius", "fahrenheit"', '"kelvin"', "enum"),
        Problem(
            "/zzz", "allowed: location, unit, days, opts, when, tags", "1", "additionalProperties"
        ),
    ]


def test_a_union_member_that_fits_the_type_is_looked_into() -> None:
    # "1999x" is a string: the string member's pattern is what is wrong, not "string or null"
    assert validate(WEATHER, {"location": "x", "days": 1, "when": "1999x"}) == [
        Problem("/when", 'a string matching "^[0-9]{4}$"', '"1999x"', "pattern")
    ]
    assert validate(WEATHER, {"location": "x", "days": 1, "when": 5}) == [
        Problem("/when", "string or null", "5", "anyOf")
    ]


def test_null_for_an_optional_argument_means_not_given() -> None:
    assert validate(WEATHER, {"location": "x", "days": 1, "unit": None, "opts": None}) == []
    assert validate(WEATHER, {"location": None, "days": 1}) == [
        Problem("/location", "string", "null", "type")
    ]


def test_openapi_nullable_lets_null_through() -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"type": "string", "enum": ["a"], "nullable": True}},
        "required": ["x"],
    }
    assert validate(schema, {"x": None}) == []
    assert validate(schema, {"x": "b"})[0].keyword == "enum"


def test_emacs_nil_is_null_where_only_null_fits() -> None:
    # Emacs reads both null and {} as nil, and writes nil back as {}
    schema = {
        "type": "object",
        "properties": {"x": {"type": ["string", "null"]}, "o": {"type": "object"}},
        "required": ["x", "o"],
    }
    assert validate(schema, {"x": {}, "o": {}}, nil=True) == []
    assert validate(schema, {"x": {}, "o": {}}) != []
    assert validate(
        {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
        {"x": {}},
        nil=True,
    ) == [Problem("/x", "string", "{} or null", "type")]


def test_a_schema_that_cannot_be_used_checks_nothing() -> None:
    c = Checker({"type": "object", "properties": {"x": {"$ref": "#/$defs/Missing"}}})
    assert c.problems({"x": 1}) == []
    assert c.broken is not None
    assert validate({"type": "object", "properties": {"x": {"type": "float"}}}, {"x": 1}) == []


def test_no_parameters_means_an_object_of_anything() -> None:
    assert validate(None, {}) == []
    assert validate(None, {"a": 1}) == []
    assert validate(None, [1]) == [Problem("", "an object of named arguments", "[1]", "type")]


def test_arguments_too_deep_to_check_are_a_problem_not_a_pass() -> None:
    deep: object = 0
    for _ in range(20_000):
        deep = [deep]
    tree = {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/T"}}]}
    schema = {"type": "object", "properties": {"t": {"$ref": "#/$defs/T"}}, "$defs": {"T": tree}}
    (p,) = validate(schema, {"t": deep})
    assert p.keyword == "depth"
    assert validate(schema, {"t": [[1, [2]]]}) == []


def test_the_message_names_every_problem_and_the_tool() -> None:
    problems = validate(WEATHER, {"unit": "kelvin", "days": 0})
    text = message("get_weather", problems)
    assert text.splitlines() == [
        "Error: tool get_weather was not run: its arguments do not match its schema (3 problems).",
        "- /days: expected >= 1; got 0",
        "- /location: missing (required), expected string",
        '- /unit: expected one of "celsius", "fahrenheit"; got "kelvin"',
        "Call get_weather again with arguments that fix every one.",
    ]


@pytest.mark.parametrize("n", [1, 25])
def test_the_message_stays_short(n: int) -> None:
    schema = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(n)}}
    problems = validate(schema, {f"p{i}": "x" * 500 for i in range(n)})
    assert len(problems) == n
    text = message("t", problems)
    assert len(text.splitlines()) <= 23
    assert max(len(line) for line in text.splitlines()) < 120


def test_an_object_gptel_closed_does_not_refuse_its_properties() -> None:
    """gptel sends every object argument with additionalProperties false to the OpenAI
    family, even a map or an object whose properties are in a union: the tool's own
    schema accepts what that false would refuse."""
    schema = {
        "type": "object",
        "properties": {
            "env": {"type": "object", "required": [], "additionalProperties": False},
            "shape": {
                "type": "object",
                "additionalProperties": False,
                "anyOf": [{"properties": {"r": {"type": "number"}}, "required": ["r"]}],
            },
            "point": {
                "type": "object",
                "properties": {"x": {"type": "number"}},
                "additionalProperties": False,
            },
        },
        "required": [],
        "additionalProperties": False,
    }
    assert validate(schema, {"env": {"A": "b"}, "shape": {"r": 1}}) == []
    # where the object lists its properties, another one is still a problem
    assert [p.pointer for p in validate(schema, {"point": {"x": 1, "y": 2}, "unti": 1})] == [
        "/point/y",
        "/unti",
    ]


def test_a_draft4_items_array_is_checked_as_a_tuple() -> None:
    """Real servers still publish ``"items": [S, S]`` without ``$schema``: 2020-12 cannot
    read it (its ``items`` is one schema), so the check reads it as draft 7 does instead
    of letting every call through unchecked."""
    point = {
        "type": "object",
        "properties": {
            "pt": {"type": "array", "items": [{"type": "number"}, {"type": "number"}]},
            "n": {"type": "integer"},
        },
        "required": ["pt"],
    }
    checker = Checker(point)
    assert checker.problems({"pt": [1, 2.5], "n": 3}) == []
    assert checker.problems({"pt": [1, "x"], "n": "3"}) == [
        Problem("/n", "integer", '"3"', "type"),
        Problem("/pt/1", "number", '"x"', "type"),
    ]
    assert checker.broken is None
    # a schema neither dialect can use still checks nothing, and says why
    broken = Checker({"type": "object", "$ref": "#/nothing"})
    assert broken.problems({"a": 1}) == []
    assert broken.broken is not None
