"""The walk's short cuts against its general path: the commonest object node's one-step
lowering (plistspec.lowering.fastpath) and leaves with keywords beside type,
description and enum copied at once (leaves.LEAF_EXTRA). For every target, strict and
not, the lowered schema, the changes, the notes, the violations and a refusal of strict
mode are the same with and without them.

Inputs: object nodes drawn near the shape the fast path takes (each keyword of the
shape present or not, well formed or not, and keywords beside it), the property-test
schemas of test_properties.py, and every real schema of the fixtures."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
import test_properties as tp  # noqa: E402
from _lowering_support import fixture_tools  # noqa: E402

import plistspec.lowering.leaves as leaves  # noqa: E402
import plistspec.lowering.schema as walk  # noqa: E402
from plistspec.lowering import TARGETS  # noqa: E402
from plistspec.lowering.context import Blocked  # noqa: E402
from plistspec.lowering.rules import rules  # noqa: E402

_LEAVES = st.sampled_from(
    [
        {"type": "string"},
        {"type": "string", "description": "A path."},
        {"type": "integer", "enum": [1, 2], "description": "n"},
        {"type": ["string", "null"]},
        {"type": ["number", "string", "null"], "description": "ms, or 5s"},
        {"type": ["number", "string", "string"]},
        {"type": ["integer", "number", "string", "boolean"], "enum": [1, "a"], "default": 1},
        {"type": ["string", "integer"], "items": {"type": "string"}},
        {"type": ["string", "null", "integer", "number", "boolean"], "format": "uri"},
        {"type": "array", "items": {"type": "string"}},
        {"type": "boolean", "required": True},
        {"type": "string", "format": "date-time"},
        {"type": "integer", "minimum": 1, "maximum": 100, "description": "n"},
        {"type": "string", "format": "bogus"},
        {"type": "number", "format": "float"},
        {"type": "integer", "format": "date-time"},
        {"type": "string", "pattern": "^(?=a)"},
        {"type": "string", "pattern": "^[a-z]+$", "minLength": 1},
        {"type": "string", "default": "x", "title": "T"},
        {"type": "boolean", "default": False, "description": "Flag."},
        {"type": ["number", "null"], "default": 1.5, "examples": [2], "deprecated": True},
        {"type": "string", "enum": ["a", "b"], "default": "c", "readOnly": True},
        {"type": "string", "format": 3},
        {"type": ["string", "null"], "format": "uri"},
        {"type": "string", "enum": ["a", "b"], "default": "a", "examples": ["a"]},
        {"type": "string", "enum": [1, "a"], "title": "T"},
        {"type": "integer", "exclusiveMinimum": 0, "nullable": True},
        {"type": "object"},
        {"$ref": "#/$defs/X"},
        {"$ref": "#/definitions/X"},
        {"$ref": "#/$defs/Nothing"},
        {"$ref": "#"},
        {"$ref": "https://example.com/x"},
        {"anyOf": [{"type": "string"}, {"type": "null"}]},
        {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "T"},
        {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}], "description": "n"},
        {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}], "examples": ["a"]},
        {"anyOf": [{"type": "string", "format": "bogus"}, {"type": "null"}]},
        {"anyOf": [], "description": 3},
        # unions and arrays of non-leaves with annotations (array_node, union_node)
        {"anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}], "default": None},
        {
            "anyOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}},
                {"type": "null"},
            ],
            "default": None,
            "examples": [None],
            "title": "T",
        },
        {"anyOf": [{"type": "object"}, {"type": "null"}], "default": None, "minItems": 1},
        {"anyOf": [{"$ref": "#/$defs/X"}, {"type": "null"}], "default": None, "x-extra": 1},
        {"type": "array", "items": {"$ref": "#/$defs/X"}, "default": [], "title": "A"},
        {"type": ["array", "null"], "items": {"anyOf": [{"type": "string"}]}, "default": []},
        {
            "type": "array",
            "items": {"type": "object", "properties": {}},
            "deprecated": True,
            "readOnly": False,
            "description": "d",
        },
        {"type": "array", "items": {"type": "object"}, "default": [], "description": 3},
        {"type": "array", "items": 3, "default": []},
        {},
        True,
        "not a schema",
    ]
)


@st.composite
def objects(draw) -> dict[str, Any]:
    """An object node near the fast path's shape (often in it, often just outside)."""
    names = draw(st.lists(tp.NAMES, max_size=4, unique=True))
    node: dict[str, Any] = {
        "type": draw(
            st.sampled_from(["object", "object", "OBJECT", ["object", "null"], ["null", "object"]])
        )
    }
    if draw(st.integers(0, 5)):
        node["properties"] = {n: draw(_LEAVES) for n in names}
    if draw(st.booleans()):
        pool = [*names, "missing"] if draw(st.integers(0, 4)) == 0 else names
        req = draw(st.lists(st.sampled_from(pool), unique=True)) if pool else []
        node["required"] = req if draw(st.integers(0, 6)) else "a"
    if draw(st.booleans()):
        node["description"] = draw(st.sampled_from(["Arguments.", 3, ""]))
    if draw(st.booleans()):
        node["additionalProperties"] = draw(st.sampled_from([False, False, True, {}]))
    if draw(st.integers(0, 4)) == 0:
        node[draw(st.sampled_from(["title", "$schema", "nullable", "minProperties"]))] = 1
    if draw(st.integers(0, 4)) == 0:  # metadata the fast path removes where refused
        node[draw(st.sampled_from(["title", "$schema", "$id", "$comment"]))] = "x"
    if draw(st.integers(0, 3)) == 0:  # definitions beside (the root keeps them, or not)
        key = draw(st.sampled_from(["$defs", "definitions"]))
        node[key] = {"X": draw(_LEAVES), "Y": {"$ref": f"#/{key}/X"}}
    return node


