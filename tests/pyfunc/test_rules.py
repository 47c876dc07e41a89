"""python-schema.md §2-§7 beyond the visible cases: one check per row, errors included."""

from __future__ import annotations

import importlib
import itertools
import json
import sys
import textwrap

import pytest

from plistspec.pyfunc import from_python, schema_for
from plistspec.pyfunc.errors import PyFuncError

_counter = itertools.count()


def load(tmp_path, source: str):
    name = f"rules_mod_{next(_counter)}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def props(tmp_path, source: str) -> dict:
    return schema_for(load(tmp_path, source).target)[2]["properties"]


ROWS = [
    (
        "from datetime import datetime, date, time, timedelta\n"
        "def target(a: datetime, b: date, c: time, d: timedelta): ...",
        {
            "a": {"type": "string", "format": "date-time"},
            "b": {"type": "string", "format": "date"},
            "c": {"type": "string", "format": "time"},
            "d": {"type": "string", "format": "duration"},
        },
    ),
    (
        "from uuid import UUID\nfrom pathlib import Path\nfrom decimal import Decimal\n"
        "def target(u: UUID, p: Path, d: Decimal, b: bytes): ...",
        {
            "u": {"type": "string", "format": "uuid"},
            "p": {"type": "string", "format": "path"},
            "d": {"anyOf": [{"type": "number"}, {"type": "string"}]},
            "b": {"type": "string", "format": "binary"},
        },
    ),
    (
        "from typing import Union\ndef target(a: Union[int, float, str, None]): ...",
        {
            "a": {
                "anyOf": [
                    {"type": "integer"},
                    {"type": "number"},
                    {"type": "string"},
                    {"type": "null"},
                ]
            }
        },
    ),
    (
        "from typing import Optional, Literal\ndef target(a: Optional[Literal['x', 'y']]): ...",
        {"a": {"anyOf": [{"type": "string", "enum": ["x", "y"]}, {"type": "null"}]}},
    ),
    (
        "from typing import Literal\ndef target(a: Literal['x'], b: Literal[1, 'a'], c: Literal[True]): ...",
        {
            "a": {"type": "string", "enum": ["x"]},
            "b": {"enum": [1, "a"]},
            "c": {"type": "boolean", "enum": [True]},
        },
    ),
    (
        "from enum import IntEnum\nclass P(IntEnum):\n    LOW = 1\n    HIGH = 2\n"
        "def target(p: P = P.HIGH): ...",
        {"p": {"type": "integer", "enum": [1, 2], "default": 2}},
    ),
    (
        "def target(t: tuple[int, ...], b: list, d: dict, s: frozenset): ...",
        {
            "t": {"type": "array", "items": {"type": "integer"}},
            "b": {"type": "array", "items": {}},
            "d": {"type": "object", "additionalProperties": True},
            "s": {"type": "array", "items": {}, "uniqueItems": True},
        },
    ),
    (
        "from typing import NamedTuple\nclass Pt(NamedTuple):\n    x: int\n    y: float\n"
        "def target(p: Pt): ...",
        {
            "p": {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "number"}],
                "minItems": 2,
                "maxItems": 2,
            }
        },
    ),
    (
        "from dataclasses import dataclass, field\n@dataclass\nclass D:\n    a: int\n"
        "    b: list[int] = field(default_factory=list)\n    c: str = 'z'\n"
        "def target(d: D): ...",
        {
            "d": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "b": {"type": "array", "items": {"type": "integer"}},
                    "c": {"type": "string", "default": "z"},
                },
                "required": ["a"],
            }
        },
    ),
    (
        "from __future__ import annotations\nfrom typing import TypedDict, NotRequired, Required\n"
        "class T(TypedDict, total=False):\n    a: Required[int]\n    b: str\n"
        "class U(TypedDict):\n    c: int\n    d: NotRequired[int]\n"
        "def target(t: T, u: U): ...",
        {
            "t": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "string"}},
                "required": ["a"],
            },
            "u": {
                "type": "object",
                "properties": {"c": {"type": "integer"}, "d": {"type": "integer"}},
                "required": ["c"],
            },
        },
    ),
    (
        "from typing import Annotated\nimport annotated_types as at\n"
        "def target(x: Annotated[int, at.Gt(0), at.Le(9)], l: Annotated[list[int], at.Len(1, 3)],"
        " s: Annotated[str, 'A name'], m: Annotated[float, at.MultipleOf(0.5)]): ...",
        {
            "x": {"type": "integer", "exclusiveMinimum": 0, "maximum": 9},
            "l": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
            "s": {"type": "string", "description": "A name"},
            "m": {"type": "number", "multipleOf": 0.5},
        },
    ),
    (
        "from typing import Annotated\nfrom typing_extensions import Doc\n"
        "def target(x: Annotated[int, Doc('from Doc')],  # from comment\n): ...",
        {"x": {"type": "integer", "description": "from Doc"}},
    ),
    (
        "from pydantic import Field\n"
        "def target(n: int = Field(5, description='count', ge=1), m: list[int] = Field(default_factory=list)): ...",
        {
            "n": {"type": "integer", "minimum": 1, "description": "count", "default": 5},
            "m": {"type": "array", "items": {"type": "integer"}},
        },
    ),
    (
        "from enum import Enum\nclass C(Enum):\n    '''Own doc.'''\n    R = 'r'\n"
        "def target(c: C = C.R,  # the colour\n): ...",
        {"c": {"type": "string", "enum": ["r"], "description": "the colour", "default": "r"}},
    ),
    (
        "from enum import Enum\nclass C(Enum):\n    R = 'r'\ndef target(c: C): ...",
        {"c": {"type": "string", "enum": ["r"]}},
    ),
    (
        "def target(cls, a: int, *, b: int = 1, **kw: str): ...",
        {"a": {"type": "integer"}, "b": {"type": "integer", "default": 1}},
    ),
    (
        "def target(x=3, *rest: int): ...",
        {"x": {"default": 3}, "rest": {"type": "array", "items": {"type": "integer"}}},
    ),
    (
        "def target(a: int, b: str):\n    '''Sphinx.\n\n    :param a: The a.\n    :param b: The b.\n    '''",
        {
            "a": {"type": "integer", "description": "The a."},
            "b": {"type": "string", "description": "The b."},
        },
    ),
    (
        "def target(a: int):\n    '''Numpy.\n\n    Parameters\n    ----------\n    a : int\n        The a,\n        wrapped.\n    '''",
        {"a": {"type": "integer", "description": "The a, wrapped."}},
    ),
    (
        "def target(a: int, b: int):\n    '''Bullets.\n\n    - a: first\n    - b: second\n    '''",
        {
            "a": {"type": "integer", "description": "first"},
            "b": {"type": "integer", "description": "second"},
        },
    ),
]


