"""The leaves of a lowering walk: the nodes every target takes as they are.

Owns: :func:`leaf_tests`, the two tests the walk (:mod:`plistspec.lowering.schema`) asks of
a node before its general path: ``leaf`` (``{"type": T, "description": D}`` with ``T`` a
scalar type, with an ``enum`` the target takes, with keywords of :data:`LEAF_EXTRA` the
target keeps) and ``array_leaf`` (an array of such leaves). A node they accept needs no
rewrite and breaks no rule of the target, so the walk copies it at once; the tests count
what strict mode's size rules count of it (enum values and characters). Both are made
per schema from what the target takes, which is computed once per target
(:func:`_constants`). tests/lowering/test_fastpath.py holds the walk with these short cuts
equal to the walk without them (``LEAF_EXTRA`` emptied).
"""

from __future__ import annotations

from functools import cache
from threading import get_ident
from typing import Any

from plistspec.lowering.context import Ctx
from plistspec.lowering.rules import Rules

__all__ = ["SCALARS", "LEAF_EXTRA", "leaf_tests"]

SCALARS = frozenset(("string", "number", "integer", "boolean", "null"))
_ARRAY_KEYS = frozenset(("type", "items", "description"))
_ENUM_TYPES = {"strings": frozenset((str,)), "strings-numbers": frozenset((str, int, float))}
_LEAF_KEYS = frozenset(("type", "description", "enum"))
#: keywords a leaf may hold beside those (where the target keeps them): no rewrite of
#: the walk touches them and no rule looks at their value but ``format`` (one the
#: target knows, on a string) and ``pattern`` (a string; not in a strict mode that
#: refuses complex patterns)
LEAF_EXTRA = frozenset(
    (
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "default",
        "title",
        "examples",
        "format",
        "pattern",
    )
)


@cache
def _constants(rules: Rules, strict: bool, extra: frozenset) -> tuple[Any, ...]:
    """What the walk's leaf tests read of a target (in its strict mode when ``strict``),
    made once per target: whether it takes type lists (not OpenAPI's ``nullable``, as
    Gemini), the types its enum values may have (None: any), strict mode's
    large-enum rule, the keywords of ``extra`` a leaf may hold (those the target keeps,
    without ``pattern`` where strict mode checks patterns), whether it keeps an array
    leaf's keywords."""
    gem = rules.type_list == "nullable"
    s = rules.strict if strict else None
    big = s.get("large_enum") if s is not None else None
    allowed = rules.node_sets(strict)[1]
    keys = extra if allowed is None else extra & allowed
    if s is not None and s["simple_patterns"]:
        keys = keys - {"pattern"}
    arrays_ok = allowed is None or _ARRAY_KEYS <= allowed
    return not gem, _ENUM_TYPES.get(rules.enum_kind), big, keys, arrays_ok


def _extra_fine(node: dict, t: Any, keys: frozenset, formats: frozenset | None) -> bool:
    """The keywords of leaf ``node`` beyond type, description and enum are all of
    ``keys``, with a ``format`` of ``formats`` (None: any) on a string type and a
    string ``pattern``."""
    if not keys or not node.keys() - _LEAF_KEYS <= keys:
        return False
    if "format" in node:
        f = node["format"]
        if type(f) is not str or (formats is not None and f not in formats):
            return False
        if t != "string" and not (type(t) is list and "string" in t):
            return False
    return "pattern" not in node or type(node["pattern"]) is str


#: the tests made so far, per target, mode and thread (each thread's walks, one at a
#: time, count into their own Ctx.stats through the tests' cell)
_MADE: dict[tuple, tuple] = {}


def leaf_tests(rules: Rules, ctx: Ctx) -> tuple[Any, Any, bool]:
    """``(leaf, array_leaf, lists_ok)`` for one walk of ``ctx`` on target ``rules``:
    ``leaf(node)`` says whether ``node`` is a leaf the target takes as it is (and counts
    its enum for strict mode into ``ctx.stats``), ``array_leaf(node)`` is a copy of an
    array of such leaves (None for any other node), ``lists_ok`` whether the target takes
    type lists. Made once per target, mode and thread, and pointed at ``ctx.stats``."""
    key = (rules, ctx.strict is not None, LEAF_EXTRA, get_ident())
    made = _MADE.get(key)
    if made is None:
        if len(_MADE) > 512:  # (threads come and go)
            _MADE.clear()
        made = _MADE[key] = _make(rules, ctx.strict, ctx.formats)
    made[3][0] = ctx.stats
    return made[0], made[1], made[2]


