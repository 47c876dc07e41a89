"""core.jsontypes.is_json_type: the JSON Schema type test every stage shares."""

from __future__ import annotations

import json

import pytest

from plistspec.calls.validate import validate
from plistspec.core.jsontypes import JSON_TYPES, is_json_type

BIG = json.loads("1" + "0" * 400)  # an integer no float holds


@pytest.mark.parametrize(
    ("value", "types"),
    [
        ("x", {"string"}),
        (True, {"boolean"}),
        (None, {"null"}),
        ({}, {"object"}),
        ([], {"array"}),
        (1, {"integer", "number"}),
        (1.0, {"integer", "number"}),
        (1.5, {"number"}),
        (BIG, {"integer", "number"}),
        (float("inf"), {"number"}),
        (float("nan"), {"number"}),
    ],
)
def test_each_value_has_exactly_its_types(value, types) -> None:
    assert {t for t in JSON_TYPES if is_json_type(value, t)} == types


def test_a_name_that_is_no_json_type_matches_nothing() -> None:
    assert not any(is_json_type(v, "any") for v in ("x", 1, None, [], {}, True))


@pytest.mark.parametrize(
    "schema",
    [
        {"oneOf": [{"type": "number"}, {"type": "integer"}]},
        {"anyOf": [{"type": "string"}, {"type": "boolean"}]},
        {"type": "integer", "maximum": 5},
    ],
)
def test_a_huge_integer_from_a_model_is_judged_not_crashed_on(schema) -> None:
    """A model's call with a 400-digit integer: a problem or none, never OverflowError
    (the validator of plistspec-gptel-mode and serve used to convert it to float)."""
    params = {"type": "object", "properties": {"n": schema}, "required": ["n"]}
    problems = validate(params, {"n": BIG})
    assert isinstance(problems, list)
    if "oneOf" in schema:  # an integer is a number too: both match, so oneOf fails
        assert [p.keyword for p in problems] == ["oneOf"]
