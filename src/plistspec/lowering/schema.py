"""Lowering one parameters schema for one target: the walk.

Owns: :func:`lower_schema`. The walk is iterative (a work list, never the call stack) and
linear: each node of the input is read once per place it is written (a ``$ref`` that the
target needs inlined is written once per use, and once a few thousand inlined nodes are
written :func:`plistspec.lowering.refs.expanded_size` checks that all uses together stay
under ``from-json``'s bound, PS519), the input is never copied (each lowered node is a
new object made from an input node, so the input stays as it was), and the ``$ref`` s being expanded on the current
path are a set kept up to date by exit markers on the work list (a recursion is found
in O(1)). Each node goes through :func:`plistspec.lowering.inline.settle` (``$ref``,
``allOf``, root composition) and :func:`plistspec.lowering.nodes.rewrite_node` (the
per-node rewrites), then its subschemas are queued (a quiet node, one that no target
rewrites and no rule refuses, the commonest leaves and arrays of them, is copied at
once instead; for a target that writes OpenAPI's
``nullable``, after a revisit marker: once the members of an ``anyOf`` are lowered,
:func:`plistspec.lowering.nulls.null_union` settles a member that became null). Every rewrite is a
:class:`~plistspec.lowering.context.Change` at the JSON pointer of the node in the
lowered schema, recorded once per rewrite kind and input node (a definition used a
hundred times reports once, at its first use). In strict mode the first thing strict
mode cannot hold raises :class:`~plistspec.lowering.context.Blocked`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from plistspec.core.jsonutil import ROOT, Ptr, brief
from plistspec.lowering.check import check_node, finish
from plistspec.lowering.context import LOSSLESS, Change, Ctx
from plistspec.lowering.fastpath import empty_root, object_node
from plistspec.lowering.inline import check_size, settle
from plistspec.lowering.nodes import rewrite_node
from plistspec.lowering.nulls import null_union
from plistspec.lowering.rules import Rules
from plistspec.lowering.shape import shape, type_names

__all__ = ["Change", "lower_schema", "defs_home"]

# how each subschema keyword holds its schemas: one, a list, a map
_ONE, _LIST, _MAP, _DEPS = 1, 2, 3, 4
_KIND: dict[str, int] = {
    **dict.fromkeys(
        (
            "items",
            "not",
            "if",
            "then",
            "else",
            "contains",
            "additionalProperties",
            "propertyNames",
            "additionalItems",
            "unevaluatedItems",
            "unevaluatedProperties",
            "contentSchema",
        ),
        _ONE,
    ),
    **dict.fromkeys(("anyOf", "oneOf", "allOf", "prefixItems"), _LIST),
    **dict.fromkeys(
        ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas"), _MAP
    ),
    "dependencies": _DEPS,
}
_DEFS = ("$defs", "definitions")
_ARRAY_KEYS = frozenset(("type", "items", "description"))
_ENUM_TYPES = {"strings": frozenset((str,)), "strings-numbers": frozenset((str, int, float))}
_SCALARS = frozenset(("string", "number", "integer", "boolean", "null"))
#: how a keyword turns the effect of a rewrite below it on the whole schema (the mode of
#: the walk: 0 as it is, 1 reversed, 2 both ways): a schema that widens inside ``not``
#: narrows the whole; inside ``oneOf`` (exactly one member) or ``if`` either may follow
_TURNS = {"not": (1, 0, 2), "oneOf": (2, 2, 2), "if": (2, 2, 2)}
#: inlined nodes written before the whole expansion is measured (expanded_size)
_PROBE = 5_000
#: inlined nodes the walk may write once the measure said yes (a backstop)
_BUDGET = 400_000


def lower_schema(
    params: dict[str, Any], rules: Rules, strict: bool = False
) -> tuple[dict[str, Any], list[Change], list[str], list[tuple[str, str]]]:
    """``params`` lowered for ``rules`` (with its strict mode when ``strict``), the
    changes made, notes that belong in the tool's description (keywords of the root
    that the target keeps nowhere else) and what in the lowered schema still breaks the
    target's rules, ``(pointer, message)`` (:mod:`plistspec.lowering.check`, made on each
    node as it is written). ``params`` is not changed. In strict mode, raises
    :class:`~plistspec.lowering.context.Blocked` when the schema cannot be strict."""
    if not strict and (empty := empty_root(params, rules)) is not None:
        return empty, [], [], []  # a tool without arguments: nothing to walk
    moved = False
    if "definitions" in params:
        params, moved = defs_home(params, rules)
    ctx = Ctx(rules, strict, params, budget=_PROBE)
    if moved:
        ctx.add("", "PS412", LOSSLESS, "definitions moved into $defs (and every $ref to them)")
    holder: dict[str, Any] = {"": params}
    ctx.active["#"] = 1
    # (container, key, pointer, is_root, home, inlined, enter, at): ``home`` is the
    # definition the node is written in (the root, a $defs entry, an inlined target);
    # ``enter`` a $ref made active while the node's subtree is walked; ``at`` where the
    # node is in the input when that is not ``pointer`` (inside an inlined definition:
    # its rewrites are reported there, once). An exit marker is (None, refs).
    work: list[tuple] = [(holder, "", ROOT, True, params, False, None, None, 0, 0)]
    pop = work.pop
    push = work.append
    kinds = _KIND
    strict_rules = ctx.strict
    stats = ctx.stats
    formats = ctx.formats
    # what the target takes, the same for every schema it lowers (see _constants)
    gem, lists_ok, enum_types, big, extra_keys, arrays_ok = _constants(
        rules, strict_rules is not None, _LEAF_EXTRA
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
            if t not in _SCALARS:
                return False
        elif lists_ok and type(t) is list and len(t) == 2:  # ["string", "null"]
            a, b = t
            if type(a) is not str or type(b) is not str or a == b:
                return False
            if a not in _SCALARS or b not in _SCALARS:
                return False
        elif not (lists_ok and type(t) is list and _scalar_list(t)):
            return False
        if n == 1:
            return True
        d = node.get("description")
        if d is not None and type(d) is not str:
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
            stats[1] += len(e)
            stats[2] += chars
        return True

    def array_leaf(node: Any) -> Any:
        """A copy of ``{"type": "array", "items": LEAF, "description": D}`` (no
        description, or a string; or typed ``["array", "null"]`` where the target takes
        type lists), the commonest node after the leaves: like them, every
        target takes it as it is (no rewrite, no rule broken); None for any other node.
        Only outside inlined definitions (where each written node counts, see _PROBE)."""
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

    while work:
        cont, key, p, root, home, inlined, enter, at, depth, mode = pop()
        if cont is None:
            active = ctx.active
            for ref in key:
                del active[ref]
            continue
        if cont is False:  # the node's members are lowered: a null union settles now
            ctx.dedupe = inlined
            ctx.mode = mode
            null_union(key, p, ctx, at)  # (at: the input node, for Ctx.add's dedupe)
            continue
        if enter is not None:
            ctx.active[enter] = 1
        node = cont[key]
        if not root and leaf(node):
            cont[key] = dict(node)
            continue
        if inlined:
            ctx.budget -= 1
            if ctx.budget < 0:
                if ctx.sized:  # past the measured expansion: a backstop
                    ctx.error(p, "PS519", "inlining $ref makes the schema too large")
                    break
                check_size(p, ctx, node)
                if ctx.failed:
                    break
                ctx.budget = _BUDGET
        if node is False or node is True:
            if key == "additionalProperties" and type(cont) is dict:
                continue  # additionalProperties: true/false is the keyword's own value
        ctx.dedupe = inlined
        ctx.mode = mode
        if (
            not inlined
            and at is None
            and type(node) is dict
            and "properties" in node
            and (new := object_node(node, p, root, depth + 1, ctx)) is not None
        ):  # the commonest object node: rewritten and checked in one step
            cont[key] = new
            depth += 1
        else:
            new, added, home, at2 = _rewrite(node, p if at is None else at, root, home, ctx)
            if ctx.failed:
                break
            if at2 is not p:
                at = at2  # the children are reported below it
            cont[key] = new
            if added:
                push((None, added, None, None, None, None, None, None, None, None))
                inlined = True
            if type(new) is not dict:
                continue
            if "properties" in new:
                depth += 1
            check_node(new, p, root, depth, ctx)
            if gem and "anyOf" in new:
                # a revisit marker, popped once the members below are lowered: (False, the
                # lowered node, where it is reported, ..., its input node as the origin, ...)
                push(
                    (
                        False,
                        new,
                        p if at is None else at,
                        None,
                        None,
                        inlined,
                        None,
                        node,
                        None,
                        mode,
                    )
                )
        for k in list(new):
            kind = kinds.get(k)
            if kind is None:
                continue
            v = new[k]
            cm = mode if k not in _TURNS else _TURNS[k][mode]
            if kind == _ONE:
                if (v is False or v is True) and k == "additionalProperties" and not inlined:
                    continue  # the keyword's own value, not a schema (see the work loop)
                if leaf(v):
                    new[k] = dict(v)
                elif not inlined and (arr := array_leaf(v)) is not None:
                    new[k] = arr
                elif type(v) is dict or v is True or v is False:
                    push(
                        (
                            new,
                            k,
                            Ptr(p, k),
                            False,
                            home,
                            inlined,
                            None,
                            at and Ptr(at, k),
                            depth,
                            cm,
                        )
                    )
                else:
                    ctx.error(Ptr(p, k), "PS428", f"a schema must be an object, not {brief(v, 60)}")
            elif kind == _LIST:
                if type(v) is list:
                    v = new[k] = list(v)
                    kp = Ptr(p, k)
                    ka = at and Ptr(at, k)
                    for i in range(len(v) - 1, -1, -1):
                        if leaf(v[i]):
                            v[i] = dict(v[i])
                        elif not inlined and (arr := array_leaf(v[i])) is not None:
                            v[i] = arr
                        else:
                            push(
                                (
                                    v,
                                    i,
                                    Ptr(kp, i),
                                    False,
                                    home,
                                    inlined,
                                    None,
                                    ka and Ptr(ka, i),
                                    depth,
                                    cm,
                                )
                            )
            elif kind == _MAP:
                if type(v) is dict:
                    v = new[k] = dict(v)
                    kp = ka = None  # made for the first member that is no leaf
                    names = list(v)
                    if k in _DEFS:
                        kp = Ptr(p, k)
                        ka = at and Ptr(at, k)
                        for name in reversed(names):
                            ref = f"#/{k}/" + str(name).replace("~", "~0").replace("/", "~1")
                            enter = None
                            if ref not in ctx.active:  # a recursion through it is found
                                push((None, (ref,), None, None, None, None, None, None, None, None))
                                enter = ref
                            push(
                                (
                                    v,
                                    name,
                                    Ptr(kp, name),
                                    False,
                                    v[name],
                                    inlined,
                                    enter,
                                    ka and Ptr(ka, name),
                                    depth,
                                    cm,
                                )
                            )
                    else:
                        for name in reversed(names):
                            sub = v[name]
                            if (  # {"type": T(, "description": D)}: leaf(sub), asked inline
                                type(sub) is dict
                                and len(sub) <= 2
                                and (len(sub) == 1 or type(sub.get("description")) is str)
                                and (
                                    (type(t := sub.get("type")) is str and t in _SCALARS)
                                    or (  # [T, "null"]: an optional one, in strict mode
                                        lists_ok
                                        and type(t) is list
                                        and len(t) == 2
                                        and t[1] == "null"
                                        and type(t0 := t[0]) is str
                                        and t0 in _SCALARS
                                        and t0 != "null"
                                    )
                                )
                            ) or leaf(sub):
                                v[name] = dict(sub)
                                continue
                            if not inlined and (arr := array_leaf(sub)) is not None:
                                v[name] = arr
                                continue
                            if kp is None:
                                kp = Ptr(p, k)
                                ka = at and Ptr(at, k)
                            push(
                                (
                                    v,
                                    name,
                                    Ptr(kp, name),
                                    False,
                                    home,
                                    inlined,
                                    None,
                                    ka and Ptr(ka, name),
                                    depth,
                                    cm,
                                )
                            )
            elif type(v) is dict:  # draft-7 dependencies: schemas among property lists
                v = new[k] = dict(v)
                kp = Ptr(p, k)
                ka = at and Ptr(at, k)
                for name in reversed(list(v)):
                    if type(v[name]) is dict:
                        push(
                            (
                                v,
                                name,
                                Ptr(kp, name),
                                False,
                                home,
                                inlined,
                                None,
                                ka and Ptr(ka, name),
                                depth,
                                cm,
                            )
                        )
    lowered = holder[""]
    finish(lowered, ctx)
    violations = [(str(p), m) for p, m in ctx.violations] if ctx.violations else []
    return lowered, ctx.changes, ctx.tool_notes, violations


def _rewrite(
    node: Any, p: Any, root: bool, home: Any, ctx: Ctx
) -> tuple[Any, tuple[str, ...] | None, Any, Any]:
    """One node lowered: ``(new node, the $refs it made active, its home, where its
    rewrites were reported)``; ``p`` is where the node is reported."""
    if node is True or node is False:
        if not (ctx.rules.type_required or ctx.strict is not None):
            return node, None, home, p
        new = {} if node is True else {"not": {}}
        ctx.add(p, "PS419", LOSSLESS, f"the boolean schema {brief(node)} written as {brief(new)}")
        node = new
    elif type(node) is not dict:
        ctx.error(p, "PS428", f"a schema must be an object, not {brief(node, 60)}")
        return {}, None, home, p
    origin = node
    node = dict(node)
    shape(node, p, ctx, origin)
    t = node.get("type")
    if t is not None and (
        (type(t) is str and t not in _JSON_TYPES) or (type(t) is list and not _json_list(t))
    ):
        type_names(node, p, ctx, origin)
    added = None
    if "$ref" in node or "allOf" in node or (root and ("anyOf" in node or "oneOf" in node)):
        node, added, home, origin, p = settle(node, p, root, home, ctx, origin)
        if ctx.failed:
            return node, added, home, p
    rewrite_node(node, p, root, home, ctx, origin)
    return node, added, home, p


_JSON_TYPES = frozenset("string number integer boolean array object null".split())
_LEAF_KEYS = frozenset(("type", "description", "enum"))
#: keywords a leaf may hold beside those (where the target keeps them): no rewrite of
#: the walk touches them and no rule looks at their value but ``format`` (one the
#: target knows, on a string) and ``pattern`` (a string; not in a strict mode that
#: refuses complex patterns)
_LEAF_EXTRA = frozenset(
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
    made once per target: whether it writes OpenAPI's ``nullable`` (``gem``) rather than
    taking type lists, the types its enum values may have (None: any), strict mode's
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
    return gem, not gem, _ENUM_TYPES.get(rules.enum_kind), big, keys, arrays_ok


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


def _json_list(t: list) -> bool:
    for x in t:
        if type(x) is not str or x not in _JSON_TYPES:
            return False
    return True


def _array_or_null(t: list) -> bool:
    """``["array", "null"]`` (an optional array made nullable for strict mode)."""
    if len(t) != 2:
        return False
    a, b = t
    return type(a) is str and type(b) is str and a == "array" and b == "null"


def _scalar_list(t: list) -> bool:
    """A type list of distinct scalar types (``["string", "null"]``)."""
    if len(t) != 2 and len(t) != 1:
        return False
    for x in t:
        if type(x) is not str or x not in _SCALARS:
            return False
    return len(t) == 1 or t[0] != t[1]


def defs_home(params: dict, rules: Rules) -> tuple[dict, bool]:
    """Draft-07 ``definitions`` moved into ``$defs`` (and every ``$ref`` to them rewritten)
    for a target that keeps references but not ``definitions``."""
    if not isinstance(params.get("definitions"), dict) or rules.allowed("definitions", True):
        return params, False
    if not rules.allowed("$defs", True) or rules.ref_mode == "inline":
        return params, False
    defs = dict(params.get("$defs") or {})
    if set(defs) & set(params["definitions"]):
        return params, False
    from plistspec.core.jsonutil import jcopy

    out = jcopy(params)
    defs.update(out.pop("definitions"))
    out["$defs"] = defs
    work = [out]
    while work:
        n = work.pop()
        if isinstance(n, dict):
            r = n.get("$ref")
            if isinstance(r, str) and r.startswith("#/definitions/"):
                n["$ref"] = "#/$defs/" + r[len("#/definitions/") :]
            work.extend(n.values())
        elif isinstance(n, list):
            work.extend(n)
    return out, True
