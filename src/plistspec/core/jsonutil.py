"""Small JSON helpers shared by the stages that walk schemas (sources, lowering, lints):
all iterative, since schemas may nest deeply.

Owns: copying a JSON value without recursion (:func:`jcopy`), JSON equality that keeps
``1``, ``1.0`` and ``true`` apart (:func:`jeq`), a short JSON text for messages and
descriptions (:func:`brief`), JSON pointers (:func:`ptr`, :func:`resolve_pointer`),
the subschema positions of JSON Schema (:func:`subschemas`) and the description notes
that carry what a target cannot hold (:func:`add_note`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

__all__ = [
    "SCHEMA_ONE",
    "SCHEMA_LIST",
    "SCHEMA_MAP",
    "jcopy",
    "jeq",
    "brief",
    "ptr",
    "resolve_pointer",
    "subschemas",
    "add_note",
    "types_of",
    "Ptr",
    "ROOT",
]

#: JSON Schema keywords whose value is one schema, a list of schemas (``items`` too, in
#: draft 4's tuple form), or a map of names to schemas: every stage that walks a schema
#: reads them from here
SCHEMA_ONE = ("items", "not", "if", "then", "else", "contains", "additionalProperties")
SCHEMA_ONE += ("propertyNames", "additionalItems", "unevaluatedItems")
SCHEMA_ONE += ("unevaluatedProperties", "contentSchema")
SCHEMA_LIST = ("anyOf", "oneOf", "allOf", "prefixItems")
SCHEMA_MAP = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SCHEMA_VALUED = SCHEMA_ONE
_SCHEMA_LISTS = (*SCHEMA_LIST, "items")
_SCHEMA_MAPS = SCHEMA_MAP


def jcopy(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, scalars), at any depth."""
    from plistspec.core.jsoncopy import copy_json

    return copy_json(value)


def _tag(x: Any) -> Any:
    if isinstance(x, bool):
        return ("b", x)
    if isinstance(x, (int, float)):
        return ("n", x)
    return ("o", x)


def jeq(a: Any, b: Any) -> bool:
    """JSON equality: ``true != 1``; ``1 == 1.0`` (JSON Schema compares numbers by value)."""
    work = [(a, b)]
    while work:
        x, y = work.pop()
        if isinstance(x, dict) and isinstance(y, dict):
            if x.keys() != y.keys():
                return False
            work.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            work.extend(zip(x, y, strict=True))
        elif isinstance(x, (dict, list)) or isinstance(y, (dict, list)):
            return False
        else:
            tx, ty = _tag(x), _tag(y)
            if tx[0] != ty[0] or tx[1] != ty[1]:
                return False
    return True


def brief(value: Any, limit: int = 400) -> str:
    """Compact JSON text of ``value`` (cut at ``limit`` characters with an ellipsis).

    A value nested deeper than the JSON encoder recurses is written through an explicit
    stack, stopped once ``limit`` characters are out (a value nested 100 000 deep costs
    only what is shown)."""
    t = type(value)
    if t is str:
        s = _STRING(value)
    elif value is None or value is True or value is False:
        s = "null" if value is None else "true" if value else "false"
    elif t is int:
        s = int.__repr__(value)
    else:
        try:
            s = _ENCODER.encode(value)
        except RecursionError:
            return _brief_deep(value, limit)
        except (TypeError, ValueError):
            s = _brief_deep(value, 10**12)
    return s if len(s) <= limit else s[: limit - 1] + "…"


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))
_STRING = json.encoder.encode_basestring  # the C function: a str as JSON text


def _brief_deep(value: Any, limit: int) -> str:
    """:func:`brief` without recursion."""
    if not isinstance(value, (dict, list, tuple)):
        value = _scalar_text(value)
    out: list[str] = []
    size = 0
    # each entry: a text to write, or (container, iterator, is_dict, first)
    work: list[Any] = [value]
    while work and size <= limit:
        item = work.pop()
        if type(item) is str:
            out.append(item)
            size += len(item)
            continue
        if type(item) is list and item and type(item[0]) is _Open:
            _o, it, is_dict, first = item
            nxt = next(it, _END)
            if nxt is _END:
                out.append("}" if is_dict else "]")
                size += 1
                continue
            item[3] = False
            work.append(item)
            if not first:
                out.append(", ")
                size += 2
            if is_dict:
                k, v = nxt
                key = _scalar_text(k if isinstance(k, str) else str(k)) + ": "
                out.append(key)
                size += len(key)
                work.append(v if isinstance(v, (dict, list, tuple)) else _scalar_text(v))
            else:
                work.append(nxt if isinstance(nxt, (dict, list, tuple)) else _scalar_text(nxt))
            continue
        if isinstance(item, dict):
            out.append("{")
            size += 1
            work.append([_OPEN, iter(item.items()), True, True])
        elif isinstance(item, (list, tuple)):
            out.append("[")
            size += 1
            work.append([_OPEN, iter(item), False, True])
        else:
            s = _scalar_text(item)
            out.append(s)
            size += len(s)
    s = "".join(out)
    return s if len(s) <= limit and not work else s[: limit - 1] + "…"