@pytest.mark.parametrize("source,expected", ROWS, ids=[f"row{i}" for i in range(len(ROWS))])
def test_rows(tmp_path, source, expected):
    assert props(tmp_path, source) == expected


def test_kwargs_and_args_root(tmp_path):
    p = schema_for(load(tmp_path, "def target(a: int, *args, **kw): ...").target)[2]
    assert p["additionalProperties"] is True and p["required"] == ["a"]
    assert "args" not in p["required"]


def test_async_def_same_schema(tmp_path):
    m = load(
        tmp_path,
        "async def target(a: int, b: str = 'x'):\n    '''Async.'''\n"
        "def sync(a: int, b: str = 'x'):\n    '''Async.'''\n",
    )
    assert schema_for(m.target)[1:] == schema_for(m.sync)[1:]


def test_descriptions_strip_sections(tmp_path):
    m = load(
        tmp_path,
        "def target(a: int):\n    '''Sum.\n\n    Body one.\n\n\n    Body two.\n\n"
        "    Args:\n        a: x\n\n    Raises:\n        ValueError: never\n    '''",
    )
    assert schema_for(m.target)[1] == "Sum.\n\nBody one.\n\nBody two."


def test_dataclass_and_namedtuple_docs_not_invented(tmp_path):
    m = load(
        tmp_path,
        "from dataclasses import dataclass\nfrom typing import NamedTuple\n"
        "@dataclass\nclass D:\n    a: int\nclass N(NamedTuple):\n    x: int\n"
        "def target(d: D, n: N): ...",
    )
    ps = schema_for(m.target)[2]["properties"]
    assert "description" not in ps["d"] and "description" not in ps["n"]
    assert schema_for(m.D) == (
        "D",
        "",
        {
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "required": ["a"],
            "additionalProperties": False,
        },
    )


def test_pydantic_model_root_open_unless_forbid(tmp_path):
    m = load(
        tmp_path,
        "from pydantic import BaseModel, ConfigDict\n"
        "class Open(BaseModel):\n    '''Open.'''\n    a: int\n"
        "class Closed(BaseModel):\n    model_config = ConfigDict(extra='forbid')\n    a: int\n",
    )
    assert schema_for(m.Open) == (
        "Open",
        "Open.",
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
    )
    assert schema_for(m.Closed)[2]["additionalProperties"] is False


