"""``$ref`` inlining for parameter schemas read from JSON.

Owns: :class:`Resolver`: local ``$ref`` s resolved against the root schema (``$defs``,
``definitions`` or any ``#/…`` pointer) and written inline, sibling keys next to a ``$ref``
winning; a recursive reference is an error naming the cycle; Gemini's upper-case OpenAPI
types lower-cased. Iterative (a generator trampoline), so depth is no limit; each definition
is resolved once and shared. Written out, a shared definition is repeated wherever it is
used, so the expanded size is bounded: more than :data:`MAX_NODES` objects and arrays (a "billion
laughs" schema where each definition uses the one before twice) is an error naming the
definition (PS519).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.jsonutil import SCHEMA_LIST, SCHEMA_MAP, SCHEMA_ONE
from plistspec.core.trampoline import run as _run
from plistspec.fromjson.common import diag, jptr

__all__ = ["Resolver", "lower_type", "GEMINI_TYPES", "MAX_NODES"]

#: the most JSON objects and arrays one tool's parameters may expand to
MAX_NODES = 200_000

# JSON Schema keywords whose value is a schema, a list of schemas, or a map of schemas.
_SCHEMA_ONE = frozenset(SCHEMA_ONE)
_SCHEMA_LIST = frozenset(SCHEMA_LIST)
_SCHEMA_MAP = frozenset(SCHEMA_MAP)
GEMINI_TYPES = frozenset(
    {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL", "TYPE_UNSPECIFIED"}
)


def _mat(ptr: Any) -> str:
    """A pointer built as nested ``(parent, key)`` pairs (cheap to extend) → its text."""
    keys = []
    while isinstance(ptr, tuple):
        ptr, k = ptr
        keys.append(k)
    return jptr(ptr, *reversed(keys))


def _unescape_pointer(part: str) -> str:
    from urllib.parse import unquote

    return unquote(part).replace("~1", "/").replace("~0", "~")


class Resolver:
    """Inline local ``$ref`` s and lower-case Gemini types, iteratively."""

    def __init__(
        self, root: dict, ptr: str, label: str, diags: list[Diagnostic], gemini: bool
    ) -> None:
        self.root = root
        self.ptr = ptr
        self.label = label
        self.diags = diags
        self.gemini = gemini
        self.memo: dict[str, Any] = {}
        self.used: set[str] = set()
        self.failed = False
        # expanded size (schema nodes, counting every use of a shared definition) of each
        # dict/list this walk made, by id (they stay alive in the result)
        self.sizes: dict[int, int] = {}
        self.biggest: tuple[int, str] = (0, "")
        self.too_big = False

    def _size(self, v: Any) -> int:
        n = self.sizes.get(id(v)) if isinstance(v, (dict, list)) else None
        if n is not None:
            return n
        n = 0
        todo = [v]
        while todo:  # a value copied from the input as it is: count its objects and arrays
            x = todo.pop()
            if isinstance(x, dict):
                n += 1
                todo.extend(x.values())
            elif isinstance(x, list):
                n += 1
                todo.extend(x)
        return n

    def _where(self, ptr: Any) -> str:
        """The JSON pointer of ``ptr`` in the whole input (inside a definition too)."""
        where = _mat(ptr)
        return self.ptr + where[1:] if where.startswith("#") else where

    def _sized(self, out: Any, ptr: Any) -> Any:
        """Record the expanded size of ``out`` (made at ``ptr``); an error past the limit."""
        vals = out.values() if isinstance(out, dict) else out
        size = 1 + sum(self._size(v) for v in vals)
        self.sizes[id(out)] = size
        if size > MAX_NODES and not self.too_big:
            self.too_big = self.failed = True
            n, ref = self.biggest
            which = f"; the largest definition, {ref!r}, alone expands to {n}" if ref else ""
            self.diags.append(
                diag(
                    "PS519",
                    "error",
                    f"tool {self.label!r}: the schema at {self._where(ptr)} expands to more than "
                    f"{MAX_NODES} objects and arrays when its $refs are written inline{which} "
                    "(a gptel/llm spec has no references, so each use is written out)",
                )
            )
        return out

    def walk_map(self, m: dict, ptr: str) -> dict:
        """``m`` (a map of schemas, at ``ptr``) with every local ``$ref`` inlined."""
        self.stack = ["#"]  # the definitions being resolved, outermost first
        self.active = {"#"}
        return _run(self._map(m, ptr))

    def _lookup(self, ref: str) -> tuple[bool, Any]:
        if not ref.startswith("#"):
            return False, None
        frag = ref[1:]
        if frag and not frag.startswith("/"):
            return False, None
        cur: Any = self.root
        for part in frag.split("/")[1:] if frag else []:
            key = _unescape_pointer(part)
            if isinstance(cur, dict) and key in cur:
                cur = cur[key]
            elif isinstance(cur, list) and key.isascii() and key.isdigit() and int(key) < len(cur):
                cur = cur[int(key)]
            else:
                return False, None
        return True, cur

    def _map(self, m: dict, ptr: str) -> Generator:
        out = {}
        for k, sub in m.items():
            out[k] = yield self._schema(sub, (ptr, k))
        return self._sized(out, ptr)

    def _schema(self, node: Any, ptr: str) -> Generator:
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        target: Any = None
        has_target = False
        if isinstance(ref, str):
            found, raw = self._lookup(ref)
            if not found:
                if ref.startswith("#"):
                    self.failed = True
                    self.diags.append(
                        diag(
                            "PS501",
                            "error",
                            f"tool {self.label!r}: $ref {ref!r} at {self._where(ptr)} points to nothing in the schema",
                        )
                    )
                else:
                    self.diags.append(
                        diag(
                            "PS509",
                            "warning",
                            f"tool {self.label!r}: external $ref {ref!r} at {self._where(ptr)} is kept as it is (not fetched)",
                        )
                    )
            elif ref in self.active:
                self.failed = True
                loop = self.stack[self.stack.index(ref) :] + [ref]
                if len(loop) > 9:
                    loop = loop[:4] + [f"… {len(loop) - 8} more …"] + loop[-4:]
                cycle = " → ".join(loop)
                self.diags.append(
                    diag(
                        "PS510",
                        "error",
                        f"tool {self.label!r}: recursive $ref at {self._where(ptr)}: {cycle}",
                    )
                )
                return {}
            else:
                self.used.add(ref)
                if ref in self.memo:
                    target = self.memo[ref]
                else:
                    self.stack.append(ref)
                    self.active.add(ref)
                    target = yield self._schema(raw, ref)
                    self.active.discard(self.stack.pop())
                    self.memo[ref] = target
                    self.biggest = max(self.biggest, (self._size(target), ref))
                has_target = True
        out: dict[str, Any] = {}
        for k, sub in node.items():
            if k == "$ref" and has_target:
                if isinstance(target, dict):
                    for tk, tv in target.items():
                        if tk not in node or tk == "$ref":
                            out[tk] = tv
                continue
            p = (ptr, k)
            if k in _SCHEMA_ONE and isinstance(sub, dict):
                out[k] = yield self._schema(sub, p)
            elif (
                k in _SCHEMA_LIST
                and isinstance(sub, list)
                or k == "items"
                and isinstance(sub, list)
            ):
                items = []
                for i, s in enumerate(sub):
                    items.append((yield self._schema(s, (p, i))))
                out[k] = self._sized(items, p)
            elif k in _SCHEMA_MAP and isinstance(sub, dict):
                out[k] = yield self._map(sub, p)
            elif k == "type" and self.gemini:
                out[k] = lower_type(sub)
            else:
                out[k] = sub
        return self._sized(out, ptr)


def lower_type(t: Any) -> Any:
    if isinstance(t, str) and t in GEMINI_TYPES:
        return t.lower()
    if isinstance(t, list):
        return [x.lower() if isinstance(x, str) and x in GEMINI_TYPES else x for x in t]
    return t