def _lower(schema: Any, target: str, strict: bool) -> Any:
    try:
        lowered, changes, notes, viol = walk.lower_schema(schema, rules(target), strict)
    except Blocked as b:
        return ("blocked", str(b.pointer), b.why)
    return (
        json.dumps(lowered, sort_keys=False, default=repr),
        [(str(c[0]), *c[1:]) for c in changes],
        notes,
        viol,
    )


def _both(schema: Any, target: str, strict: bool, monkeypatch) -> tuple[Any, Any]:
    fast = _lower(schema, target, strict)
    with monkeypatch.context() as m:
        m.setattr(walk, "object_node", lambda *a: None)
        m.setattr(walk, "empty_root", lambda *a: None)
        m.setattr(walk, "annotated_leaf", lambda *a: None)
        m.setattr(walk, "ref_leaf", lambda *a: None)
        m.setattr(walk, "union_leaf", lambda *a: None)
        m.setattr(walk, "array_node", lambda *a: None)
        m.setattr(walk, "union_node", lambda *a: None)
        m.setattr(leaves, "LEAF_EXTRA", frozenset())
        general = _lower(schema, target, strict)
    return fast, general


def _modes(target: str) -> list[bool]:
    return [False, True] if rules(target).strict_flag is not None else [False]


@pytest.mark.parametrize("target", TARGETS)
@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(root=objects(), nested=objects(), where=st.integers(0, 2))
def test_near_the_shape_fast_and_general_agree(target, root, nested, where, monkeypatch) -> None:
    if where:  # the node as an argument, or inside an array argument
        sub = nested if where == 1 else {"type": "array", "items": nested}
        root = {**root, "properties": {**(root.get("properties") or {}), "arg": sub}}
    for strict in _modes(target):
        fast, general = _both(root, target, strict, monkeypatch)
        assert fast == general, (target, strict, root)


@pytest.mark.parametrize("target", TARGETS)
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(params=tp.parameters())
def test_generated_schemas_fast_and_general_agree(target, params, monkeypatch) -> None:
    for strict in _modes(target):
        fast, general = _both(params, target, strict, monkeypatch)
        assert fast == general, (target, strict, params)


def _real_schemas() -> list[Any]:
    return [
        t["parameters"]
        for _label, t in fixture_tools(elisp=False)
        if isinstance(t.get("parameters"), dict)
    ]


def test_real_schemas_fast_and_general_agree(monkeypatch) -> None:
    schemas = _real_schemas()
    assert len(schemas) > 30
    taken = 0
    for target in TARGETS:
        for strict in _modes(target):
            for schema in schemas:
                fast, general = _both(schema, target, strict, monkeypatch)
                assert fast == general, (target, strict, schema)
                taken += 1
    assert taken


def test_the_fast_path_takes_the_commonest_node() -> None:
    """It is taken (else it would be dead code that the agreement tests cannot see)."""
    seen = []
    real = walk.object_node

    def spy(*a):
        got = real(*a)
        seen.append(got is not None)
        return got

    tool = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["path"],
        "description": "Arguments.",
    }
    walk.object_node = spy
    try:
        for target in TARGETS:
            for strict in _modes(target):
                walk.lower_schema(tool, rules(target), strict)
    finally:
        walk.object_node = real
    assert seen and sum(seen) >= len(TARGETS) - 1, seen


