"""The ``llm-`` backends of ``check --server``'s ``lower`` request (calls/llmwire.py).

A tool ``plistspec-llm-mode`` sends is the contract its author declared: a call is
refused iff, mapped back from the lowered schema the model saw, it breaks that contract,
even where lowering moved the constraint into a description (Gemini's integer ``enum``),
as gptel's are (issue 27); a call that fits the declared schema as sent runs as sent, as llm
alone would run it.
"""

from __future__ import annotations

import json

from plistspec.calls import llmwire
from plistspec.calls.toolset import Toolsets

PARAMS = {
    "type": "object",
    "properties": {
        "level": {"type": "integer", "enum": [1, 2, 3]},
        "note": {"type": "string"},
    },
    "required": ["level"],
    "additionalProperties": False,
}


def _gemini(backend: str) -> tuple[Toolsets, str]:
    sets = Toolsets()
    text = json.dumps(
        [{"functionDeclarations": [{"name": "f", "description": "d", "parameters": PARAMS}]}]
    )
    answer = sets.lower(backend, text)
    assert answer["target"] == "gemini"
    return sets, answer["sent"][0][2]


def test_family() -> None:
    assert llmwire.family("llm-gemini") == ("gemini", True)
    assert llmwire.family("gemini") == ("gemini", False)
    assert llmwire.family(None) == (None, False)


def test_a_declared_enum_is_enforced_where_lowering_moved_it() -> None:
    sets, tool = _gemini("llm-gemini")
    refused = sets.call(tool, json.dumps({"level": 7}), True)
    assert refused["ok"] is False
    assert refused["problems"] == [["/level", "one of 1, 2, 3", "7"]]
    assert sets.call(tool, json.dumps({"level": 2, "note": "x"}), True) == {
        "ok": True,
        "edits": [],
    }


def test_gptel_backends_are_judged_by_the_same_contract() -> None:
    sets, tool = _gemini("gemini")
    assert sets.call(tool, json.dumps({"level": 7}), True)["ok"] is False
    assert sets.call(tool, json.dumps({"level": 2}), True)["ok"] is True


def test_a_strict_null_is_mapped_back() -> None:
    sets = Toolsets()
    text = json.dumps([{"type": "function", "name": "f", "description": "d", "parameters": PARAMS}])
    tool = sets.lower("llm-openai-responses", text)["sent"][0][2]
    assert sets.call(tool, json.dumps({"level": 1, "note": None}), False)["ok"] is True
    refused = sets.call(tool, json.dumps({"level": 9, "note": None}), False)
    assert [p[0] for p in refused["problems"]] == ["/level"]
