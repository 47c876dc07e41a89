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

from typing import Any

from plistspec.core.jsontypes import JSON_TYPES
from plistspec.core.jsonutil import ROOT, Ptr, brief
from plistspec.lowering.check import check_node, finish
from plistspec.lowering.context import LOSSLESS, Change, Ctx
from plistspec.lowering.fastpath import ANNOTATIONS as _ANNOTATIONS
from plistspec.lowering.fastpath import (
    annotated_leaf,
    array_node,
    empty_root,
    object_node,
    ref_leaf,
    union_leaf,
    union_node,
)
from plistspec.lowering.inline import check_size, settle
from plistspec.lowering.leaves import SCALARS, leaf_tests
from plistspec.lowering.nodes import rewrite_node
from plistspec.lowering.nulls import null_union
from plistspec.lowering.rules import Rules, ref_target_ok
from plistspec.lowering.shape import shape, type_names

__all__ = ["Change", "lower_schema", "defs_home", "SUBSCHEMA_KEYWORDS"]

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
#: every keyword whose value holds subschemas (the walk goes into them)
SUBSCHEMA_KEYWORDS = frozenset(_KIND)
_DEFS = ("$defs", "definitions")
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
        params, moved = defs_home(params, rules, strict)
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
    # the walk's short cuts for leaves (plistspec.lowering.leaves)
    leaf, array_leaf, lists_ok = leaf_tests(rules, ctx)
    gem = not lists_ok

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
        node = cont[key]  # (never a leaf: each was copied where it was found)
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
        if not root and not inlined and at is None and type(node) is dict:
            # the leaves with one rewrite, or none, in one step (plistspec.lowering.fastpath):
            # a leaf but for an annotation the target refuses (FastMCP's default), a
            # reference the target keeps, pydantic's optional argument anyOf [T, null]
            new = None
            if not _ANNOTATIONS.isdisjoint(node):
                new = annotated_leaf(node, p, ctx, leaf)
            if new is None and len(node) == 1 and "$ref" in node:
                new = ref_leaf(node, p, ctx)
            if new is None and lists_ok and "anyOf" in node:
                new = union_leaf(node, p, ctx, leaf)
            if new is not None:
                cont[key] = new
                continue
        if (
            not inlined
            and at is None
            and type(node) is dict
            and "properties" in node
            and (new := object_node(node, p, root, depth + 1, ctx)) is not None
        ):  # the commonest object node: rewritten and checked in one step
            cont[key] = new
            depth += 1
        elif (
            not root
            and not inlined
            and at is None
            and type(node) is dict
            and (
                ("items" in node and (new := array_node(node, p, ctx, lists_ok)) is not None)
                or ("anyOf" in node and (new := union_node(node, p, ctx)) is not None)
            )
        ):  # an array of objects or references, a union of them: nothing to rewrite
            cont[key] = new
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
                # (untyped or an object: no leaf, no array, both typed otherwise)
                if type(v) is not dict or v.get("type", "object") != "object":
                    if leaf(v):
                        new[k] = dict(v)
                        continue
                    if not inlined and (arr := array_leaf(v)) is not None:
                        new[k] = arr
                        continue
                if type(v) is dict or v is True or v is False:
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
                        m = v[i]
                        if type(m) is not dict or m.get("type", "object") != "object":
                            if leaf(m):  # (else as above: no leaf, no array)
                                v[i] = dict(m)
                                continue
                            if not inlined and (arr := array_leaf(m)) is not None:
                                v[i] = arr
                                continue
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
                            sub = v[name]
                            if (
                                type(sub) is not dict
                                or ((ts := sub.get("type")) is not None and ts != "object")
                            ) and leaf(sub):  # (a leaf is typed, not as an object)
                                v[name] = dict(sub)
                                continue
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
                            if type(sub) is dict and (
                                (ts := sub.get("type")) is None or ts == "object"
                            ):
                                pass  # (no leaf, no array: both are typed otherwise)
                            elif (  # {"type": T(, "description": D)}: leaf(sub), asked inline
                                type(sub) is dict
                                and len(sub) <= 2
                                and (len(sub) == 1 or type(sub.get("description")) is str)
                                and (
                                    (type(t := sub.get("type")) is str and t in SCALARS)
                                    or (  # [T, "null"]: an optional one, in strict mode
                                        lists_ok
                                        and type(t) is list
                                        and len(t) == 2
                                        and t[1] == "null"
                                        and type(t0 := t[0]) is str
                                        and t0 in SCALARS
                                        and t0 != "null"
                                    )
                                )
                            ) or leaf(sub):
                                v[name] = dict(sub)
                                continue
                            elif not inlined and (arr := array_leaf(sub)) is not None:
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
                    if leaf(v[name]):
                        v[name] = dict(v[name])
                    elif type(v[name]) is dict:
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
        (type(t) is str and t not in JSON_TYPES) or (type(t) is list and not _json_list(t))
    ):
        type_names(node, p, ctx, origin)
    added = None
    if "$ref" in node or "allOf" in node or (root and ("anyOf" in node or "oneOf" in node)):
        node, added, home, origin, p = settle(node, p, root, home, ctx, origin)
        if ctx.failed:
            return node, added, home, p
    rewrite_node(node, p, root, home, ctx, origin)
    return node, added, home, p


