"""from-json's limits hold without a traceback: JSON nested up to 10 000 levels is read and
one level more is PS527, lone surrogates and malformed JSON are errors at FILE:LINE:COL,
and $ref expansion is bounded."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from plistspec.core.jsontext import MAX_DEPTH, JsonError, brief, load_json
from plistspec.elisp.reader import read_all
from plistspec.fromjson.refs import MAX_NODES


def _cli(*args: str, stdin: str | None = None):
    from click.testing import CliRunner

    from plistspec.cli import main

    return CliRunner().invoke(main, list(args), input=stdin)


def _mcp(schema: dict, **more) -> dict:
    return {"name": "t", "description": "d", "inputSchema": schema, **more}


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["gptel", "llm"])
def test_depth_up_to_the_limit_is_written_and_one_more_level_refused(dialect: str) -> None:
    """JSON nested up to MAX_DEPTH (10 000, Emacs 30's json-parse-string limit) levels is
    read and written at every level; one level more is PS527 at the bracket that opens
    it, nothing written (this test accepted 20 000 levels before the limit: issue 31)."""
    # the tool object, inputSchema, properties and x's own object are 4 levels
    n = MAX_DEPTH - 4
    items = '{"type":"array","items":' * n + '{"type":"string"}' + "}" * n
    text = (
        '{"name":"t","description":"d","annotations":'
        + "[" * (MAX_DEPTH - 1)
        + "]" * (MAX_DEPTH - 1)
        + ',"inputSchema":{"type":"object","properties":{"x":'
        + items
        + "}}}"
    )
    r = _cli("from-json", "-d", dialect, "-", stdin=text)
    assert r.exit_code == 0, r.output[-500:]
    assert "Traceback" not in r.output
    assert r.stdout.count("items") >= n  # every level written
    ir = (
        '{"type":"function","name":'
        + "[" * (MAX_DEPTH - 1)
        + "]" * (MAX_DEPTH - 1)
        + ',"description":"d","metadata":{}}'
    )
    r = _cli("from-json", "-d", dialect, "-", stdin=ir)
    assert r.exit_code == 0 and "Traceback" not in r.output
    deeper = text.replace('"items":{"type":"string"}', '"items":{"items":{"type":"string"}}')
    r = _cli("from-json", "-d", dialect, "-", stdin=deeper)
    col = deeper.index('{"type":"string"}') + 1  # now level MAX_DEPTH + 1
    assert r.exit_code == 1 and r.stdout == "", r.output[-500:]
    assert r.stderr.startswith(f"<stdin>:1:{col}: error: JSON nested more than 10000 levels")
    assert r.stderr.rstrip().endswith("[PS527]") and "Traceback" not in r.stderr


def test_the_iterative_parser_agrees_with_json() -> None:
    samples = [
        '{"a": [1, 2.5, -3e2, true, false, null, "x\\u00e9\\ud83d\\ude00"], "b": {}, "c": []}',
        '[{"k": 1, "k": 2}]',
        '  "s"  ',
        "0",
    ]
    from plistspec.core import jsontext

    for s in samples:
        dups: list[str] = []
        assert jsontext._parse(s, dups) == (json.loads(s), len(s))
        assert jsontext.decode_at(" " + s + " x", 1 + len(s) - len(s.lstrip())) == (
            json.loads(s),
            1 + len(s.rstrip()),
        )
    v, _ = load_json("[" * 5000 + "{}" + "]" * 5000)
    for _ in range(5000):
        assert type(v) is list and len(v) == 1
        v = v[0]
    assert v == {}
    for bad, pos in (('{"a": 1,}', 8), ("[1 2]", 3), ("[NaN]", 1), ('{"a" 1}', 5), ("[1]x", 3)):
        with pytest.raises(JsonError) as e:
            jsontext._parse(bad, [])
        assert e.value.pos == pos, bad
    assert load_json('{"k": 1, "k": 2}') == ({"k": 2}, ["k"])
    assert len(brief(list(range(1000)))) < 100 and brief("é", ascii=False) == '"é"'


def test_deep_invalid_json_and_long_integers_are_positioned_errors() -> None:
    n = 5000
    r = _cli("from-json", "-", stdin="[" * n + "1," + "]" * n)
    assert r.exit_code == 1 and r.stderr.startswith(f"<stdin>:1:{n + 3}: error: invalid JSON")
    r = _cli("from-json", "-", stdin='{"name": "t",\n "x": ' + "9" * 5000 + "}")
    assert r.exit_code == 1 and r.stderr.startswith("<stdin>:2:7: error: invalid JSON")
    assert "Traceback" not in r.output


@pytest.mark.parametrize("where", ["name", "description", "key", "enum"])
@pytest.mark.parametrize("escape", ["\\ud800", "\\udc80", "\\udfff"])
def test_lone_surrogates_are_errors_at_their_place(where: str, escape: str) -> None:
    tool = {"x": {"type": "string"}}
    text = json.dumps(_mcp({"type": "object", "properties": tool}))
    text = {
        "name": text.replace('"t"', f'"a{escape}"'),
        "description": text.replace('"d"', f'"{escape}"'),
        "key": text.replace('"x"', f'"k{escape}"'),
        "enum": text.replace('"string"}', f'"string", "enum": ["{escape}"]}}'),
    }[where]
    assert escape in text
    r = _cli("from-json", "-", stdin=text)
    assert r.exit_code == 1 and r.stdout == ""
    assert "PS518" in r.stderr and "Traceback" not in r.output
    assert r.stderr.startswith("<stdin>:1:")
    # a surrogate pair is a character, not an error
    r = _cli("from-json", "-", stdin=text.replace(escape, "\\ud83d\\ude00"))
    assert r.exit_code == 0 and "\U0001f600" in r.stdout


def _laughs(levels: int) -> dict:
    defs: dict = {"L0": {"type": "string"}}
    for i in range(1, levels + 1):
        ref = {"$ref": f"#/$defs/L{i - 1}"}
        defs[f"L{i}"] = {"type": "object", "properties": {"a": ref, "b": dict(ref)}}
    return _mcp(
        {"type": "object", "$defs": defs, "properties": {"x": {"$ref": f"#/$defs/L{levels}"}}}
    )


def test_ref_expansion_is_bounded_and_named(tmp_path: Path) -> None:
    src = tmp_path / "laughs.json"
    src.write_text(json.dumps(_laughs(40)), encoding="utf-8")
    start = time.monotonic()
    r = _cli("from-json", str(src), "-o", str(tmp_path / "out.el"))
    assert time.monotonic() - start < 30  # generous: the walk is linear, this takes ~0.1 s
    assert r.exit_code == 1 and "PS519" in r.stderr and str(MAX_NODES) in r.stderr
    assert "$defs/L" in r.stderr and r.stderr.startswith(f"{src}:1:")
    assert not (tmp_path / "out.el").exists()


def test_shared_definitions_below_the_limit_are_written_in_full() -> None:
    r = _cli("from-json", "-", stdin=json.dumps(_laughs(10)))
    assert r.exit_code == 0, r.stderr
    (form,) = [f for f in read_all(r.stdout) if f.items[0].name == "gptel-make-tool"]
    assert r.stdout.count(":type string") == 2**10  # every use of L0, at every level


def test_every_warning_of_a_big_file_is_placed() -> None:
    """One scan places all diagnostics (it used to be one scan per diagnostic)."""
    tools = [
        {"name": f"t{i}", "description": "A.", "icons": [], "inputSchema": {"type": "object"}}
        for i in range(300)
    ]
    text = json.dumps({"tools": tools}, indent=1)
    r = _cli("from-json", "-", stdin=text)
    lines = [ln for ln in r.stderr.splitlines() if "PS503" in ln]
    assert len(lines) == 300
    for i, ln in enumerate(lines):
        line = int(ln.split(":")[1])
        assert text.splitlines()[line - 1].strip() == "{"  # the tool object's own line
        assert f"'t{i}'" in ln


def test_pointer_spans_agree_with_the_json() -> None:
    from plistspec.core.jsonpos import pointer_spans

    text = '{"a": {}, "b": {"c": [ ]}, "d" : [ {} , { "e" : null, "e": "x,}" } ], "f~/": 1}'
    value = json.loads(text)
    ptrs = ["", "/a", "/b/c", "/d/0", "/d/1", "/d/1/e", "/f~0~1", "/d/7", "/b/c/0/x"]
    spans = pointer_spans(text, ptrs)
    for p in ptrs[:7]:
        node = value
        for part in p.split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        start, end = spans[p]
        assert json.loads(text[start:end]) == node, p
    assert spans["/d/7"] == pointer_spans(text, ["/d"])["/d"]  # the deepest existing prefix
    assert spans["/b/c/0/x"] == spans["/b/c"]


@pytest.mark.slow
def test_long_ref_chains_and_their_cycles() -> None:
    n = 5000
    defs: dict = {"L0": {"type": "string"}}
    for i in range(1, n + 1):
        defs[f"L{i}"] = {"type": "array", "items": {"$ref": f"#/$defs/L{i - 1}"}}
    schema = {"type": "object", "$defs": defs, "properties": {"x": {"$ref": f"#/$defs/L{n}"}}}
    r = _cli("from-json", "-", stdin=json.dumps(_mcp(schema)))
    assert r.exit_code == 0 and r.stdout.count(":items") == n
    defs["L0"] = {"$ref": f"#/$defs/L{n}"}  # now a cycle through every definition
    r = _cli("from-json", "-", stdin=json.dumps(_mcp(schema)))
    assert r.exit_code == 1 and "PS510" in r.stderr and r.stderr.startswith("<stdin>:1:")
    assert f"#/$defs/L{n} → #/$defs/L{n - 1}" in r.stderr and "more …" in r.stderr
    assert len(r.stderr) < 1000  # the cycle is named, not listed in full


_SHAPES = {
    "properties": lambda d: {"type": "object", "properties": {"p": d}},
    "items": lambda d: {"type": "array", "items": d},
    "anyOf": lambda d: {"anyOf": [d, {"type": "null"}]},
}


@pytest.mark.slow
@pytest.mark.parametrize("shape", list(_SHAPES))
@pytest.mark.parametrize("dialect", ["gptel", "llm"])
def test_a_spec_too_deep_for_the_libraries_is_said_as_check_says_it(
    shape: str, dialect: str
) -> None:
    """from-json warns PS204 exactly when `check` of the written file reports PS204 (the
    libraries' recursive conversion may fail past lower.MAX_DEPTH levels), around the
    boundary and far past it; the file is still written."""
    from plistspec.checking.checker import check_text
    from plistspec.emit_elisp import to_elisp
    from plistspec.fromjson.detect import from_json
    from plistspec.replay import MAX_DEPTH

    agree = {True: 0, False: 0}
    for n in [
        10,
        *range(MAX_DEPTH // 2 - 4, MAX_DEPTH // 2 + 4),
        *range(MAX_DEPTH - 4, MAX_DEPTH + 4),
        400,
    ]:
        d: dict = {"type": "string"}
        for _ in range(n):
            d = _SHAPES[shape](d)
        tools, _ = from_json({"tools": [_mcp({"type": "object", "properties": {"top": d}})]})
        text, diags = to_elisp(tools, dialect)
        warned = any(x.code == "PS204" and x.severity == "warning" for x in diags)
        checked = any(x.code == "PS204" for x in check_text(text))
        assert warned == checked, (shape, dialect, n)
        agree[warned] += 1
    # llm drops anyOf at the arg level: nothing deep is written, nothing said
    assert agree[False] > 0 and (agree[True] > 0 or (shape, dialect) == ("anyOf", "llm"))


def test_from_json_writes_a_deep_spec_with_a_placed_warning(tmp_path: Path) -> None:
    n = 3000
    schema = '{"type": "object", "properties": {"p": ' * n + '{"type": "string"}' + "}}" * n
    f = tmp_path / "deep.json"
    f.write_text(
        '{"tools": [{"name": "deep", "description": "D.", "inputSchema": ' + schema + "}]}"
    )
    r = _cli("from-json", str(f), "-o", str(tmp_path / "deep.el"))
    assert r.exit_code == 0, r.output
    assert f"{f}:1:12: warning: tool 'deep': its parameters nest more than" in r.stderr, r.stderr
    assert "[PS204]" in r.stderr and (tmp_path / "deep.el").exists()
