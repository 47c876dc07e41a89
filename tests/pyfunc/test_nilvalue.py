"""What an Elisp nil stands for, per argument and library (pyfunc/nilvalue.py), and call's
reading of it (convert.repair): the two halves of the bridge decide alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from plistspec.pyfunc.build import build
from plistspec.pyfunc.convert import repair
from plistspec.pyfunc.nilvalue import ABSENT, decisions, nested_ambiguities


def flag(flag: bool = True) -> str:
    return ""


def flag_false(flag: bool = False) -> str:
    return ""


def opt(x: int | None = 5) -> str:
    return ""


def opt_none(x: int | None = None) -> str:
    return ""


def req_opt(x: str | None) -> str:
    return ""


def opt_bool(b: bool | None = None) -> str:
    return ""


def opt_dict(d: dict[str, int] | None = None) -> str:
    return ""


def plain(name: str, n: int = 1, on: bool = False, m: dict[str, int] | None = None) -> str:
    return ""


def anything(x: Any) -> str:
    return ""


def _d(fn, dialect):
    return decisions(build(fn, fn.__name__).parameters, dialect)


@pytest.mark.parametrize(
    "fn,arg,dialect,optional,value,lossy",
    [
        (flag, "flag", "gptel", True, ABSENT, []),  # gptel's false is :json-false
        (flag, "flag", "llm", False, False, []),  # llm's false is nil: required (PS614)
        (flag_false, "flag", "llm", True, ABSENT, []),  # nil and the default agree
        (opt, "x", "gptel", False, None, []),  # null vs default 5: required
        (opt, "x", "llm", False, None, []),
        (opt_none, "x", "gptel", True, ABSENT, []),
        (req_opt, "x", "gptel", True, None, []),  # Python-required but nullable: optional
        (opt_bool, "b", "llm", False, False, ["null"]),  # PS615
        (opt_bool, "b", "gptel", True, ABSENT, []),
        (opt_dict, "d", "gptel", False, None, ["{}"]),
        (opt_dict, "d", "llm", False, {}, ["null"]),
        (plain, "name", "llm", False, ABSENT, []),  # nil = left out: validation says so
        (plain, "on", "gptel", True, ABSENT, []),
        (anything, "x", "gptel", False, None, []),  # Any: PS610 already warns
    ],
)
def test_decisions(fn, arg, dialect, optional, value, lossy):
    d = _d(fn, dialect)[arg]
    assert (d.optional, d.value, d.lossy) == (optional, value, lossy)


@pytest.mark.parametrize(
    "fn,dialect,sent,got",
    [
        (flag, "llm", {"flag": {}}, {"flag": False}),
        (flag, "gptel", {"flag": {}}, {}),
        (flag, "gptel", {}, {}),
        (opt, "gptel", {"x": {}}, {"x": None}),
        (opt, "gptel", {"x": None}, {"x": None}),
        (plain, "gptel", {"name": "a", "n": None, "on": {}, "m": {}}, {"name": "a", "m": None}),
        (plain, "llm", {"name": "a", "n": {}, "on": {}, "m": {}}, {"name": "a", "m": {}}),
    ],
)
def test_repair_reads_nil_as_decided(fn, dialect, sent, got):
    assert repair(dict(sent), build(fn, fn.__name__).parameters, dialect) == got


@dataclass
class Node:
    name: str
    on: bool | None = None
    kids: list[Node] | None = None


def tree(node: Node) -> str:
    return ""


def test_nested_ambiguities_are_found_once_even_in_recursive_types():
    params = build(tree, "tree").parameters
    assert nested_ambiguities(params, "llm") == [
        ("node.on", ["false", "null"]),
        ("node.kids[].on", ["false", "null"]),
    ]
    assert nested_ambiguities(params, "gptel") == []
