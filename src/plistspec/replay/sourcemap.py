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

from collections.abc import Callable
from typing import Any

from plistspec.elisp.datum import Datum, List, String, Symbol, Vector
from plistspec.elisp.plists import is_plist, key_name, plist_pairs

__all__ = ["Node", "arg_map", "children", "follow"]


class Node:
    """One JSON schema node and the plist it was made from (None when the library
    made it up); ``anchor`` is where to point when the plist has no datum to offer."""

    __slots__ = ("json", "plist", "anchor", "level", "children", "_first")

    def __init__(self, json: Any, plist: Datum | None, anchor: Datum, level: str) -> None:
        self.json = json
        self.plist = plist if type(plist) is List and plist.items else None  # type: ignore[union-attr]
        self.anchor = anchor
        self.level = level  # "root", "arg" or "nested"
        self.children: dict[str, tuple[Datum, Datum]] | None = None
        self._first: dict[str, tuple[Symbol, Datum]] | None = None

    @property
    def first(self) -> dict[str, tuple[Symbol, Datum]]:
        """JSON key -> (key symbol, value) of its first occurrence in the plist (made when
        a finding or a nested node first needs it: most nodes have neither)."""
        first = self._first
        if first is None:
            first = self._first = _first(self.plist) if self.plist is not None else {}
        return first

    def lookup(self, name: str) -> tuple[Symbol, Datum] | None:
        """``first.get(name)`` without building ``first`` for one key (``name`` a JSON key
        that does not start with a colon)."""
        if self._first is not None:
            return self._first.get(name)
        if self.plist is None:
            return None
        kw = ":" + name
        items = self.plist.items
        for i in range(0, len(items) - 1, 2):
            k = items[i]
            if type(k) is Symbol and (k.name == kw or k.name == name):  # type: ignore[attr-defined]
                return k, items[i + 1]  # type: ignore[return-value]
        return None

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
        items = arg.items if type(arg) is List else ()
        for i in range(0, len(items) - 1, 2):
            k = items[i]
            if type(k) is Symbol and k.name == ":name":
                v = items[i + 1]
                if type(v) is String:
                    name = v.value if v.value or llm_rules else ":"
                elif type(v) is Symbol and llm_rules:
                    name = v.name
                else:
                    break
                if llm_rules or name not in out:
                    out[name] = (arg, v)
                break
    return out


def _first_keys(items: list[Datum], strings: bool) -> dict[str, tuple[Datum, Datum]]:
    """JSON key -> (key, value) of its first occurrence among the plist ``items``: the
    key as gptel's serializer makes it (:func:`plistspec.lint._util.key_name`), of symbol
    keys only or, with ``strings``, of string keys too."""
    out: dict[str, tuple[Datum, Datum]] = {}
    for i in range(0, len(items) - 1, 2):
        k = items[i]
        t = type(k)
        if t is Symbol:
            name = k.name  # type: ignore[attr-defined]
            if len(name) > 1 and name[0] == ":":
                name = name[1:]
        elif t is String and strings:
            name = k.value  # type: ignore[attr-defined]
        else:
            continue
        if name not in out:
            out[name] = (k, items[i + 1])
    return out


def _first(plist: List) -> dict[str, tuple[Symbol, Datum]]:
    return _first_keys(plist.items, False)  # type: ignore[return-value]


# The keys of a JSON schema node that hold nested schemas, in the order they are queued.
_ONE = ("items", "not", "if", "then", "else", "contains", "additionalProperties")
_MANY = ("anyOf", "allOf", "oneOf", "prefixItems")
_NESTING = frozenset((*_ONE, *_MANY))


