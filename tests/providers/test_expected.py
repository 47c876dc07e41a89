"""Every file of ``expected/``: plistspec's output (read → extract → lower → emit → dumps)
equals it byte for byte, for every format it exists for."""

from __future__ import annotations

import json

import pytest

from plistspec.core.jsonout import dumps
from plistspec.elisp.reader import read_all
from plistspec.emit_json import emit
from plistspec.extract import find_tools
from plistspec.replay import lower
from support import EXPECTED, FIXTURES, GRAMMARS

CASES = []
for path in sorted(EXPECTED.glob("*.json")):
    stem, backend = path.name[: -len(".json")].split(".", 1)
    dialect = "llm" if backend.startswith("llm-") else "gptel"
    fmt = backend[4:] if dialect == "llm" else backend
    CASES.append(pytest.param(stem, dialect, fmt, path, id=path.name))


def _tools(stem: str, dialect: str) -> list:
    text = (FIXTURES / f"{stem}.el").read_text(encoding="utf-8")
    forms, diags = find_tools(read_all(text), text)
    assert not diags
    tools = []
    for form in forms:
        tool, more = lower(form, dialect, f"{stem}.el")
        assert more == []
        tools.append(tool)
    return tools


def test_expected_cases_exist() -> None:
    assert len(CASES) == 30


@pytest.mark.parametrize("stem,dialect,fmt,path", CASES)
def test_expected(stem: str, dialect: str, fmt: str, path) -> None:
    value, diags = emit(_tools(stem, dialect), fmt)
    assert diags == []
    assert dumps(value) == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("stem", ["get_weather", "record_summary", "llm_get_weather"])
@pytest.mark.parametrize("dialect", ["gptel", "llm"])
def test_ir_validates_against_schema(stem: str, dialect: str) -> None:
    import jsonschema

    schema = json.loads((GRAMMARS / "ir.schema.json").read_text(encoding="utf-8"))
    value, diags = emit(_tools(stem, dialect), "ir")
    assert diags == []
    jsonschema.validate(value, schema, cls=jsonschema.Draft202012Validator)
    for fmt in ("mcp",):
        out, _ = emit(_tools(stem, dialect), fmt)
        assert out[0]["inputSchema"] == value[0]["parameters"]
