"""Instances, not shapes: what the lowered schema accepts against what the original did.

For every target, over generated schemas (``test_properties.parameters``) and over every
real schema in ``fixtures/`` (the tool JSON of ``fixtures/json`` and what gptel/llm send
for the Elisp of ``fixtures/elisp`` and ``fixtures/corpus``): instances valid against the
original are drawn by hypothesis-jsonschema, invalid ones are mutations of them (a
required key dropped, a key added, a value of another type, a string out of its enum...).
Checked with ``jsonschema`` (formats asserted, Gemini's OpenAPI ``nullable`` read as a
union with null):

* a valid instance stays valid against the lowered schema unless a diagnostic of that
  tool says the rewrite *narrows* (``narrows``/``widens+narrows``), at the property the
  instance fails at or above it;
* an invalid instance stays invalid unless a diagnostic says it *widens*, likewise placed.
"""

from __future__ import annotations

import copy
import sys
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")
jsonschema = pytest.importorskip("jsonschema")
hjs = pytest.importorskip(
    "hypothesis_jsonschema", reason="pip install hypothesis-jsonschema (the test extras)"
)

from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _hjs_compat import patch  # noqa: E402
from _lowering_support import TARGETS, fixture_tools  # noqa: E402
from test_properties import as_json_schema, parameters  # noqa: E402

from plistspec.emit_json.target import sent_tools  # noqa: E402
from plistspec.lowering.tools import lower_tools_detailed  # noqa: E402

patch()
NARROWS = ("narrows", "widens+narrows")
WIDENS = ("widens", "widens+narrows")


def _validator(schema: Any):
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


_ANY = object()  # a step of the instance path that any key or index matches


