"""Lowering's short cuts that must read as what they replace. Diagnostics of ``--lower``
whose message is written when first read
(:meth:`plistspec.core.diagnostics.Diagnostic.rewrite_at`) against the eager ones: every
attribute, ``render``, ``to_json``, ``repr``, a copy and a pickle read the same, and
``lower_tools``' diagnostics say what ``lower_tools_detailed``'s records say, for every
fixture tool and target; ``resolve_pointer``'s short cut for ``#/$defs/Name`` answers
as a slow reference walk (RFC 6901) written here."""

from __future__ import annotations

import copy
import pickle
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

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


def _walk(root, ref):
    """RFC 6901 in a fragment, slowly: what ``resolve_pointer`` must answer."""
    from urllib.parse import unquote

    if ref == "#":
        return True, root
    if not ref.startswith("#/"):
        return False, None
    cur = root
    for raw in ref[2:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return False, None
    return True, cur


def _as_walk(root, ref) -> None:
    from plistspec.core.jsonutil import resolve_pointer

    found, value = resolve_pointer(root, ref)
    want_found, want = _walk(root, ref)
    assert found is want_found
    assert value is want


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
def test_resolve_pointer_short_cut_answers_as_the_walk(ref, root) -> None:
    """The short cut for ``#/$defs/Name`` the walk's references take (in
    :func:`plistspec.core.jsonutil.resolve_pointer`) answers as the general walk: found
    or not, and the very value."""
    _as_walk(root, ref)


_NAMES = st.text(alphabet="Xab0/~1%2 ", max_size=4)
_ROOTS = st.one_of(
    st.dictionaries(
        st.sampled_from(["$defs", "definitions", "X"]),
        st.one_of(
            st.dictionaries(_NAMES, st.one_of(st.integers(), st.dictionaries(_NAMES, st.none()))),
            st.lists(st.integers(), max_size=3),
            st.none(),
        ),
    ),
    st.lists(st.none(), max_size=2),
)


@given(
    ref=st.tuples(
        st.sampled_from(["#/$defs/", "#/definitions/", "#/", "#", "x#/$defs/"]), _NAMES
    ).map("".join),
    root=_ROOTS,
)
def test_resolve_pointer_short_cut_property(ref, root) -> None:
    """Generated refs (names with ``/``, ``~``, ``%`` escapes, indexes) and roots."""
    _as_walk(root, ref)
