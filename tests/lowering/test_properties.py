"""Property tests: random nested schemas using every keyword of the rules table.

For every target: the lowered schema breaks none of the target's rules (rules.json via
validate.py, and the generated grammar file via jsonschema); lowering is idempotent;
and when every rewrite of a tool was reported lossless (info), every instance the
original schema accepts is accepted by the lowered one (checked with jsonschema, Gemini's
OpenAPI ``nullable`` read as a union with null).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")
jsonschema = pytest.importorskip("jsonschema")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import TARGETS, violations  # noqa: E402

from plistspec.core.jsonutil import resolve_pointer  # noqa: E402
from plistspec.lowering import lower_tools  # noqa: E402

NAMES = st.sampled_from(["a", "b", "path", "file-name", "x.y", "Count", "_z"])
SCALARS = st.one_of(
    st.sampled_from(["red", "green", "", "2024-01-01"]),
    st.integers(-3, 10),
    st.sampled_from([1.5, 0.0]),
    st.booleans(),
    st.none(),
)
PRIMS = ["string", "integer", "number", "boolean"]


def _annotate(draw, node: dict) -> dict:
    for key, strat in (
        ("description", st.sampled_from(["Some text.", "Ünïcode ✓"])),
        ("title", st.just("T")),
        ("default", SCALARS),
        ("examples", st.lists(SCALARS, max_size=2)),
        ("$comment", st.just("note")),
        ("x-order", st.integers(0, 3)),
    ):
        if draw(st.integers(0, 9)) == 0:
            node[key] = draw(strat)
    return node


@st.composite
def leaf(draw) -> Any:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.sampled_from([{}, True]))
    if kind == 1:
        return {"const": draw(SCALARS)}
    if kind == 2:
        vals = draw(st.lists(SCALARS, min_size=1, max_size=4, unique_by=repr))
        node: dict[str, Any] = {"enum": vals}
        if draw(st.booleans()):
            node["type"] = draw(st.sampled_from(["string", "integer", ["string", "null"]]))
        return _annotate(draw, node)
    t = draw(st.sampled_from(PRIMS + ["null"]))
    node = {"type": t if draw(st.integers(0, 3)) else [t, "null"]}
    if t == "string":
        for key, strat in (
            ("minLength", st.integers(0, 3)),
            ("maxLength", st.integers(3, 9)),
            ("pattern", st.sampled_from(["^[a-z]*$", "^(?!x).*$"])),
            ("format", st.sampled_from(["date-time", "email", "uri", "uuid", "enum"])),
        ):
            if draw(st.integers(0, 3)) == 0:
                node[key] = draw(strat)
    if t in ("integer", "number"):
        for key, strat in (
            ("minimum", st.integers(-5, 0)),
            ("maximum", st.integers(5, 20)),
            ("exclusiveMinimum", st.integers(-9, -6)),
            ("multipleOf", st.sampled_from([1, 2])),
        ):
            if draw(st.integers(0, 3)) == 0:
                node[key] = draw(strat)
    if draw(st.integers(0, 7)) == 0:
        node["nullable"] = True
    return _annotate(draw, node)


def _compose(children):
    @st.composite
    def build(draw) -> Any:
        kind = draw(st.integers(0, 9))
        if kind <= 3:
            props = draw(st.dictionaries(NAMES, children, max_size=3))
            node: dict[str, Any] = {"type": "object", "properties": props}
            if draw(st.integers(0, 4)) == 0:
                node.pop("type")
            req = [k for k in props if draw(st.booleans())]
            if req:
                node["required"] = req
            ap = draw(st.integers(0, 5))
            if ap == 0:
                node["additionalProperties"] = False
            elif ap == 1:
                node["additionalProperties"] = draw(children)
            for key, strat in (("minProperties", st.integers(0, 1)),):
                if draw(st.integers(0, 5)) == 0:
                    node[key] = draw(strat)
            return _annotate(draw, node)
        if kind <= 5:
            node = {"type": "array"}
            how = draw(st.integers(0, 5))
            if how <= 3:
                node["items"] = draw(children)
            elif how == 4:
                node["prefixItems"] = draw(st.lists(children, min_size=1, max_size=2))
            for key, strat in (
                ("minItems", st.integers(0, 2)),
                ("maxItems", st.integers(2, 4)),
                ("uniqueItems", st.booleans()),
            ):
                if draw(st.integers(0, 3)) == 0:
                    node[key] = draw(strat)
            return _annotate(draw, node)
        if kind == 6:
            members = draw(st.lists(children, min_size=1, max_size=3))
            if draw(st.booleans()):
                members.append({"type": "null"})
            return _annotate(draw, {"anyOf": members})
        if kind == 7:
            key = draw(st.sampled_from(["oneOf", "allOf"]))
            return _annotate(draw, {key: draw(st.lists(children, min_size=1, max_size=2))})
        if kind == 8:
            return {"$ref": draw(st.sampled_from(["#/$defs/D1", "#/$defs/D2"]))}
        return _annotate(draw, {"not": draw(children), "type": "string"})

    return build()


SCHEMAS = st.recursive(leaf(), _compose, max_leaves=8)


@st.composite
def parameters(draw) -> dict[str, Any]:
    props = draw(st.dictionaries(NAMES, SCHEMAS, min_size=0, max_size=4))
    root: dict[str, Any] = {"type": "object", "properties": props}
    req = [k for k in props if draw(st.booleans())]
    if req:
        root["required"] = req
    root["$defs"] = {
        "D1": draw(leaf()),
        "D2": {"type": "object", "properties": {"v": draw(leaf())}, "required": ["v"]},
    }
    if draw(st.integers(0, 9)) == 0:
        root["$defs"]["D2"]["properties"]["next"] = {"$ref": "#/$defs/D2"}  # recursion
    if draw(st.integers(0, 5)) == 0:
        root["additionalProperties"] = False
    if draw(st.integers(0, 9)) == 0:
        root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return root


def _tool(params: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "name": "random_tool",
        "description": "A random tool.",
        "parameters": params,
        "metadata": {"args": "list"},
    }


def as_json_schema(schema: Any) -> Any:
    """Gemini's OpenAPI ``nullable: true`` read as JSON Schema (a union with null)."""
    import copy

    root = copy.deepcopy(schema)
    work = [root]
    while work:
        node = work.pop()
        if isinstance(node, dict):
            if node.pop("nullable", None) is True:
                inner = dict(node)
                node.clear()
                node["anyOf"] = [inner, {"type": "null"}]
                work.append(inner)
                continue
            work.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            work.extend(v for v in node if isinstance(v, (dict, list)))
    return root


