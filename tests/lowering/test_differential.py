"""Differential tests against the anchors other frameworks use (test-only dependencies,
skipped visibly when missing: ``pip install openai-agents pydantic-ai-slim``).

OpenAI strict, against openai-agents' ``ensure_strict_json_schema``: running it on
plistspec's strict output changes nothing, and every schema it accepts plistspec sends
as strict too.

Gemini, against pydantic-ai's transformers (``GoogleOpenAPISchemaTransformer`` for
``parameters``, ``GoogleJsonSchemaTransformer`` for ``parametersJsonSchema``): plistspec
is at least as strict about what Gemini rejects (what the transformer leaves in that
plistspec's rules refuse is listed below, with the reason), and never loses what the
transformer keeps (each constraint it keeps is in plistspec's output, as the keyword or
in the description text).
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import fixture_tools  # noqa: E402
from test_properties import parameters  # noqa: E402

from plistspec.core.jsonutil import subschemas  # noqa: E402
from plistspec.lowering import lower_tools  # noqa: E402
from plistspec.lowering.validate import schema_violations  # noqa: E402


def _fixture_schemas() -> list[tuple[str, dict[str, Any]]]:
    return [
        (label, t["parameters"])
        for label, t in fixture_tools(elisp=False)
        if isinstance(t["parameters"], dict)
    ]


FIXTURE_SCHEMAS = _fixture_schemas()


def _tool(params: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "name": "t",
        "description": "d",
        "parameters": params,
        "metadata": {},
    }


def _lower(params: dict[str, Any], target: str):
    out, diags = lower_tools([_tool(copy.deepcopy(params))], target)
    return out[0], diags


# --- OpenAI strict: openai-agents ------------------------------------------------------


def _agents():
    return pytest.importorskip(
        "agents.strict_schema", reason="openai-agents is not installed (pip install openai-agents)"
    )


def _ensure_strict(schema: dict[str, Any]) -> dict[str, Any] | None:
    mod = _agents()
    from agents.exceptions import UserError

    try:
        return mod.ensure_strict_json_schema(copy.deepcopy(schema))
    except (UserError, TypeError, ValueError, KeyError, AssertionError):
        return None


def _object_depth(schema: Any) -> int:
    best, work = 0, [(schema, 0)]
    while work:
        node, d = work.pop()
        if isinstance(node, dict):
            if "properties" in node:
                d += 1
                best = max(best, d)
            work.extend((c[k], d) for _p, c, k in subschemas(node))
    return best


#: Schemas openai-agents accepts as strict and plistspec does not, and why: the start of
#: plistspec's PS426 reason -> why plistspec is right to refuse strict mode there.
STRICT_DIFFERENCES = {
    "levels of nesting": "OpenAI documents at most 10 levels of nesting; openai-agents does not "
    "check it",
    "an object without properties": "a free-form object (no properties, not closed): "
    "openai-agents closes it, so the tool could only ever get {} (issue 20; its own "
    "_reject_open_objects option refuses it, as plistspec does)",
    "a schema without a type": "OpenAI's strict mode answers \"schema must have a 'type' key\"; "
    "openai-agents leaves an untyped node (such as items: {}) as it is",
    "a pattern with": "OpenAI does not document lookaround or backreferences in strict "
    "patterns; plistspec moves such a pattern into the description instead",
    "the $ref": "a recursive $ref plistspec must inline (beside other keywords, or pointing "
    "outside $defs) cannot be inlined",
    "enum": "OpenAI's enum size limits (1000 values in all; 15 000 characters past 250 "
    "values); openai-agents does not check them",
    "a union": "a union beside object keywords that do not fit into its members",
    "an object beside a union": "a union beside object keywords whose members are not objects",
}


def _check_strict_pair(params: dict[str, Any]) -> None:
    lowered, diags = _lower(params, "openai-strict")
    if lowered["metadata"]["lowered"]["strict"]:
        mine = lowered["parameters"]
        assert _ensure_strict(mine) == mine, "ensure_strict_json_schema changed plistspec's output"
    if _ensure_strict(params) is not None and not lowered["metadata"]["lowered"]["strict"]:
        if "prefixItems" in json.dumps(params):
            return  # openai-agents never looks inside prefixItems (undocumented for strict)
        why = " ".join(d.message for d in diags if d.code == "PS426")
        reason = why.split("not sent as strict: ", 1)[-1]
        assert any(k in reason for k in STRICT_DIFFERENCES), (
            "openai-agents accepts this schema as strict, plistspec did not: " + why
        )


@pytest.mark.slow
@pytest.mark.parametrize("name,params", FIXTURE_SCHEMAS, ids=[n for n, _ in FIXTURE_SCHEMAS])
def test_openai_strict_agrees_with_openai_agents_on_fixtures(name, params) -> None:
    _check_strict_pair(params)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(params=parameters())
def test_openai_strict_agrees_with_openai_agents_on_random_schemas(params) -> None:
    _check_strict_pair(params)


_NOTE = {"description": "Some text.", "minProperties": 0, "examples": []}
#: object keywords on a schema typed by its const or enum (found by the test above): they
#: constrain nothing, so strict mode removes them instead of closing or refusing them
NOT_OBJECTS = [
    {"allOf": [{"const": "red"}, {"properties": {}, "additionalProperties": False, **_NOTE}]},
    {
        "allOf": [
            {"enum": ["red"], **_NOTE},
            {"properties": {"a": {"const": "red"}}, "additionalProperties": False, **_NOTE},
        ]
    },
    {"type": ["string", "null"], "properties": {"a": {"type": "string"}}, "required": ["a"]},
]


@pytest.mark.parametrize("schema", NOT_OBJECTS)
def test_object_keywords_on_a_schema_of_another_type_stay_strict(schema) -> None:
    params = {"type": "object", "properties": {"a": {"const": "red"}, "b": schema}}
    _check_strict_pair(params)
    lowered, diags = _lower(params, "openai-strict")
    assert lowered["metadata"]["lowered"]["strict"], [d.message for d in diags]
    assert any(d.code == "PS429" and "object keywords" in d.message for d in diags)


# --- Gemini: pydantic-ai ------------------------------------------------------------------


def _google():
    return pytest.importorskip(
        "pydantic_ai.profiles.google",
        reason="pydantic-ai-slim is not installed (pip install pydantic-ai-slim)",
    )


#: What pydantic-ai's output keeps that plistspec's rules refuse for Gemini, and why.
GEMINI_DIFFERENCES = {
    "type": "a type list ([T, 'null'] without anyOf) is a 400 for `parameters` (prism #974, "
    "copilot-cli #4623); the transformer leaves ['string', 'null'] when it is not an anyOf",
    "default": "the Gemini API may reject default in function declarations (adk-python #26); "
    "plistspec moves it into the description",
    "uniqueItems": "not a field of Gemini's Schema proto (unknown keys are 400s)",
    "multipleOf": "not a field of Gemini's Schema proto",
    "allOf": "not a field of Gemini's Schema proto; plistspec merges it",
    "not": "not a field of Gemini's Schema proto",
    "enum": "Gemini `parameters` takes strings only; numbers go into the description",
    "format": "the Gemini API supports only the string formats enum and date-time",
    "additionalProperties": "outside the keyword list Google documents for parametersJsonSchema",
    "oneOf": "plistspec keeps oneOf for parametersJsonSchema (documented as anyOf)",
    "minLength": "outside the keyword list Google documents for parametersJsonSchema",
    "maxLength": "outside the keyword list Google documents for parametersJsonSchema",
    "pattern": "outside the keyword list Google documents for parametersJsonSchema",
    "exclusiveMinimum": "outside both keyword lists",
    "exclusiveMaximum": "outside both keyword lists",
    "const": "Gemini refuses const; plistspec writes a one-value enum",
    "nullable": "not JSON Schema: parametersJsonSchema says null with a type list or anyOf",
    "$ref": "a recursive $ref the OpenAPI subset cannot hold",
    "$defs": "definitions kept after every $ref was inlined",
    "definitions": "draft-07 definitions, outside both keyword lists (plistspec inlines or "
    "moves them into $defs)",
    "items": "an array without items",
    "description": "a description that is not a string",
    "properties": "properties on a schema that is not an object",
    "required": "required on a schema that is not an object",
    "prefixItems": "positional items, outside the OpenAPI subset",
    "minProperties": "outside the keyword list Google documents for parametersJsonSchema",
    "maxProperties": "outside the keyword list Google documents for parametersJsonSchema",
    "contains": "outside both keyword lists",
    "dependentRequired": "outside both keyword lists",
    "x-order": "an extension key, unknown to Gemini",
    "$comment": "outside both keyword lists",
    "title": "outside the OpenAPI subset's use here",
    "examples": "not a field of Gemini's Schema proto",
    "anyOf": "type beside anyOf",
    "root": "composition at the root",
}

_BOUNDS = ("minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems")
_FACT_KEYS = ("minimum", "maximum", "minLength", "maxLength", "pattern", "minItems", "maxItems")


def _facts(schema: Any) -> list[tuple[str, Any]]:
    out = []
    work = [schema]
    while work:
        node = work.pop()
        if not isinstance(node, dict):
            continue
        for k in _FACT_KEYS:
            if k in node:
                out.append((k, node[k]))
        for v in node.get("enum") or []:
            out.append(("enum", v))
        work.extend(c[k] for _p, c, k in subschemas(node))
    return out


def _descriptions(schema: Any) -> list[str]:
    out, work = [], [schema]
    while work:
        node = work.pop()
        if isinstance(node, dict):
            if isinstance(node.get("description"), str):
                out.append(node["description"])
            work.extend(c[k] for _p, c, k in subschemas(node))
    return out


def _has_fact(schema: Any, fact: tuple[str, Any]) -> bool:
    """``fact`` is a keyword of ``schema`` somewhere, or said in one of its descriptions."""
    if any(f == fact and type(f[1]) is type(fact[1]) for f in _facts(schema)):
        return True
    key, value = fact
    if key in _BOUNDS and isinstance(value, (int, float)):
        # a bound is kept when plistspec keeps one at least as tight (allOf members merged)
        import re

        found = [v for k, v in _facts(schema) if k == key and isinstance(v, (int, float))]
        for t in _descriptions(schema):
            found += [float(m) for m in re.findall(rf"{key}: (-?[0-9.]+)", t)]
        tighter = (lambda v: v >= value) if key.startswith("min") else (lambda v: v <= value)
        if any(tighter(v) for v in found):
            return True
    if key == "enum" and value is None:
        # null in an enum: written as nullability where the type allows null, dropped where
        # the type excludes it (it could never match); the property tests hold the meaning
        return True
    said = json.dumps(value, ensure_ascii=False)
    texts = _descriptions(schema)
    if key == "enum":
        return any(said in t or str(value) in t for t in texts)
    return any(f"{key}: {said}" in t or f'"{key}": {said}' in t for t in texts)


def _keyword_of(pointer: str, message: str) -> str:
    if not pointer.strip("/"):
        return "root"
    last = pointer.rstrip("/").rsplit("/", 1)[-1]
    for k in GEMINI_DIFFERENCES:
        if f" {k}" in message or last == k:
            return k
    return last


def _check_gemini(params: dict[str, Any], target: str, strict_about: set[str]) -> None:
    google = _google()
    cls = (
        google.GoogleOpenAPISchemaTransformer
        if target == "gemini"
        else google.GoogleJsonSchemaTransformer
    )
    try:
        theirs = cls(copy.deepcopy(params)).walk()
    except Exception:  # noqa: BLE001 - the transformer refuses this schema
        return
    ours, diags = _lower(params, target)
    if any(d.is_error for d in diags):
        return
    # at least as strict: what they leave that our rules refuse is a documented difference
    for pointer, message in schema_violations(theirs, target):
        kw = _keyword_of(pointer, message)
        assert kw in GEMINI_DIFFERENCES, (pointer, message)
        strict_about.add(kw)
    # never lose what they keep (facts under a node that cannot be an object, whose
    # properties plistspec removed as no-ops, or that only null fits, are unreachable and
    # not compared)
    if any("not an object" in d.message or "moot" in d.message for d in diags):
        return
    kept = _facts(params)
    for fact in _facts(theirs):
        if fact not in kept:
            continue  # made up by the transformer (e.g. maxItems pinned for a tuple)
        if fact[0] == "enum" and isinstance(fact[1], bool):
            continue  # enum [true, false] under type boolean: dropped as saying nothing more
        assert _has_fact(ours["parameters"], fact), (fact, ours["parameters"])


@pytest.mark.slow
@pytest.mark.parametrize("target", ["gemini", "gemini-jsonschema"])
def test_gemini_compared_with_pydantic_ai_on_fixtures(target) -> None:
    seen: set[str] = set()
    for _name, params in FIXTURE_SCHEMAS:
        _check_gemini(params, target, seen)
    # the transformer leaves at least the type lists / defaults Gemini refuses
    if target == "gemini":
        assert seen, "expected plistspec to refuse something pydantic-ai's output keeps"


@pytest.mark.slow
@pytest.mark.parametrize("target", ["gemini", "gemini-jsonschema"])
@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(params=parameters())
def test_gemini_compared_with_pydantic_ai_on_random_schemas(target, params) -> None:
    _check_gemini(params, target, set())
