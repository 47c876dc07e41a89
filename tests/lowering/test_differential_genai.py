"""Differential tests against google-genai, Google's own SDK (a test-only dependency,
skipped visibly when missing: ``pip install google-genai``).

Every declaration ``--lower -t gemini`` and ``-t gemini-jsonschema`` write, for the real
tools of ``fixtures/`` and for generated schemas, is accepted by the SDK's
``FunctionDeclaration`` (a pydantic model that forbids unknown keys: what the API's
protobuf ``Schema`` holds). The SDK's type is wider than what plistspec sends Gemini;
what it accepts and plistspec's rules refuse is listed in :data:`SDK_WIDER`, with why.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import fixture_tools  # noqa: E402
from test_properties import parameters  # noqa: E402

from plistspec.emit_json.target import sent_tools, to_target_json  # noqa: E402
from plistspec.lowering import lower_tools  # noqa: E402

#: keys of the SDK's ``Schema`` that plistspec's rules keep out of ``parameters``, and why
SDK_WIDER = {
    "additional_properties": "Vertex's Schema has it; the Gemini API answers 400 'Unknown name "
    "additionalProperties' (gptel #806), so plistspec says it in the description",
    "defs": "Vertex only; plistspec inlines every $ref for Gemini's parameters",
    "ref": "Vertex only; plistspec inlines every $ref for Gemini's parameters",
    "default": "the Gemini API may reject default in function declarations (adk-python #26)",
    "example": "kept out: plistspec moves annotations into the description",
}


def _types():
    return pytest.importorskip(
        "google.genai.types", reason="google-genai is not installed (pip install google-genai)"
    )


def _tools() -> list[dict[str, Any]]:
    return [t for _label, t in fixture_tools()]


def _declarations(tools: list[dict[str, Any]], target: str) -> list[dict[str, Any]]:
    """The declarations plistspec sends ``target``, one lowering per tool (a tool the
    target cannot express, e.g. recursion for gemini, is refused and left out)."""
    decls = []
    for tool in tools:
        start, errs = sent_tools([copy.deepcopy(tool)], target)
        if errs or not start:
            continue
        out, diags = lower_tools(start, target)
        if any(d.is_error for d in diags):
            continue
        wrapper = to_target_json(out, target)[0]
        decls += next(iter(wrapper.values()))
    return decls


@pytest.mark.parametrize("target", ["gemini", "gemini-jsonschema"])
def test_the_sdk_accepts_every_declaration_of_the_fixtures(target: str) -> None:
    types = _types()
    decls = _declarations(_tools(), target)
    assert len(decls) > 40
    for decl in decls:
        types.FunctionDeclaration.model_validate(decl)  # raises on anything it refuses
        if target == "gemini-jsonschema":
            assert "parameters" not in decl


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(params=parameters())
def test_the_sdk_accepts_declarations_of_generated_schemas(params) -> None:
    types = _types()
    tool = {"type": "function", "name": "t", "description": "d", "parameters": params}
    for decl in _declarations([tool], "gemini"):
        types.FunctionDeclaration.model_validate(decl)


def test_what_the_sdk_accepts_beyond_plistspec_is_listed() -> None:
    """Each Schema field plistspec's gemini rules leave out is in SDK_WIDER with a reason."""
    types = _types()
    from plistspec.lowering.rules import rules

    kept = set(rules("gemini").keywords or ())
    camel = {
        "".join(w.capitalize() if i else w for i, w in enumerate(f.split("_"))): f
        for f in types.Schema.model_fields
    }
    missing = {f for c, f in camel.items() if c not in kept} - set(SDK_WIDER)
    assert not missing, f"the SDK's Schema has {sorted(missing)}: keep them or say why not"