ERRORS = [
    (
        "from typing import Callable\ndef target(cb: Callable[[int], int]): ...",
        "PS606",
        ["target()", "'cb'", "Callable"],
    ),
    (
        "from typing import Iterator\ndef target(it: Iterator[int]): ...",
        "PS606",
        ["'it'", "Iterator"],
    ),
    ("from typing import IO\ndef target(fh: IO[str]): ...", "PS606", ["'fh'", "IO"]),
    ("class Plain: pass\ndef target(when: Plain): ...", "PS606", ["'when'", "Plain", "dataclass"]),
    ("def target(t: type[int]): ...", "PS606", ["'t'", "type[int]"]),
    (
        "from typing import TypeVar\nT = TypeVar('T')\ndef target(x: T): ...",
        "PS606",
        ["'x'", "'T'"],
    ),
    ("def target(k: dict[int, str]): ...", "PS607", ["'k'", "not str"]),
    ("def target(x: 'Missing'): ...", "PS605", ["'x'", "Missing"]),
    ("def target(x: list['Nope']): ...", "PS605", ["'x'", "Nope"]),
    ("def target(x: int = object()): ...", "PS608", ["'x'", "JSON"]),
    ("def target(x: float = float('nan')): ...", "PS608", ["'x'"]),
    ("from typing import Literal\ndef target(x: Literal[b'x']): ...", "PS609", ["'x'", "b'x'"]),
    (
        "from enum import Enum\nclass E(Enum):\n    A = (1, 2)\ndef target(e: E): ...",
        "PS609",
        ["'e'", "E"],
    ),
    (
        "from dataclasses import dataclass\n@dataclass\nclass D:\n    f: 'Gone'\ndef target(d: D): ...",
        "PS605",
        ["Gone"],
    ),
]


@pytest.mark.parametrize("source,code,words", ERRORS, ids=[f"err{i}" for i in range(len(ERRORS))])
def test_errors_name_function_and_parameter(tmp_path, source, code, words):
    with pytest.raises(PyFuncError) as info:
        schema_for(load(tmp_path, source).target)
    assert info.value.code == code
    for w in words:
        assert w in info.value.message


def test_lambda_without_name(tmp_path):
    with pytest.raises(PyFuncError) as info:
        schema_for(lambda x: x)
    assert info.value.code == "PS604"


def test_warnings_any_and_docstring(tmp_path):
    m = load(
        tmp_path,
        "from typing import Any\ndef target(a, b: Any):\n    '''X.\n\n    Args:\n        zz: gone\n    '''",
    )
    tools, diags = from_python(f"{m.__name__}:target", cwd=str(tmp_path))
    codes = sorted(d.code for d in diags)
    assert codes == ["PS610", "PS610", "PS611"] and tools
    tools, diags = from_python(f"{m.__name__}:target", cwd=str(tmp_path), strict_types=True)
    assert not tools and [d.code for d in diags] == ["PS610"]


def test_import_error_is_the_modules(tmp_path):
    (tmp_path / "broken_mod.py").write_text("x = 1\nraise RuntimeError('boom at import')\n")
    tools, diags = from_python("broken_mod:f", cwd=str(tmp_path))
    assert not tools and diags[0].code == "PS602"
    msg = diags[0].message
    assert "error in broken_mod, not in plistspec" in msg and 'broken_mod.py", line 2' in msg
    assert "RuntimeError: boom at import" in msg and "plistspec/" not in msg.split("Traceback")[1]


def test_missing_module_and_attribute(tmp_path):
    _, diags = from_python("no_such_mod_xyz:f", cwd=str(tmp_path))
    assert diags[0].code == "PS601" and "Traceback" not in diags[0].message
    (tmp_path / "ok_mod.py").write_text("def f(a: int):\n    '''F.'''\n")
    _, diags = from_python("ok_mod:g", cwd=str(tmp_path))
    assert diags[0].code == "PS603" and "'g'" in diags[0].message


def test_path_target_and_module_target(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "pathmod.py").write_text(
        "__all__ = ['b', 'a']\ndef a(x: int):\n    '''A.'''\ndef b():\n    '''B.'''\ndef _c(): ...\n"
    )
    tools, diags = from_python("sub/pathmod.py", cwd=str(tmp_path))
    assert [t["name"] for t in tools] == ["b", "a"] and not diags
    target = tools[1]["metadata"]["python"]["target"]
    # relative to the directory the bridge imports from: the modules move with the file
    assert target == "sub/pathmod.py:a"
    assert ':target "sub/pathmod.py:a"' in tools[1]["metadata"]["function"]
    assert str(tmp_path) not in tools[1]["metadata"]["function"]
    json.dumps(tools)  # the IR is JSON