def sample(schema: Any, root: dict, rnd: random.Random, depth: int = 0) -> Any:
    """A value shaped after ``schema`` (often, not always, valid: callers filter)."""
    if depth > 6 or not isinstance(schema, dict):
        return rnd.choice(["x", 1, None, True, {}])
    if "$ref" in schema:
        found, target = resolve_pointer(root, schema["$ref"])
        return sample(target if found else {}, root, rnd, depth + 1)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return rnd.choice(schema["enum"])
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            member = rnd.choice(schema[key]) if key != "allOf" else schema[key][0]
            return sample(member, root, rnd, depth + 1)
    t = schema.get("type")
    if isinstance(t, list):
        t = rnd.choice(t) if t else None
    if t is None:
        t = "object" if "properties" in schema else rnd.choice(PRIMS + ["null"])
    if t == "object":
        out = {}
        props = schema.get("properties") or {}
        for name, sub in props.items():
            if name in (schema.get("required") or []) or rnd.random() < 0.6:
                out[name] = sample(sub, root, rnd, depth + 1)
        return out
    if t == "array":
        items = schema.get("items", {})
        return [sample(items, root, rnd, depth + 1) for _ in range(rnd.randint(0, 2))]
    return {
        "string": rnd.choice(["", "abc", "2024-01-01T00:00:00Z", "a@b.c", "xyz"]),
        "integer": rnd.choice([0, 1, 2, 7, -6]),
        "number": rnd.choice([0, 1.5, 4, -5]),
        "boolean": rnd.choice([True, False]),
        "null": None,
    }.get(t, None)


def _schema_diags(diags) -> list:
    return [d for d in diags if "/parameters" in d.message]


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(params=parameters(), seed=st.integers(0, 2**16))
def test_lowered_schema_obeys_rules_and_keeps_meaning(target, params, seed) -> None:
    tool = _tool(params)
    out, diags = lower_tools([tool], target)
    errors = [d for d in diags if d.is_error]
    if errors:
        # only what the target cannot express at all: recursion where refused
        assert all(d.code in ("PS413", "PS428") for d in errors), [d.message for d in errors]
        assert any(d.code == "PS413" for d in errors), [d.message for d in errors]
        return
    lowered = out[0]
    assert not violations(lowered, target), violations(lowered, target)
    again, _ = lower_tools(out, target)
    assert again == out
    if any(d.severity != "info" for d in _schema_diags(diags)):
        return
    original = jsonschema.Draft202012Validator(params)
    new = jsonschema.Draft202012Validator(as_json_schema(lowered["parameters"]))
    rnd = random.Random(seed)
    for _ in range(15):
        value = sample(params, params, rnd)
        if original.is_valid(value):
            assert new.is_valid(value), (value, lowered["parameters"])


_KEYS = ["type", "properties", "required", "items", "enum", "const", "anyOf", "oneOf", "allOf"]
_KEYS += ["$ref", "$defs", "additionalProperties", "description", "format", "nullable"]
_KEYS += ["prefixItems", "not", "default", "minimum", "title", "a"]
JUNK = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-2, 3),
        st.sampled_from(["string", "object", "array", "null", "any", "#/$defs/a", "#", "x"]),
    ),
    lambda c: st.one_of(
        st.lists(c, max_size=3), st.dictionaries(st.sampled_from(_KEYS), c, max_size=4)
    ),
    max_leaves=15,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(params=JUNK, target=st.sampled_from(TARGETS))
def test_any_json_lowers_without_crashing(params, target) -> None:
    """Malformed schemas give PS428 errors, never an exception; the rest stays idempotent."""
    tool = _tool(params)
    out, diags = lower_tools([tool], target)
    if not any(d.is_error for d in diags):
        assert not violations(out[0], target)
        again, _ = lower_tools(out, target)
        assert again == out