def _make(rules: Rules, strict_rules: Any, formats: Any) -> tuple[Any, Any, bool, list]:
    """The tests of :func:`leaf_tests` for one target and mode, and the cell holding the
    stats they count into."""
    cell: list[Any] = [None]
    # what the target takes, the same for every schema it lowers (see _constants)
    lists_ok, enum_types, big, extra_keys, arrays_ok = _constants(
        rules, strict_rules is not None, LEAF_EXTRA
    )

    def leaf(node: Any) -> bool:
        """The most common leaves, ``{"type": T, "description": D}`` with ``T`` a scalar
        type (or a list of them where the target takes lists), the same with an
        ``enum`` of values the target takes, and either with keywords that no rewrite
        touches and no rule refuses on this target (``minimum``, ``default``, a
        ``format`` it knows, ...: :func:`_extra_fine`): every target takes them as they
        are, so they are copied without the walk."""
        if type(node) is not dict:
            return False
        n = len(node)
        if n > 3 and not extra_keys:
            return False
        t = node.get("type")
        if type(t) is str:
            if t not in SCALARS:
                return False
        elif lists_ok and type(t) is list and len(t) == 2:  # ["string", "null"]
            a, b = t
            if type(a) is not str or type(b) is not str or a == b:
                return False
            if a not in SCALARS or b not in SCALARS:
                return False
        elif not (lists_ok and type(t) is list and _scalar_list(t)):
            return False
        if n == 1:
            return True
        d = node.get("description")
        if d is None:
            if "description" in node:  # "description": null is shape's (removed, PS429)
                return False
        elif type(d) is not str:
            return False
        if n == 2 and d is not None:
            return True
        e = node.get("enum")
        if n - 1 - (d is not None) - (e is not None):  # keywords beyond those three
            if not _extra_fine(node, t, extra_keys, formats):
                return False
            if e is None:
                return True
        if type(e) is not list:
            return False
        if enum_types is not None:  # the target takes only these (Gemini): else the walk
            for x in e:
                if type(x) not in enum_types:
                    return False
        if strict_rules is not None:  # what check_node says of an enum in strict mode
            chars = 0
            for x in e:
                tx = type(x)
                if tx is dict or tx is list:
                    return False  # Anthropic takes primitives only: the walk decides
                if tx is str:
                    chars += len(x)
            if big and len(e) > big["values"] and chars > big["chars"]:
                return False
            stats = cell[0]
            stats[1] += len(e)
            stats[2] += chars
        return True

    def array_leaf(node: Any) -> Any:
        """A copy of ``{"type": "array", "items": LEAF, "description": D}`` (no
        description, or a string; or typed ``["array", "null"]`` where the target takes
        type lists), the commonest node after the leaves: like them, every
        target takes it as it is (no rewrite, no rule broken); None for any other node.
        Only outside inlined definitions (where each written node counts, see schema._PROBE)."""
        if not arrays_ok or type(node) is not dict:
            return None
        t = node.get("type")
        if t != "array" and not (lists_ok and type(t) is list and _array_or_null(t)):
            return None
        n = len(node)
        if n == 3:
            if type(node.get("description")) is not str:
                return None
        elif n != 2:
            return None
        items = node.get("items")
        if items is None or not leaf(items):
            return None
        out = dict(node)
        out["items"] = dict(items)
        return out

    return leaf, array_leaf, lists_ok, cell


def _array_or_null(t: list) -> bool:
    """``["array", "null"]`` (an optional array made nullable for strict mode)."""
    if len(t) != 2:
        return False
    a, b = t
    return type(a) is str and type(b) is str and a == "array" and b == "null"


def _scalar_list(t: list) -> bool:
    """A type list of distinct scalar types (``["string", "null"]``, ``["number",
    "string", "null"]``: a union of scalars made nullable)."""
    if not t or len(t) > len(SCALARS):
        return False
    for x in t:
        if type(x) is not str or x not in SCALARS:
            return False
    return len(t) == 1 or len(set(t)) == len(t)