def _json_list(t: list) -> bool:
    for x in t:
        if type(x) is not str or x not in JSON_TYPES:
            return False
    return True


def defs_home(params: dict, rules: Rules, strict: bool = False) -> tuple[dict, bool]:
    """Draft-07 ``definitions`` moved into ``$defs`` (and every ``$ref`` to them rewritten)
    for a target that keeps references but not ``definitions``, or (``strict``) whose
    strict mode resolves references into ``$defs`` only (OpenAI)."""
    if not isinstance(params.get("definitions"), dict):
        return params, False
    if strict and rules.strict is not None:
        if ref_target_ok("#/definitions/", rules.strict):
            return params, False
    elif rules.allowed("definitions", True):
        return params, False
    if not rules.allowed("$defs", True) or rules.ref_mode == "inline":
        return params, False
    defs = dict(params.get("$defs") or {})
    if set(defs) & set(params["definitions"]):
        return params, False
    try:
        out = {k: _rehome(v) for k, v in params.items()}
        r = out.get("$ref")  # the root's own reference (zod-to-json-schema's named root)
        if type(r) is str and r.startswith(_OLD):
            out["$ref"] = "#/$defs/" + r[len(_OLD) :]
    except RecursionError:  # nested deeper than Python recurses: copied, then rewritten
        from plistspec.core.jsonutil import jcopy

        out = _rehome_deep(jcopy(params))
    moved = out.pop("definitions")
    out["$defs"] = {**(out.get("$defs") or {}), **moved}
    return out, True


_OLD = "#/definitions/"


def _rehome(v: Any) -> Any:
    """``v`` with every ``$ref`` into ``#/definitions/`` pointing into ``#/$defs/``: the
    containers on the way to one are new, the rest is ``v``'s own (never changed)."""
    t = type(v)
    out: Any = None
    if t is dict:
        r = v.get("$ref")
        if type(r) is str and r.startswith(_OLD):
            out = dict(v)
            out["$ref"] = "#/$defs/" + r[len(_OLD) :]
        pairs: Any = v.items()
    elif t is list:
        pairs = enumerate(v)
    else:
        return v
    for k, x in pairs:
        tx = type(x)
        if tx is dict or tx is list:
            y = _rehome(x)
            if y is not x:
                if out is None:
                    out = dict(v) if t is dict else list(v)
                out[k] = y
    return v if out is None else out


def _rehome_deep(out: Any) -> Any:
    """:func:`_rehome` in place on a copy, without recursion."""
    work = [out]
    while work:
        n = work.pop()
        if isinstance(n, dict):
            r = n.get("$ref")
            if isinstance(r, str) and r.startswith(_OLD):
                n["$ref"] = "#/$defs/" + r[len(_OLD) :]
            work.extend(n.values())
        elif isinstance(n, list):
            work.extend(n)
    return out
