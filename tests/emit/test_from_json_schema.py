"""JSON that must become the right schema: nullable unions under llm (checked with the real
llm's own serializer) and the MCP annotation defaults for gptel's :confirm."""

from __future__ import annotations

import json

import pytest

from plistspec.emit_elisp import to_elisp
from plistspec.fromjson.detect import from_json

PROPS = {
    "a": {"anyOf": [{"type": "integer"}, {"type": "null"}], "description": "A"},
    "b": {"type": ["string", "null"]},
    "c": {"oneOf": [{"type": "string", "enum": ["x", "y"]}, {"type": "null"}]},
    "e": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
    "r": {"type": "number"},
}
TOOL = {
    "name": "t",
    "description": "d",
    "inputSchema": {"type": "object", "properties": PROPS, "required": ["a", "b", "c", "r"]},
}

LLM_SERIALIZE = r"""
(require 'llm)
(require 'llm-provider-utils)
(load FILE nil t)
(princ (json-serialize (llm-provider-utils-openai-arguments
                        (llm-tool-args (car tools-tools)))))
"""


@pytest.mark.slow
def test_nullable_unions_become_a_type_and_optional_under_llm(emacs, elisp_deps_dir, tmp_path):
    from support import elisp_deps_preamble

    tools, diags = from_json(TOOL)
    text, diags = to_elisp(tools, "llm")
    assert not [d for d in diags if d.severity != "info"], [d.message for d in diags]
    path = tmp_path / "tools.el"
    path.write_text(text, encoding="utf-8")
    script = elisp_deps_preamble(elisp_deps_dir) + LLM_SERIALIZE.replace(
        "FILE", json.dumps(str(path))
    )
    sent = json.loads(emacs.run(script))
    assert sent["properties"] == {
        "a": {"type": "integer", "description": "A"},
        "b": {"type": "string"},
        "c": {"type": "string", "enum": ["x", "y"]},
        "e": {"type": "array", "items": {"type": "string"}},
        "r": {"type": "number"},
    }
    assert sent["required"] == ["r"]


def test_a_union_that_llm_cannot_say_is_still_reported() -> None:
    tool = dict(
        TOOL,
        inputSchema={
            "type": "object",
            "properties": {
                "d": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}
            },
        },
    )
    tools, _ = from_json(tool)
    _, diags = to_elisp(tools, "llm")
    assert any(d.code == "PS520" and "anyOf" in d.message for d in diags)
    tool["inputSchema"]["properties"]["d"] = {"type": ["string", "integer", "null"]}
    _, diags = to_elisp(from_json(tool)[0], "llm")
    assert any(d.code == "PS520" and "type array" in d.message for d in diags)


@pytest.mark.parametrize(
    "annotations, confirm",
    [
        ({}, True),  # every default: not read-only, destructive
        ({"title": "x"}, True),
        ({"readOnlyHint": False}, True),
        ({"destructiveHint": True}, True),
        ({"readOnlyHint": False, "destructiveHint": True}, True),
        ({"destructiveHint": False}, False),
        ({"readOnlyHint": True}, False),
        ({"readOnlyHint": True, "destructiveHint": True}, False),  # meaningless when read-only
        (None, False),  # no annotations at all: no hints given, no :confirm
    ],
)
def test_mcp_annotations_follow_the_spec_defaults(annotations, confirm: bool) -> None:
    tool = {"name": "t", "description": "d", "inputSchema": {"type": "object"}}
    if annotations is not None:
        tool["annotations"] = annotations
    text, _ = to_elisp(from_json(tool)[0], "gptel")
    assert (" :confirm t" in text) == confirm


@pytest.mark.parametrize(
    "props, dialect, says",
    [
        ({"x": {"type": "string"}}, "gptel", "gptel adds additionalProperties: false back"),
        ({}, "gptel", "without arguments"),
        ({"x": {"type": "string"}}, "llm", "llm sends no additionalProperties"),
    ],
)
def test_the_additional_properties_note_says_what_the_library_does(props, dialect, says) -> None:
    params = {"type": "object", "properties": props, "additionalProperties": False}
    tool = {"name": "t", "description": "d", "inputSchema": params}
    _, diags = from_json(tool, dialect=dialect)
    (note,) = [d for d in diags if d.code == "PS505"]
    assert note.severity == "info" and says in note.message
    assert ("gptel adds" in note.message) == (dialect == "gptel" and bool(props))


