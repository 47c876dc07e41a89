"""The commonest object node of a tool schema, lowered and checked in one step.

Owns: :func:`object_node`. Most nodes that are not leaves are the root of a tool, or an
object argument, written as ``{"type": "object", "properties": {...}, "required": [...],
"description": "...", "additionalProperties": false}`` (any of the last three left out;
typed ``["object", "null"]`` where the target takes type lists, as strict mode writes an
optional object argument; the root of a tool without arguments, ``properties: {}``,
outside strict mode or closed). For such a node every per-node step of the walk is known in
advance: no keyword has the wrong shape (:mod:`.shape`), nothing is settled
(:mod:`.inline`), no rewrite applies but strict mode's closing of the object and its
``required`` (:func:`plistspec.lowering.strict.close_object`, the same call the general
path makes), and the target's checks (:mod:`.check`) find nothing: only strict mode's
counts of properties, names and depth move. :func:`object_node` proves those conditions
from the node and the target's rules, or returns None and the general path runs; either
way the lowered node, the changes and the violations are the same (tests/lowering/
test_fastpath.py compares both on generated nodes for every target, strict and not). It
saves a tenth to a fifth of a typical tool's lowering: the general path asks some sixty
questions of every node, most of them about keywords this node does not have.
:func:`array_node` and :func:`union_node` do the same for an array of objects or
references and a union of them, whose own steps are none (their subschemas are walked).
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsontypes import only_strings
from plistspec.core.jsonutil import brief, resolve_pointer
from plistspec.lowering.check import count_properties
from plistspec.lowering.context import (
    LOSSLESS,
    WIDENS,
    Ctx,
    moved_text,
    refused_ap_text,
    removed_meta_text,
)
from plistspec.lowering.rules import Rules, ref_target_ok
from plistspec.lowering.strict import close_object

__all__ = [
    "object_node",
    "empty_root",
    "annotated_leaf",
    "ref_leaf",
    "union_leaf",
    "array_node",
    "union_node",
    "FLAT_KEYS",
]

#: the keywords of the node this path takes (``type`` and ``properties`` always there)
FLAT_KEYS = frozenset(
    ("type", "properties", "required", "description", "additionalProperties", "title")
)
#: metadata this path also takes: kept where the target takes it, else removed as the
#: general path removes it (:func:`plistspec.lowering.nodes.rewrite_node`'s keyword step:
#: PS429, after strict mode closed the object) (FastMCP's roots carry ``$schema``)
META_KEYS = frozenset(("$schema", "$id", "$comment"))
#: definitions this path also takes at the root, where the target keeps references (the
#: walk goes on into them as it does on the general path)
DEFS_KEYS = frozenset(("$defs", "definitions"))
_TAKEN = FLAT_KEYS | META_KEYS | DEFS_KEYS
_FLAT_DEFS = FLAT_KEYS | DEFS_KEYS
_AP = frozenset(("additionalProperties",))
#: keywords of a property that make :func:`plistspec.lowering.objects.object_rules` look
#: closer at the parent (a recursive ``$ref`` in a required property, for Gemini)
_REFS = frozenset(("$ref", "anyOf", "oneOf"))
#: an optional object argument as strict mode writes it (required, null allowed)
_NULLABLE = ["object", "null"]
_EMPTY_KEYS = frozenset(("type", "properties"))


def object_node(
    node: dict, p: Any, root: bool, depth: int, ctx: Ctx, origin: Any = None
) -> dict | None:
    """``node`` (a dict with ``properties``, not inside an inlined definition) lowered, its
    rewrites recorded and its checks made, as the general path would at ``depth``; None
    when it is not the node this path takes (nothing is recorded then). ``origin``: the
    input node, where ``node`` is a copy without its metadata (:func:`_with_meta`)."""
    if not node.keys() <= FLAT_KEYS:
        if not node.keys() <= _TAKEN or (
            not DEFS_KEYS.isdisjoint(node) and (not root or ctx.inline_all)
        ):
            return None
        if not node.keys() <= _FLAT_DEFS:
            return _with_meta(node, p, root, depth, ctx)
    t = node["type"] if "type" in node else None
    if t != "object" and (root or t != _NULLABLE or ctx.rules.type_list == "nullable"):
        return None  # (the root must be an object; Gemini rewrites a type list)
    props = node["properties"] if "properties" in node else None
    if type(props) is not dict:
        return None
    if not props and (
        not root or (ctx.strict is not None and node.get("additionalProperties") is not False)
    ):  # (no properties: strict mode's refusal unless closed, Gemini's report)
        return None
    req = node["required"] if "required" in node else None
    if req is not None:
        if type(req) is not list or not only_strings(map(type, req)):
            return None
        if not all(map(props.__contains__, req)):
            return None  # (a name properties lacks: object_rules adds it)
    if "description" in node and type(node["description"]) is not str:
        return None
    closed = "additionalProperties" in node
    if closed and node["additionalProperties"] is not False:
        return None
    r = ctx.rules
    for sub in props.values():
        if type(sub) is dict and "required" in sub:
            return None  # a draft-3 required: moved into this node's list
    if req and r.recursive_required == "optional":
        for name in req:
            sub = props[name]
            if type(sub) is dict and not _REFS.isdisjoint(sub):
                return None
    s = ctx.strict
    allowed = ctx.allowed_root if root else ctx.allowed_node
    if allowed is not None:
        if r.additional == "false-only":  # additionalProperties: false is kept on every node
            if not node.keys() - _AP <= allowed:
                return None
        elif not node.keys() <= allowed or (
            s is not None and "additionalProperties" not in allowed
        ):  # (strict mode closes the object: the keyword is there after)
            if origin is None and _closed_refused(node, allowed, ctx):
                return _with_meta(node, p, root, depth, ctx)
            return None
    new = dict(node)
    if s is None:
        return new
    # close_object leaves the object closed and, where strict mode needs it, every
    # property required in order (else it raises Blocked): what check_node asks of this
    # node in strict mode (tests/lowering/test_fastpath.py compares the general path)
    close_object(new, p, ctx, node if origin is None else origin)
    count_properties(props, depth, ctx.stats)
    return new


def _closed_refused(node: dict, allowed: Any, ctx: Ctx) -> bool:
    """``additionalProperties: false`` on an object with properties, outside strict mode,
    where the target refuses the keyword (Gemini's ``parameters``): the general path's
    keyword step removes it and says it in the description (PS422), as
    :func:`_with_meta` does."""
    return (
        ctx.strict is None
        and "additionalProperties" in node
        and node["additionalProperties"] is False
        and allowed is not None
        and "additionalProperties" not in allowed
        and ctx.rules.additional != "false-only"
        and bool(node.get("properties"))
    )


def _with_meta(node: dict, p: Any, root: bool, depth: int, ctx: Ctx) -> dict | None:
    """:func:`object_node` for a node that also holds :data:`META_KEYS`, or an
    ``additionalProperties: false`` (:func:`_closed_refused`): those the target refuses
    are removed after the object's own step, each reported in the order of the node's
    keys, with the general path's words (:func:`plistspec.lowering.context.removed_meta_text`, PS429; PS422 and the note in the description)."""
    allowed = ctx.allowed_root if root else ctx.allowed_node
    if allowed is None:
        return None
    closed = _closed_refused(node, allowed, ctx)
    gone = [
        k
        for k in node
        if k not in allowed and (k in META_KEYS or (closed and k == "additionalProperties"))
    ]
    if not gone:
        return None  # (kept, so not FLAT_KEYS: the general path)
    rest = {k: v for k, v in node.items() if k not in gone}
    if not rest.keys() <= _FLAT_DEFS:
        return None
    new = object_node(rest, p, root, depth, ctx, node)
    if new is None:
        return None
    r = ctx.rules
    for k in gone:
        if k == "additionalProperties":
            ctx.note(new, root, "no other properties")
            ctx.add(p, "PS422", WIDENS, refused_ap_text(r.name, False), node)
            continue
        ctx.add(p, "PS429", LOSSLESS, removed_meta_text(r.name, k), node)
    return new


#: annotations a leaf may carry that a target refusing them has said in the description
#: (the general path's keyword step, PS419): FastMCP's ``default`` on every optional
#: argument, which strict modes and Gemini refuse
ANNOTATIONS = frozenset(("default", "examples", "example", "deprecated", "readOnly", "writeOnly"))


def _said(node: dict, rest: dict, gone: list, p: Any, ctx: Ctx) -> dict:
    """``rest`` (``node`` without the annotations ``gone``) with each said in its
    description and reported (PS419), in the order of ``node``'s keys, as the general
    path's keyword step says them."""
    for k in gone:
        ctx.note(rest, False, f"{k}: {brief(node[k], 10**9)}")
        ctx.add(p, "PS419", LOSSLESS, moved_text(k), node)
    return rest


def _refused(node: dict, ctx: Ctx, keys: frozenset) -> Any:
    """The keys of ``node`` beyond ``keys`` that go: None when there are none, the list
    of them (in the node's order) when all are annotations (:data:`ANNOTATIONS`) the
    target keeps (they stay: no rewrite or rule looks at them) or refuses and says in
    the description (``rules.annotations``: they go), else False."""
    gone = None
    allowed = ctx.allowed_node
    for k in node:
        if k in keys:
            continue
        if k not in ANNOTATIONS:
            return False
        if allowed is None or k in allowed:
            continue
        gone = [k] if gone is None else [*gone, k]
    if gone is not None and not ctx.rules.annotations.issuperset(gone):
        return False
    return gone


def annotated_leaf(node: dict, p: Any, ctx: Ctx, leaf: Any) -> dict | None:
    """A leaf (``leaf``, the walk's test) but for annotations of :data:`ANNOTATIONS` the
    target refuses: a copy without them, each said in the description and reported
    (PS419), as the general path would (same order, same words); None for any other
    node (nothing recorded then). Not the root, not inside an inlined definition."""
    allowed = ctx.allowed_node
    if allowed is None:
        return None
    gone = None
    for k in node:
        if k in ANNOTATIONS and k not in allowed:
            gone = [k] if gone is None else [*gone, k]
    if gone is None or not ctx.rules.annotations.issuperset(gone):
        return None
    rest = {k: v for k, v in node.items() if k not in gone}
    if not leaf(rest):
        return None
    return _said(node, rest, gone, p, ctx)


def union_leaf(node: dict, p: Any, ctx: Ctx, leaf: Any) -> dict | None:
    """``{"anyOf": [LEAF, ..., {"type": "null"}], "description": D, "title": T}``, an
    optional argument as pydantic writes it, with annotations of :data:`ANNOTATIONS` (kept
    where the target keeps them; those it refuses said in the description, PS419, as the
    general path says them): a copy, its members copied as the walk copies leaves. Only where the target takes type
    lists and ``anyOf`` beside those keywords (not Gemini, whose null unions are
    rewritten); members with an ``enum`` are left to the general path (its counts).
    None for any other node (nothing recorded then)."""
    members = node["anyOf"]
    if type(members) is not list or not members:
        return None
    allowed = ctx.allowed_node
    gone = None
    for k in node:
        if k == "anyOf" or k == "title" or (k == "description" and type(node[k]) is str):
            if allowed is not None and k not in allowed:
                return None
            continue
        if k in ANNOTATIONS:  # (kept where the target takes it: nothing looks at it)
            if allowed is not None and k not in allowed:
                gone = [k] if gone is None else [*gone, k]
            continue
        return None
    if gone is not None and not ctx.rules.annotations.issuperset(gone):
        return None
    for m in members:
        if type(m) is not dict or "enum" in m or not leaf(m):
            return None
    rest = {k: v for k, v in node.items() if gone is None or k not in gone}
    rest["anyOf"] = [dict(m) for m in members]
    if gone is not None:
        _said(node, rest, gone, p, ctx)
    return rest


def ref_leaf(node: dict, p: Any, ctx: Ctx) -> dict | None:
    """``{"$ref": R}`` kept as it is, as the general path keeps it: the target keeps
    references (not Gemini's or Ollama's inlining), ``R`` is local, points at something
    and, in strict mode, into where strict mode resolves and recursion is allowed; the
    check the general path makes of it is recorded (``ctx.refs``, which :func:`plistspec.
    lowering.check.finish` resolves in the lowered schema). None for any other node."""
    ref = node["$ref"]
    if type(ref) is not str or not ref.startswith("#") or ctx.inline_all:
        return None
    s = ctx.strict
    if s is not None and (not s["recursion"] or not ref_target_ok(ref, s)):
        return None
    if not resolve_pointer(ctx.original, ref)[0]:
        return None
    ctx.refs.append((p, ref))
    return {"$ref": ref}


def empty_root(params: dict, rules: Rules) -> dict | None:
    """The plain lowering of ``{"type": "object", "properties": {}}``, the parameters of a
    tool without arguments (a fifth of real tools; in strict mode it is refused before
    the walk, and then lowered plain): a copy, with no rewrite and nothing broken, where
    the target keeps both keywords at the root (what the walk finds, without its set-up);
    None for any other schema."""
    if params.keys() != _EMPTY_KEYS or params["type"] != "object":
        return None
    props = params["properties"]
    if type(props) is not dict or props:
        return None
    allowed = rules.plain_sets[0]
    if allowed is not None and not _EMPTY_KEYS <= allowed:
        return None
    out = dict(params)  # (the keys in their order)
    out["properties"] = {}
    return out


#: the keywords of the array node and the union node :func:`array_node` and
#: :func:`union_node` take, besides ``type``/``items`` and ``anyOf``
_NAMED = frozenset(("description", "title"))
_ARRAY_NODE = _NAMED | {"type", "items"}
_UNION_NODE = _NAMED | {"anyOf"}
_ARRAY_OR_NULL = ["array", "null"]


def array_node(node: dict, p: Any, ctx: Ctx, lists_ok: bool) -> dict | None:
    """``{"type": "array", "items": S}`` (``S`` any schema; with a description and a
    title where the target keeps them; typed ``["array", "null"]`` where it takes type
    lists), the commonest node that is neither a leaf nor an object (an array of
    objects or of references): no rewrite applies to it and no rule of any target, strict
    or not, refuses it (its ``items`` are walked as on the general path). With
    annotations of :data:`ANNOTATIONS` (FastMCP's ``default: []``): kept where the target
    keeps them, else said in the description (PS419) as the general path says them. A copy; None
    for any other node (nothing recorded then). Not the root, not inside an inlined
    definition."""
    gone = None
    if not node.keys() <= _ARRAY_NODE:
        if "items" not in node or (gone := _refused(node, ctx, _ARRAY_NODE)) is False:
            return None
    if type(node["items"]) is not dict:
        return None
    t = node["type"] if "type" in node else None
    if t != "array" and not (lists_ok and t == _ARRAY_OR_NULL):
        return None
    if "description" in node and type(node["description"]) is not str:
        return None
    return _kept(node, p, ctx, gone)


def _kept(node: dict, p: Any, ctx: Ctx, gone: Any) -> dict | None:
    """A copy of ``node`` (without the annotations ``gone``, said in its description)
    where the target keeps each of its other keywords; else None."""
    allowed = ctx.allowed_node
    if gone is None:
        if allowed is not None and not node.keys() <= allowed:
            return None
        return dict(node)
    rest = {k: v for k, v in node.items() if k not in gone}
    if allowed is not None and not rest.keys() <= allowed:
        return None
    return _said(node, rest, gone, p, ctx)


def union_node(node: dict, p: Any, ctx: Ctx) -> dict | None:
    """``{"anyOf": [...]}`` (with a description and a title where the target keeps them)
    whose members are not all leaves (:func:`union_leaf` takes those), for a target that
    takes type lists and object keywords on any node (not Gemini, whose unions of null are
    rewritten): no rewrite applies to the node itself and no rule refuses it (a union
    needs no type, strict mode's neither); its members are walked as on the general path.
    With annotations (pydantic's ``default: null``): kept or said in the description
    (PS419), as :func:`array_node`. A copy; None for any other node. Not
    the root, not inside an inlined definition."""
    gone = None
    if not node.keys() <= _UNION_NODE:
        if "anyOf" not in node or (gone := _refused(node, ctx, _UNION_NODE)) is False:
            return None
    members = node["anyOf"]
    if type(members) is not list or not members:
        return None
    if "description" in node and type(node["description"]) is not str:
        return None
    r = ctx.rules
    if r.type_list == "nullable" or r.object_keywords_only or r.type_required:
        return None
    return _kept(node, p, ctx, gone)
