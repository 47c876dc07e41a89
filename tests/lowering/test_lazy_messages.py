"""Lowering's short cuts that must read as what they replace. Diagnostics of ``--lower``
whose message is written when first read
(:meth:`plistspec.core.diagnostics.Diagnostic.rewrite_at`) against the eager ones: every
attribute, ``render``, ``to_json``, ``repr``, a copy and a pickle read the same, and
``lower_tools``' diagnostics say what ``lower_tools_detailed``'s records say, for every
fixture tool and target; ``points_at`` (a kept reference's check) answers as
``resolve_pointer``."""

from __future__ import annotations

import copy
import pickle
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from _lowering_support import fixture_tools  # noqa: E402

from plistspec.core.diagnostics import Diagnostic  # noqa: E402
from plistspec.core.jsonutil import ROOT, Ptr  # noqa: E402
from plistspec.emit_json.target import sent_tools  # noqa: E402
from plistspec.lowering import TARGETS, lower_tools  # noqa: E402
from plistspec.lowering.tools import lower_tools_detailed  # noqa: E402

_ATTRS = Diagnostic.__slots__


def _same(lazy: Diagnostic, eager: Diagnostic) -> None:
    for a in _ATTRS:
        assert getattr(lazy, a) == getattr(eager, a), a
    assert lazy.render() == eager.render()
    assert lazy.to_json() == eager.to_json()
    assert repr(lazy) == repr(eager)


@pytest.mark.parametrize("effect", ["lossless", "widens+narrows", None])
def test_rewrite_at_reads_as_rewrite(effect) -> None:
    p = Ptr(Ptr(Ptr(ROOT, "properties"), "a/b~c"), 3)
    head = "openai-strict: tool 'x', /parameters"
    eager = Diagnostic.rewrite(
        "PS425", "warning", f"{head}{p}: some text" + (f" [{effect}]" if effect else ""), effect
    )
    for make in (
        lambda: Diagnostic.rewrite_at("PS425", "warning", head, p, "some text", effect),
        lambda: copy.copy(Diagnostic.rewrite_at("PS425", "warning", head, p, "some text", effect)),
        lambda: pickle.loads(
            pickle.dumps(Diagnostic.rewrite_at("PS425", "warning", head, p, "some text", effect))
        ),
    ):
        _same(make(), eager)
    d = Diagnostic.rewrite_at("PS425", "warning", head, p, "some text", effect)
    d.message = "set"  # (before it was read: the set message is the one read)
    assert d.message == "set" and d.render().endswith("set [PS425]")


@pytest.mark.parametrize("target", TARGETS)
def test_lower_tools_says_what_the_records_say(target) -> None:
    tools = sent_tools([copy.deepcopy(t) for _n, t in fixture_tools()], target)[0]
    _low, diags = lower_tools(tools, target)
    _low2, records = lower_tools_detailed(tools, target)
    assert len(diags) == len(records) and records
    for d, r in zip(diags, records, strict=True):
        name = r.name if isinstance(r.name, str) else f"#{r.tool + 1}"
        text = f"{target}: tool {name!r}, {r.pointer}: {r.message}"
        if r.effect:
            text += f" [{r.effect}]"
        _same(d, Diagnostic.rewrite(r.code, r.severity, text, r.effect))


@pytest.mark.parametrize(
    "ref",
    [
        "#/$defs/X",
        "#/$defs/Y",
        "#/$defs/",
        "#/$defs/a~1b",
        "#/$defs/a%20b",
        "#/$defs/0",
        "#/$defs/X/properties",
        "#/definitions/X",
        "#",
        "#X",
        "https://x/y",
    ],
)
@pytest.mark.parametrize(
    "root",
    [
        {"$defs": {"X": {}, "": 1, "a/b": 2, "a b": 3}},
        {"$defs": [1, 2]},
        {"$defs": None},
        {"definitions": {"X": {}}},
        {},
        [1],
    ],
)
def test_points_at_answers_as_resolve_pointer(ref, root) -> None:
    """The short cut for ``#/$defs/Name`` the walk's kept references take
    (:func:`plistspec.core.jsonutil.points_at`) answers as the general resolver."""
    from plistspec.core.jsonutil import points_at, resolve_pointer

    assert points_at(root, ref) is resolve_pointer(root, ref)[0]