@pytest.mark.slow
def test_a_draft4_items_array_is_dropped_under_llm(emacs, elisp_deps_dir, tmp_path) -> None:
    """A draft-4 tuple (``"items": [S, S]``, as older servers publish a coordinate pair):
    llm fails on an :items vector (``wrong-type-argument listp``), so from-json -d llm
    leaves it out with a warning, and the real llm sends the rest."""
    from click.testing import CliRunner

    from plistspec.cli import main
    from support import elisp_deps_preamble

    tuple_items = [{"type": "number"}, {"type": "number"}]
    tool = dict(
        TOOL,
        inputSchema={
            "type": "object",
            "properties": {
                "point": {"type": "array", "items": tuple_items, "description": "x, y"},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["point"],
        },
    )
    path = tmp_path / "tools.el"
    args = ["from-json", "-d", "llm", "-", "-o", str(path)]
    r = CliRunner().invoke(main, args, input=json.dumps(tool))
    assert r.exit_code == 0, r.output
    assert "property 'point': dropped :items" in r.output and "[PS520]" in r.output
    script = elisp_deps_preamble(elisp_deps_dir) + LLM_SERIALIZE.replace(
        "FILE", json.dumps(str(path))
    )
    sent = json.loads(emacs.run(script))
    assert sent["properties"] == {
        "point": {"type": "array", "description": "x, y"},
        "tags": {"type": "array", "items": {"type": "string"}},
    }
    # gptel sends the vector as JSON's array: kept there
    r = CliRunner().invoke(main, ["from-json", "-"], input=json.dumps(tool))
    assert r.exit_code == 0 and ":items [" in r.output and "dropped :items" not in r.output


@pytest.mark.slow
def test_a_union_llm_cannot_say_is_written_as_its_first_member(
    emacs, elisp_deps_dir, tmp_path
) -> None:
    """Unions of several types (sequential-thinking's ``["boolean", "string"]``, which
    ``-t gemini`` writes as anyOf; sentry's nullable ``anyOf [anyOf [string, array],
    null]``; notion's ``anyOf [oneOf [object, object], string]``) left an llm arg without
    ``:type``: llm sends ``"type": "nil"`` and from-json -t failed. The first member is
    written, with a PS520 warning, as for a type list; a nullable one stays optional."""
    from click.testing import CliRunner

    from plistspec.cli import main
    from support import elisp_deps_preamble

    obj = {"type": "object", "properties": {"id": {"type": "string"}}}
    tool = dict(
        TOOL,
        inputSchema={
            "type": "object",
            "properties": {
                "more": {"type": ["boolean", "string"], "description": "More?"},
                "env": {
                    "anyOf": [
                        {"anyOf": [{"type": "string"}, {"type": "array", "items": {}}]},
                        {"type": "null"},
                    ]
                },
                "parent": {"anyOf": [{"oneOf": [obj, obj]}, {"type": "string"}]},
            },
            "required": ["more", "env", "parent"],
        },
    )
    sent = {}
    for target in ("gemini", None):
        path = tmp_path / f"tools{target or ''}.el"
        args = ["from-json", *(["-t", target] if target else []), "-d", "llm", "-"]
        r = CliRunner().invoke(main, [*args, "-o", str(path)], input=json.dumps(tool))
        assert r.exit_code == 0, r.output
        # (a type list without -t is the writer's own PS520, said as before)
        assert r.output.count("llm cannot express a union") == (3 if target else 2)
        feature = path.stem
        script = elisp_deps_preamble(elisp_deps_dir) + LLM_SERIALIZE.replace(
            "FILE", json.dumps(str(path))
        ).replace("tools-tools", f"{feature}-tools")
        sent[target] = json.loads(emacs.run(script))
    for got in sent.values():
        assert got["properties"]["more"] == {"type": "boolean", "description": "More?"}
        assert got["properties"]["env"] == {"type": "string"}
        assert got["properties"]["parent"]["type"] == "object"
    # env may be null: optional for llm (Gemini's lowering says nullable, which llm drops)
    assert sent[None]["required"] == ["more", "parent"]


@pytest.mark.slow
def test_an_arg_with_no_type_is_typed_under_llm(emacs, elisp_deps_dir, tmp_path) -> None:
    """An arg that takes any JSON value (``{}``: desktop-commander's ``edit_block``) left an
    llm arg without ``:type``: llm sends ``"type": "nil"``, every provider refuses it, and
    ``from-json -t openai -d llm`` failed. It is typed as Gemini's lowering types it (a
    string saying it holds any JSON value; object/array where properties/items say so),
    with a PS520 warning; gptel, which sends no type, keeps the file as the JSON says."""
    from click.testing import CliRunner

    from plistspec.cli import main
    from support import elisp_deps_preamble

    tool = dict(
        TOOL,
        inputSchema={
            "type": "object",
            "properties": {
                "value": {"description": "The new value"},
                "opts": {"properties": {"deep": {"type": "boolean"}}},
                "rows": {"items": {"type": "integer"}},
                "mode": {"enum": ["a", "b"]},
            },
            "required": ["value"],
        },
    )
    for target in ("openai", None):
        path = tmp_path / f"tools{target or ''}.el"
        args = ["from-json", *(["-t", target] if target else []), "-d", "llm", "-"]
        r = CliRunner().invoke(main, [*args, "-o", str(path)], input=json.dumps(tool))
        assert r.exit_code == 0, r.output
        assert r.output.count('llm sends as "type": "nil"') == 4, r.output
        script = elisp_deps_preamble(elisp_deps_dir) + LLM_SERIALIZE.replace(
            "FILE", json.dumps(str(path))
        ).replace("tools-tools", f"{path.stem}-tools")
        props = json.loads(emacs.run(script))["properties"]
        assert props["value"] == {
            "type": "string",
            "description": "The new value (any JSON value, written as text)",
        }
        assert props["opts"]["type"] == "object" and props["rows"]["type"] == "array"
        assert props["mode"] == {"type": "string", "enum": ["a", "b"]}  # typed by its enum
        assert all(p.get("type") not in (None, "nil") for p in props.values())
    gptel = tmp_path / "gptel.el"
    r = CliRunner().invoke(main, ["from-json", "-", "-o", str(gptel)], input=json.dumps(tool))
    assert r.exit_code == 0 and 'llm sends as "type": "nil"' not in r.output
    r = CliRunner().invoke(main, ["to-json", str(gptel)])
    assert "type" not in json.loads(r.output)[0]["parameters"]["properties"]["value"]


HUGE = 18446744073709551615  # 2^64 - 1: an Emacs bignum


@pytest.mark.slow
def test_integers_past_64_bits_are_left_out_where_they_can_be(emacs, elisp_deps_dir) -> None:
    """A bound or default past 64 bits is a bignum in Emacs, which Emacs 28's
    json-serialize refuses: the real gptel then fails on the tool (Emacs 30 sends it). from-json leaves such bounds and defaults out with PS528, and the real libraries
    send the file it writes on this Emacs; an enum keeps its value (the contract)."""
    from click.testing import CliRunner

    from plistspec.cli import main
    from real_tool_json import FAMILIES, emacs_major, run_pairs

    tool = dict(
        TOOL,
        inputSchema={
            "type": "object",
            "properties": {
                "n": {"type": "integer", "default": HUGE, "maximum": HUGE, "description": "N"},
                "m": {"anyOf": [{"type": "integer", "minimum": -HUGE}, {"type": "string"}]},
            },
        },
    )
    forms = {}
    for dialect in ("gptel", "llm"):
        args = ["from-json", "--forms-only", "-d", dialect, "-"]
        r = CliRunner().invoke(main, args, input=json.dumps(tool))
        assert r.exit_code == 0, r.output
        assert "left out: /properties/n: default, /properties/n: maximum, " in r.output
        assert "/properties/m/anyOf/0: minimum [PS528]" in r.output
        assert str(HUGE) not in r.stdout
        forms[dialect] = r.stdout.split("\n;;")[0].strip()
    untouched = forms["gptel"].replace(':description "N"', f':maximum {HUGE} :description "N"')
    assert untouched != forms["gptel"]
    (written, before) = run_pairs(
        [(forms["gptel"], forms["llm"]), (untouched, untouched.replace("gptel-", "llm-"))],
        elisp_deps_dir,
        emacs.exe,
    )
    for family in FAMILIES:
        assert "json" in written[family], (family, written[family])
    # what the warning says of the value it left out, on this Emacs: gptel sends bounds
    # (llm leaves them out anyway)
    for family in ("openai", "anthropic"):
        refused = "error" in before[family]
        assert refused == (emacs_major(emacs.exe) < 30), (family, before[family])


def test_the_schema_true_is_any_value_and_typed_under_llm() -> None:
    """``"value": true`` (JSON Schema's any value, as ``{}``) gets the same type as
    ``{}`` under llm, not an arg without ``:type`` that llm sends as ``"type": "nil"``."""
    from click.testing import CliRunner

    from plistspec.cli import main

    tool = dict(TOOL, inputSchema={"type": "object", "properties": {"value": True}})
    r = CliRunner().invoke(main, ["from-json", "-d", "llm", "-"], input=json.dumps(tool))
    assert r.exit_code == 0, r.output
    assert "typed string (it had none: any value)" in r.stderr
    assert 'no :type; llm sends "type": "nil"' not in r.stderr
    assert ":type string" in r.stdout


def test_integers_past_64_bits_are_found_at_any_depth_without_recursion() -> None:
    """The walk that leaves them out is iterative (schemas reach 10 000 levels: PS527),
    copies only the way to a change, and leaves the input as it was."""
    from plistspec.emit_elisp.unwritable import drop_huge_integers

    leaf: dict = {"type": "integer", "maximum": HUGE, "enum": [HUGE]}
    schema: dict = leaf
    for _ in range(5000):
        schema = {"type": "object", "properties": {"x": schema}, "anyOf": [{"type": "object"}]}
    tool = {"name": "t", "description": "d", "parameters": schema}
    (out,), (diag,) = drop_huge_integers([tool])
    node = out["parameters"]
    for _ in range(5000):
        assert node["anyOf"] is schema["anyOf"] or node["anyOf"] == [{"type": "object"}]
        node = node["properties"]["x"]
    assert node == {"type": "integer", "enum": [HUGE]}  # the bound out, the enum kept
    assert leaf["maximum"] == HUGE  # the input untouched
    assert diag.code == "PS528" and "/x: maximum" in diag.message and "enum" in diag.message
    assert drop_huge_integers([{"name": "u", "parameters": {"type": "object"}}])[1] == []