class _Open:
    """Marks an open container on :func:`brief`'s stack."""


_OPEN = _Open()
_END = object()


def _scalar_text(v: Any) -> str:
    try:
        return json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(v)


class Ptr:
    """A JSON pointer built one step at a time in O(1) (a parent link), written out only
    when a diagnostic needs it, and then at most :data:`SHOWN` steps deep (deeper ones
    start with ``/…``): deep schemas stay linear. The text of a pointer is kept once
    made, so siblings write their parent's once."""

    __slots__ = ("parent", "part", "depth", "text")

    def __init__(self, parent: Ptr | None, part: Any) -> None:
        self.parent = parent
        self.part = part
        self.depth = 0 if parent is None else parent.depth + 1
        self.text: str | None = None if parent is not None else ""

    def __str__(self) -> str:
        text = self.text
        if text is not None:
            return text
        if self.depth <= SHOWN + 1:
            parent: Ptr = self.parent  # type: ignore[assignment]
            up = parent.text
            if up is None:  # the parent's own text first (at most SHOWN + 1 calls deep)
                up = parent.__str__()
            x = self.part if type(self.part) is str else str(self.part)
            if "~" in x or "/" in x:
                x = x.replace("~", "~0").replace("/", "~1")
            text = self.text = up + "/" + x
            return text
        out: list[str] = []
        cur = self
        for _ in range(SHOWN):
            x = cur.part if type(cur.part) is str else str(cur.part)
            if "~" in x or "/" in x:
                x = x.replace("~", "~0").replace("/", "~1")
            out.append(x)
            cur = cur.parent  # type: ignore[assignment]
        out.reverse()
        self.text = "/…/" + "/".join(out)
        return self.text

    def endswith(self, part: str) -> bool:
        return self.parent is not None and self.part == part


SHOWN = 64
ROOT = Ptr(None, None)


def ptr(base: Any, *parts: Any) -> Any:
    """``base`` extended by ``parts`` (a :class:`Ptr` for a Ptr, else a string)."""
    if isinstance(base, Ptr):
        for p in parts:
            base = Ptr(base, p)
        return base
    out = base
    for p in parts:
        out += "/" + str(p).replace("~", "~0").replace("/", "~1")
    return out


def resolve_pointer(root: Any, ref: str) -> tuple[bool, Any]:
    """``(found, value)`` for a local ``$ref`` (``#``, ``#/$defs/X``...) in ``root``.

    The commonest reference, ``#/$defs/Name`` (a name without ``/``, ``~`` or ``%``) into
    a ``$defs`` object, is answered at once, without the general walk
    (tests/lowering/test_lazy_messages.py holds the two equal)."""
    if ref.startswith("#/$defs/") and type(root) is dict:
        name = ref[8:]
        defs = root.get("$defs")
        if type(defs) is dict and "/" not in name and "~" not in name and "%" not in name:
            return (True, defs[name]) if name in defs else (False, None)
    if not ref.startswith("#"):
        return False, None
    frag = ref[1:]
    if frag == "":
        return True, root
    if not frag.startswith("/"):
        return False, None  # an $anchor: not resolved here
    cur = root
    for raw in frag[1:].split("/"):
        if "%" in raw:
            from urllib.parse import unquote

            raw = unquote(raw)
        part = raw.replace("~1", "/").replace("~0", "~") if "~" in raw else raw
        if type(cur) is dict:
            if part not in cur:
                return False, None
            cur = cur[part]
        elif type(cur) is list and part.isascii() and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return False, None
    return True, cur


def subschemas(node: dict[str, Any]) -> Iterator[tuple[tuple[Any, ...], Any, Any]]:
    """``(path parts, container, key)`` of every subschema directly under ``node``."""
    for k in _SCHEMA_VALUED:
        v = node.get(k)
        if isinstance(v, (dict, bool)) and not (k == "items" and isinstance(v, list)):
            yield (k,), node, k
    for k in _SCHEMA_LISTS:
        v = node.get(k)
        if isinstance(v, list):
            for i, _ in enumerate(v):
                yield (k, i), v, i
    for k in _SCHEMA_MAPS:
        v = node.get(k)
        if isinstance(v, dict):
            for name in v:
                yield (k, name), v, name
    dep = node.get("dependencies")
    if isinstance(dep, dict):
        for name, v in dep.items():
            if isinstance(v, dict):
                yield ("dependencies", name), dep, name


def types_of(node: dict[str, Any]) -> list[str] | None:
    t = node.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list) and all(isinstance(x, str) for x in t):
        return list(t)
    return None


def add_note(node: dict[str, Any], note: str) -> None:
    """Append ``(note)`` to ``node``'s description (made a string if it was not one)."""
    d = node.get("description")
    text = d if isinstance(d, str) else ""
    node["description"] = f"{text} ({note})" if text else f"({note})"
