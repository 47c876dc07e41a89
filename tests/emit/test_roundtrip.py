"""Round trips: Elisp → IR → Elisp and JSON → Elisp → JSON, with plistspec's own
gptel/llm emulation (checked byte for byte against the real packages elsewhere)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plistspec.api import read_tools
from plistspec.core.jsonout import dumps
from plistspec.emit_elisp import reindent, to_elisp
from plistspec.emit_json import emit
from plistspec.fromjson.detect import from_json

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = ROOT / "fixtures" / "reference" / "expected"
FIXTURES = ROOT / "fixtures" / "elisp"
JSON = ROOT / "fixtures" / "json"
BACKENDS = ("openai", "openai-responses", "anthropic", "gemini", "bedrock", "ollama")


def _all_json(tools) -> dict[str, str]:
    out = {}
    for fmt in BACKENDS:
        value, diags = emit(tools, fmt)
        assert not any(d.is_error for d in diags)
        out[fmt] = json.dumps(value, ensure_ascii=False)
    return out


def _reread(text: str, dialect: str | None = None):
    tools, diags = read_tools(text, "regenerated.el", dialect)
    assert not any(d.is_error for d in diags), [d.render() for d in diags]
    return tools


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.el")), ids=lambda p: p.name)
def test_elisp_ir_elisp(path: Path) -> None:
    original = _reread(path.read_text(encoding="utf-8"))
    assert original
    dialect = None  # each tool in its own dialect (init.el mixes gptel and llm)
    text, diags = to_elisp(original, dialect)
    assert not [d for d in diags if d.severity != "info"]
    again = _reread(text)
    assert _all_json(again) == _all_json(original)
    for a, b in zip(original, again, strict=True):
        sa, sb = a["metadata"]["slots"], b["metadata"]["slots"]
        assert [s["key"] for s in sa] == [s["key"] for s in sb]
        for x, y in zip(sa, sb, strict=True):  # as written, moved to the new column
            assert reindent(x["text"], x["column"], y["column"]) == y["text"]
            assert reindent(y["text"], y["column"], x["column"]) == x["text"]
    # and a second generation gives the same bytes
    assert to_elisp(again, dialect)[0] == text


def _expected_cases():
    for path in sorted(EXPECTED.glob("*.json")):
        backend = path.name.split(".")[1]
        if backend.startswith("llm-"):
            fmt = {"llm-vertex": "vertex", "llm-ollama": "ollama"}.get(backend, backend[4:])
            yield pytest.param(path, "llm", fmt, id=path.name)
        else:
            yield pytest.param(path, "gptel", backend, id=path.name)


@pytest.mark.parametrize("path, dialect, fmt", list(_expected_cases()))
def test_json_elisp_json_gives_the_input_back(path: Path, dialect: str, fmt: str) -> None:
    """from-json, then to-json -t the same provider: byte for byte."""
    raw = path.read_text(encoding="utf-8")
    tools, diags = from_json(json.loads(raw))
    assert not any(d.is_error for d in diags)
    text, diags = to_elisp(tools, dialect)
    assert not [d for d in diags if d.severity == "error"]
    value, diags = emit(_reread(text), fmt)
    assert dumps(value) == raw


@pytest.mark.parametrize("path", sorted(JSON.glob("*.json")), ids=lambda p: p.name)
@pytest.mark.parametrize("dialect", ["gptel", "llm"])
def test_json_fixtures_elisp_keeps_what_the_dialect_carries(path: Path, dialect: str) -> None:
    tools, _ = from_json(json.loads(path.read_text(encoding="utf-8")))
    text, diags = to_elisp(tools, dialect)
    again = _reread(text)
    assert [t["name"] for t in again] == [t["name"] for t in tools]
    lossy = " ".join(d.message for d in diags if d.code in ("PS520", "PS521", "PS522", "PS523"))
    for a, b in zip(tools, again, strict=True):
        if f"tool {a['name']!r}:" in lossy:
            continue  # reported as not carried by this dialect
        if dialect == "gptel":
            a["metadata"] = {"dialect": "gptel", "args": a["metadata"]["args"]}
            assert _all_json([b]) == _all_json([a])
        else:
            assert list(b["parameters"]["properties"]) == list(a["parameters"]["properties"])
            for name, schema in a["parameters"]["properties"].items():
                want = {
                    k: schema[k]
                    for k in ("type", "description", "enum", "items", "properties")
                    if k in schema
                }
                t = want.get("type")
                if isinstance(t, list) and "null" in t and len(t) == 2:
                    # a nullable type: the other type, optional (llm cannot send null)
                    want["type"] = [x for x in t if x != "null"][0]
                    assert name not in b["parameters"].get("required", [])
                assert b["parameters"]["properties"][name] == want
    assert lossy or dialect == "gptel" or path.name != "mcp_tools_list.json"


# --- hypothesis: generated specs ------------------------------------------------------------

_text = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=12
)
_prop_name = st.from_regex(r"[A-Za-z_][A-Za-z0-9_ .:$-]{0,10}", fullmatch=True)
_leaf_schema = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "number", "boolean"])},
    optional={"description": _text, "enum": st.lists(_text, min_size=1, max_size=3)},
)


def _schemas(depth: int = 2):
    if depth == 0:
        return _leaf_schema
    inner = _schemas(depth - 1)
    return st.one_of(
        _leaf_schema,
        st.fixed_dictionaries(
            {"type": st.just("array"), "items": inner}, optional={"description": _text}
        ),
        st.fixed_dictionaries(
            {
                "type": st.just("object"),
                "properties": st.dictionaries(_prop_name, inner, min_size=1, max_size=3),
            },
            optional={"description": _text},
        ),
    )


@st.composite
def tools(draw):
    props = draw(st.dictionaries(_prop_name, _schemas(), max_size=4))
    req = [p for p in props if draw(st.booleans())]
    params = {"type": "object", "properties": props}
    if req:
        params["required"] = req
    return {
        "type": "function",
        "name": draw(st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True)),
        "description": draw(_text),
        "parameters": params,
        "metadata": {},
    }


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(st.lists(tools(), min_size=1, max_size=3))
def test_generated_specs_round_trip_gptel(ts) -> None:
    text, diags = to_elisp(ts, "gptel")
    assert not [d for d in diags if d.severity != "info"]
    again = _reread(text)
    for t in ts:
        t["metadata"] = {
            "dialect": "gptel",
            "args": "list" if t["parameters"]["properties"] else "nil",
        }
    assert _all_json(again) == _all_json(ts)
    # Elisp → IR → Elisp is a fixed point
    assert to_elisp(again, "gptel")[0] == text


@pytest.mark.slow
@settings(max_examples=50, deadline=None)
@given(st.lists(tools(), min_size=1, max_size=3))
def test_generated_specs_round_trip_llm(ts) -> None:
    text, _ = to_elisp(ts, "llm")
    again = _reread(text)
    assert to_elisp(again, "llm")[0] == text
    for a, b in zip(ts, again, strict=True):
        assert list(b["parameters"]["properties"]) == list(a["parameters"]["properties"])
        for name, schema in a["parameters"]["properties"].items():
            got = b["parameters"]["properties"][name]
            assert got["type"] == schema["type"]
            assert got.get("enum") == schema.get("enum")