def _nested(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "object", "properties": {"leaf": {"type": "string"}}}
    for _ in range(depth - 1):
        node = {"type": "object", "properties": {"down": node}, "required": ["down"]}
    return node


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        (  # 60 object arguments of 90 properties each: 5 460 properties in all
            {
                "type": "object",
                "properties": {
                    f"group{i}": {
                        "type": "object",
                        "properties": {f"p{j}": {"type": "string"} for j in range(90)},
                    }
                    for i in range(60)
                },
            },
            "at most 5000 properties",
        ),
        (  # 4 000 names of 31 characters each
            {
                "type": "object",
                "properties": {
                    f"g{i}": {
                        "type": "object",
                        "properties": {
                            f"{'n' * 25}{i:03}{j:03}": {"type": "string"} for j in range(40)
                        },
                    }
                    for i in range(100)
                },
            },
            "characters of names",
        ),
        (_nested(11), "at most 10 levels"),
    ],
)
@pytest.mark.parametrize("target", ["openai-strict", "openai-responses"])
def test_strict_sizes_are_counted_on_the_fast_path(schema, says, target, monkeypatch) -> None:
    """Strict mode's whole-schema limits (properties, characters, depth) count the nodes
    the fast path takes as the general path does: past each limit, both say so."""
    fast, general = _both(schema, target, True, monkeypatch)
    assert fast == general
    assert any(says in m for _p, m in fast[3]), fast[3]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {}},
        {"properties": {}, "type": "object"},
        {"type": "object", "properties": {}, "description": "No arguments."},
        {"type": "object", "properties": {}, "required": []},
        {"type": "OBJECT", "properties": {}},
    ],
)
def test_a_tool_without_arguments_fast_and_general_agree(target, schema, monkeypatch) -> None:
    for strict in _modes(target):
        fast, general = _both(schema, target, strict, monkeypatch)
        assert fast == general, (target, strict, schema)


def test_the_short_cuts_for_fastmcp_shapes_are_taken() -> None:
    """A FastMCP root (``$schema``, ``title``, ``$defs``), its optional arguments with
    ``default`` (a leaf, an ``anyOf [T, null]``) and its references take the short cuts
    on strict OpenAI (the agreement tests above hold them equal to
    the general path; this holds that they run)."""
    short_cuts = (
        "object_node",
        "annotated_leaf",
        "ref_leaf",
        "union_leaf",
        "union_node",
        "array_node",
    )
    real = {name: getattr(walk, name) for name in short_cuts}
    taken = dict.fromkeys(short_cuts, 0)

    def spy(name: str):
        def call(*a):
            got = real[name](*a)
            taken[name] += got is not None
            return got

        return call

    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"Sort": {"type": "string", "enum": ["new", "old"]}},
        "type": "object",
        "title": "searchArguments",
        "properties": {
            "query": {"type": "string", "title": "Query"},
            "limit": {"type": "integer", "default": 10, "title": "Limit"},
            "sort": {"$ref": "#/$defs/Sort"},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
            "filter": {"anyOf": [{"$ref": "#/$defs/Sort"}, {"type": "null"}], "default": None},
            "sorts": {"type": "array", "items": {"$ref": "#/$defs/Sort"}, "default": []},
        },
        "required": ["query", "filter", "sorts"],
    }
    for name in short_cuts:
        setattr(walk, name, spy(name))
    try:
        lowered, changes, _, viol = walk.lower_schema(schema, rules("openai-strict"), True)
    finally:
        for name in short_cuts:
            setattr(walk, name, real[name])
    # (the optional sort made anyOf [its $ref, null] and filter: two unions, three $refs)
    assert taken == {**dict.fromkeys(short_cuts, 1), "union_node": 2, "ref_leaf": 3}, taken
    assert "$schema" not in lowered and not viol
    assert lowered["properties"]["limit"] == {
        "type": ["integer", "null"],
        "title": "Limit",
        "description": "(default: 10)",
    }
    assert lowered["properties"]["sort"] == {"anyOf": [{"$ref": "#/$defs/Sort"}, {"type": "null"}]}
    assert lowered["properties"]["note"]["description"] == "(default: null)"
    assert lowered["properties"]["filter"] == {
        "anyOf": [{"$ref": "#/$defs/Sort"}, {"type": "null"}],
        "description": "(default: null)",
    }
    assert lowered["properties"]["sorts"] == {
        "type": "array",
        "items": {"$ref": "#/$defs/Sort"},
        "description": "(default: [])",
    }
    assert [c[1] for c in changes] == ["PS422", *["PS425"] * 3, "PS429", *["PS419"] * 4]


@pytest.mark.parametrize("target", ["openai", "anthropic", "openai-strict"])
def test_kept_annotations_take_the_short_cuts_outside_strict_mode(target, monkeypatch) -> None:
    """Outside strict mode, a target that keeps ``default`` keeps it on an optional
    union or array argument, and the short cuts take those nodes (the agreement tests
    above hold them equal to the general path)."""
    short_cuts = ("union_leaf", "union_node", "array_node")
    taken = dict.fromkeys(short_cuts, 0)
    for name in short_cuts:
        real = getattr(walk, name)

        def call(*a, _real=real, _name=name):
            got = _real(*a)
            taken[_name] += got is not None
            return got

        monkeypatch.setattr(walk, name, call)
    props = {
        "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "filter": {"anyOf": [{"$ref": "#/$defs/F"}, {"type": "null"}], "default": None},
        "items": {"type": "array", "items": {"$ref": "#/$defs/F"}, "default": []},
    }
    schema = {
        "type": "object",
        "properties": props,
        "$defs": {"F": {"type": "object", "properties": {"a": {"type": "string"}}}},
    }
    lowered, _changes, _notes, viol = walk.lower_schema(schema, rules(target), False)
    assert taken == dict.fromkeys(short_cuts, 1), taken
    assert not viol
    assert lowered["properties"] == props  # (default kept: nothing to say)
