"""Round trips of the corpus fixtures: ``to-json -t ir`` → ``from-json`` →
``to-json -t P`` equals ``to-json -t P`` of the original, for every provider
format and both dialects (the JSON goes through text, as between the commands)."""

from __future__ import annotations

import json

import pytest

from plistspec.api import from_provider, to_elisp, to_json
from plistspec.core.formats import FORMATS
from plistspec.core.jsonout import dumps
from support import ROOT

CORPUS = ROOT / "fixtures" / "corpus"
FILES = sorted(p.name for p in CORPUS.glob("*.el"))


def _round_trip(text: str, path: str, dialect: str) -> tuple[str, dict[str, str]] | None:
    ir = to_json(text, "ir", path, dialect).value
    if ir is None:
        return None
    tools, _ = from_provider(json.loads(dumps(ir)), "ir")
    el, _ = to_elisp(tools, dialect)
    return el, {fmt: dumps(to_json(el, fmt, "rt.el", dialect).value) for fmt in FORMATS[1:]}


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("dialect", ["gptel", "llm"])
def test_round_trip_keeps_the_provider_json(name, dialect):
    text = (CORPUS / name).read_text(encoding="utf-8")
    got = _round_trip(text, str(CORPUS / name), dialect)
    if got is None:
        # the library refuses a tool of this file: plistspec must say so with an error
        # (nothing to round-trip), never print JSON the library could not send
        refused = to_json(text, "openai", str(CORPUS / name), dialect)
        assert refused.value is None
        assert any(d.is_error and d.code in ("PS201", "PS202") for d in refused.diagnostics)
        return
    _, back = got
    for fmt, out in back.items():
        assert out == dumps(to_json(text, fmt, str(CORPUS / name), dialect).value), fmt


def test_vector_args_keep_their_required_names():
    text = (CORPUS / "roundtrip.el").read_text(encoding="utf-8")
    el, back = _round_trip(text, "roundtrip.el", "gptel")
    tool = json.loads(back["openai"])[0]["function"]
    assert tool["name"] == "vec_args"
    assert tool["parameters"]["properties"] == {}
    assert tool["parameters"]["required"] == ["a", "a"]
    assert ':args [(:name "a") (:name "a")]' in el


def test_nested_tools_are_written_once():
    """The outer lambda calls `my-run', a function plistspec does not know (it could be a
    macro that runs code when the file is loaded): from JSON it becomes a stub and the
    tools made inside it are written as tools of their own; trusted, it is written as it
    is, the nested tools inside it. Either way each tool is written once."""
    from plistspec.fromjson.detect import from_json

    text = (CORPUS / "roundtrip.el").read_text(encoding="utf-8")
    el, back = _round_trip(text, "roundtrip.el", "gptel")
    names = [t["function"]["name"] for t in json.loads(back["openai"])]
    assert names == ["vec_args", "delegate", "helper", "leaf", "sibling"]
    assert el.count(':name "leaf"') == 1 and el.count(':name "helper"') == 1
    assert ";; 5 tools written by plistspec." in el and "(my-run" not in el
    ir = json.loads(dumps(to_json(text, "ir", "roundtrip.el", "gptel").value))
    tools, _ = from_json(ir, "ir", trust_functions=True)
    el, _ = to_elisp(tools, "gptel")
    assert el.count(':name "leaf"') == 1 and el.count(':name "helper"') == 1
    assert ";; 3 tools written by plistspec." in el and "(my-run" in el
    names = [t["function"]["name"] for t in to_json(el, "openai", "rt.el", "gptel").value]
    assert names == ["vec_args", "delegate", "helper", "leaf", "sibling"]