def _steps(pointer: str) -> list[Any] | None:
    """The instance path a schema pointer stands for: a property name, or :data:`_ANY` for
    ``additionalProperties``/``patternProperties``/``items``/``prefixItems`` (None: not a
    path from the root, e.g. inside $defs: related to every instance)."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    if parts[:1] == ["parameters"]:
        parts = parts[1:]
    if "$defs" in parts or "definitions" in parts or "…" in pointer:
        return None
    out: list[Any] = []
    i = 0
    while i < len(parts):
        k = parts[i]
        if k == "properties" and i + 1 < len(parts):
            out.append(parts[i + 1])
            i += 2
        elif k in ("patternProperties", "prefixItems") and i + 1 < len(parts):
            out.append(_ANY)
            i += 2
        elif k in ("additionalProperties", "items"):
            out.append(_ANY)
            i += 1
        else:  # anyOf/i, allOf/i, oneOf/i, not, if, then, else...: the same instance
            i += 2 if k in ("anyOf", "allOf", "oneOf", "dependentSchemas") else 1
    return out


def _related(pointer: str, path: list[Any]) -> bool:
    steps = _steps(pointer)
    if steps is None:
        return True
    n = min(len(steps), len(path))
    return all(a is _ANY or a == str(b) for a, b in zip(steps[:n], path[:n], strict=True))


def _explained(records, effects: tuple[str, ...], errors) -> bool:
    """Some record with one of ``effects`` is at the place of one of ``errors``."""
    for r in records:
        if r.effect not in effects:
            continue
        for e in errors:
            if _related(r.pointer, list(e.absolute_path)):
                return True
    return False


def _mutations(value: Any, schema: Any) -> list[Any]:
    """Values near ``value`` that break a rule somewhere (filtered by the caller)."""
    out: list[Any] = []
    paths: list[tuple[list[Any], Any]] = [([], value)]
    work = [([], value)]
    while work:
        path, v = work.pop()
        if isinstance(v, dict):
            for k, x in v.items():
                paths.append(([*path, k], x))
                work.append(([*path, k], x))
        elif isinstance(v, list):
            for i, x in enumerate(v[:3]):
                paths.append(([*path, i], x))
                work.append(([*path, i], x))
    for path, v in paths[:40]:
        for new in ("zz-not-a-value", 12345, 1.5, None, True, [], {}, {"extra": 1}):
            out.append(_set(value, path, new))
        if isinstance(v, dict):
            out.append(_set(value, path, {**v, "unexpected_key": "x"}))
            for k in list(v)[:6]:
                out.append(_set(value, path, {kk: vv for kk, vv in v.items() if kk != k}))
        if isinstance(v, str):
            out.append(_set(value, path, v + "x" * 300))
            out.append(_set(value, path, ""))
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out.extend(_set(value, path, v + d) for d in (-1000, 1000, 0.5))
        if isinstance(v, list):
            out.append(_set(value, path, v + v + v))
            out.append(_set(value, path, []))
    return out


def _set(value: Any, path: list[Any], new: Any) -> Any:
    if not path:
        return new
    out = copy.deepcopy(value)
    cur = out
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = new
    return out


def _check(params: dict[str, Any], target: str, data, tool: dict | None = None) -> None:
    tool = tool or {"type": "function", "name": "t", "description": "d", "parameters": params}
    tool.setdefault("metadata", {})
    out, records = lower_tools_detailed([copy.deepcopy(tool)], target)
    assume(not any(r.severity == "error" for r in records))
    sent = out[0]["parameters"]
    if out[0]["metadata"]["lowered"].get("no_parameters"):  # none sent: no arguments
        sent = {"type": "object", "properties": {}, "additionalProperties": False}
    try:
        original = _validator(params)
        lowered = _validator(as_json_schema(sent))
    except jsonschema.SchemaError:
        assume(False)  # not 2020-12 (draft-3 required, "type": "nil"): unit tests say what
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            strategy = hjs.from_schema(params)
    except Exception:  # noqa: BLE001 - hypothesis-jsonschema cannot draw from this one
        assume(False)
    try:
        value = data.draw(strategy)
    except Exception:  # noqa: BLE001 - nothing fits, or a keyword it cannot do
        assume(False)
    assume(isinstance(value, dict))  # tool arguments are an object
    try:
        if not original.is_valid(value):
            assume(False)  # hypothesis-jsonschema's formats are not always the checker's
        errors = list(lowered.iter_errors(value))
    except (jsonschema.exceptions.UnknownType, TypeError, RecursionError):
        assume(False)
    if errors:
        assert _explained(records, NARROWS, errors), (
            f"{target}: a valid instance is refused by the lowered schema, and no "
            f"diagnostic says the rewrite narrows there: {value!r}: {errors[0].message}",
            params,
            out[0]["parameters"],
        )
    for bad in _mutations(value, params):
        if original.is_valid(bad) or not lowered.is_valid(bad):
            continue
        errs = list(original.iter_errors(bad))
        assert _explained(records, WIDENS, errs), (
            f"{target}: an invalid instance is accepted by the lowered schema, and no "
            f"diagnostic says the rewrite widens there: {bad!r}: {errs[0].message}",
            params,
            out[0]["parameters"],
        )


_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
@_SETTINGS
@given(params=parameters(), data=st.data())
def test_generated_schemas_keep_their_instances(target: str, params, data) -> None:
    _check(params, target, data)


@cache
def _real_tools() -> list[tuple[str, dict[str, Any]]]:
    """Every real tool of fixtures/ (tool JSON; Elisp as gptel/llm send it, per wire)."""
    json_tools = fixture_tools(elisp=False)
    elisp_tools = fixture_tools()[len(json_tools) :]  # (the JSON tools come first)
    return [x for x in json_tools if isinstance(x[1]["parameters"], dict)] + list(elisp_tools)


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_real_schemas_keep_their_instances(target: str, data) -> None:
    _name, tool = data.draw(st.sampled_from(_real_tools()))
    start, _ = sent_tools([tool], target)
    assume(start and isinstance(start[0].get("parameters"), dict))
    tool = copy.deepcopy(start[0])
    _check(tool["parameters"], target, data, tool)