def children(
    node: Node, work: list, quiet: Callable[[dict], bool]
) -> list[tuple[str, Datum, Datum | None, Any]]:
    """Queue the nested schema nodes; return the properties as (name, key datum, schema).

    A property schema for which ``quiet`` is true is not queued: no rule has anything to
    say about it or below it (:func:`plistspec.lint.target_schema.quiet_leaf`)."""
    j = node.json
    if not _NESTING.isdisjoint(j):
        _nested(node, j, work, quiet)
    props = j.get("properties")
    if not isinstance(props, dict):
        return []
    out: list[tuple[str, Datum, Datum | None, Any]] = []
    if node.level == "root":
        mapping = node.children or {}
        for pname, sub in props.items():
            arg, name_datum = mapping.get(pname, (None, None))
            anchor = name_datum if name_datum is not None else node.anchor
            out.append((pname, anchor, arg, sub))
            if isinstance(sub, dict) and not quiet(sub):
                work.append(Node(sub, arg, anchor, "arg"))
        return out
    pd = node.lookup("properties")
    pairs: dict[str, tuple[Datum, Datum]] = {}
    if pd is not None and type(pd[1]) is List:
        pairs = _first_keys(pd[1].items, True)
    for pname, sub in props.items():
        k, v = pairs.get(pname, (None, None))
        anchor = k if k is not None else (pd[0] if pd else node.opening()[0])
        out.append((pname, anchor, v, sub))
        if isinstance(sub, dict) and not quiet(sub):
            work.append(Node(sub, v, anchor, "nested"))
    return out


def _nested(node: Node, j: dict, work: list, quiet: Callable[[dict], bool]) -> None:
    """Queue the schemas of ``j``'s ``items``, ``anyOf``... (not its properties), but
    not the ``quiet`` ones."""
    for name in _ONE:
        sub = j.get(name)
        if isinstance(sub, dict) and not quiet(sub):
            d = node.lookup(name)
            work.append(Node(sub, d[1] if d else None, d[0] if d else node.opening()[0], "nested"))
    for name in _MANY:
        subs = j.get(name)
        if isinstance(subs, list):
            d = node.lookup(name)
            vec = d[1] if d is not None and isinstance(d[1], Vector) else None
            for i, sub in enumerate(subs):
                if isinstance(sub, dict) and not quiet(sub):
                    src = vec.items[i] if vec is not None and i < len(vec.items) else None
                    work.append(Node(sub, src, d[0] if d else node.opening()[0], "nested"))


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def follow(form, pointer: str, tool: dict | None) -> Any:
    """The datum of ``form`` that the tool JSON at ``pointer`` came from (at worst the head)."""
    tool = tool or {}

    head = Symbol(form.head, form.start, min(form.end, form.start + 1 + len(form.head)))
    parts = [_unescape(x) for x in pointer.split("/")[1:]]
    if not parts:
        return head
    if parts[0] in ("name", "description"):
        s = form.slot(":" + parts[0])
        return s.value if s is not None and s.value is not None else head
    args = form.slot(":args")
    if args is None:
        return head
    cur: Any = args.key
    value = args.value
    if not isinstance(value, (List, Vector)) or len(parts) < 3 or parts[1] != "properties":
        return cur
    llm = ((tool.get("metadata") or {}).get("dialect")) == "llm"
    mapping = arg_map([a for a in value.items if is_plist(a)], llm)
    if parts[2] not in mapping:
        return cur
    plist, name_datum = mapping[parts[2]]
    cur = name_datum
    node: Any = plist
    i = 3
    while i < len(parts) and isinstance(node, List):
        key = parts[i]
        pairs = {}
        for k, v in plist_pairs(node)[0]:
            kn = key_name(k)
            if kn is not None and kn not in pairs:
                pairs[kn] = (k, v)
        if key not in pairs:
            break
        k, v = pairs[key]
        cur = k
        i += 1
        if key == "properties" and i < len(parts) and isinstance(v, List):
            sub = {}
            for kk, vv in plist_pairs(v)[0]:
                kn = key_name(kk)
                if kn is not None and kn not in sub:
                    sub[kn] = (kk, vv)
            if parts[i] not in sub:
                break
            cur, node = sub[parts[i]]
            i += 1
            continue
        if isinstance(v, Vector) and i < len(parts) and parts[i].isascii() and parts[i].isdigit():
            idx = int(parts[i])
            if idx < len(v.items):
                cur = node = v.items[idx]
                i += 1
                continue
            break
        node = v
        if isinstance(v, List):
            continue
        cur = v if i == len(parts) else cur
        break
    return cur
