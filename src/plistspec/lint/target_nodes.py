"""Which plist each JSON schema node of a provider's parameters came from.

Owns: :class:`Node` (one JSON schema node of the parameters the emitter sends, paired
with the plist it was made from, or None when the library made it up) and the pairing
rules: a property of the root with its arg plist (:func:`arg_map`: gptel keeps the first
arg of a name, llm the last), a nested property with its value in ``:properties``, a
key with the first occurrence of that key in the plist. :func:`children` queues the
nested nodes of a node for the provider lints' walk (:mod:`plistspec.lint.targets`).
Where a finding points when the plist has no datum to offer: the plist's opening
parenthesis, up to its first key (:meth:`Node.opening`).
"""

from __future__ import annotations

from typing import Any

from plistspec.elisp.datum import Datum, List, String, Symbol, Vector
from plistspec.lint._util import key_name, plist_pairs

__all__ = ["Node", "arg_map", "children"]


class Node:
    """One JSON schema node and the plist it was made from (None when the library
    made it up); ``anchor`` is where to point when the plist has no datum to offer."""

    __slots__ = ("json", "plist", "anchor", "level", "children", "first")

    def __init__(self, json: Any, plist: Datum | None, anchor: Datum, level: str) -> None:
        self.json = json
        self.plist = plist if isinstance(plist, List) and plist.items else None
        self.anchor = anchor
        self.level = level  # "root", "arg" or "nested"
        self.children: dict[str, tuple[Datum, Datum]] | None = None
        self.first = _first(self.plist) if self.plist is not None else {}

    def key(self, name: str) -> tuple[Datum, Datum | None]:
        """``(datum, end)`` for the key ``name``: its symbol, else the plist's opening."""
        if name in self.first:
            return self.first[name][0], None
        return self.opening()

    def value(self, name: str) -> tuple[Datum, Datum | None]:
        if name in self.first:
            return self.first[name][1], None
        return self.opening()

    def opening(self) -> tuple[Datum, Datum | None]:
        if self.plist is not None:
            return self.plist, self.plist.items[0]
        return self.anchor, None


def arg_map(elements: list, llm_rules: bool) -> dict[str, tuple[Datum, Datum]]:
    """Property name -> (arg plist, its :name datum): gptel's first arg of a name, llm's last."""
    out: dict[str, tuple[Datum, Datum]] = {}
    for arg in elements:
        for k, v in plist_pairs(arg)[0]:
            if isinstance(k, Symbol) and k.name == ":name":
                if isinstance(v, String):
                    name = v.value if v.value or llm_rules else ":"
                elif isinstance(v, Symbol) and llm_rules:
                    name = v.name
                else:
                    break
                if llm_rules or name not in out:
                    out[name] = (arg, v)
                break
    return out


def _first(plist: Datum) -> dict[str, tuple[Symbol, Datum]]:
    first: dict[str, tuple[Symbol, Datum]] = {}
    for k, v in plist_pairs(plist)[0]:
        if isinstance(k, Symbol):
            name = key_name(k)
            if name is not None and name not in first:
                first[name] = (k, v)
    return first


def children(node: Node, work: list) -> list[tuple[str, Datum, Datum | None, Any]]:
    """Queue the nested schema nodes; return the properties as (name, key datum, schema)."""
    j = node.json
    for name in ("items", "not", "if", "then", "else", "contains", "additionalProperties"):
        sub = j.get(name)
        if isinstance(sub, dict):
            d = node.first.get(name)
            work.append(Node(sub, d[1] if d else None, d[0] if d else node.opening()[0], "nested"))
    for name in ("anyOf", "allOf", "oneOf", "prefixItems"):
        subs = j.get(name)
        if isinstance(subs, list):
            d = node.first.get(name)
            vec = d[1] if d is not None and isinstance(d[1], Vector) else None
            for i, sub in enumerate(subs):
                if isinstance(sub, dict):
                    src = vec.items[i] if vec is not None and i < len(vec.items) else None
                    work.append(Node(sub, src, d[0] if d else node.opening()[0], "nested"))
    props = j.get("properties")
    out: list[tuple[str, Datum, Datum | None, Any]] = []
    if not isinstance(props, dict):
        return out
    if node.level == "root":
        mapping = node.children or {}
        for pname, sub in props.items():
            arg, name_datum = mapping.get(pname, (None, None))
            anchor = name_datum if name_datum is not None else node.anchor
            out.append((pname, anchor, arg, sub))
            if isinstance(sub, dict):
                work.append(Node(sub, arg, anchor, "arg"))
        return out
    pd = node.first.get("properties")
    pairs: dict[str, tuple[Datum, Datum]] = {}
    if pd is not None and isinstance(pd[1], List):
        for k, v in plist_pairs(pd[1])[0]:
            kn = key_name(k)
            if kn is not None and kn not in pairs:
                pairs[kn] = (k, v)
    for pname, sub in props.items():
        k, v = pairs.get(pname, (None, None))
        anchor = k if k is not None else (pd[0] if pd else node.opening()[0])
        out.append((pname, anchor, v, sub))
        if isinstance(sub, dict):
            work.append(Node(sub, v, anchor, "nested"))
    return out
