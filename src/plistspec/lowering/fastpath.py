"""The commonest object node of a tool schema, lowered and checked in one step.

Owns: :func:`object_node`. Most nodes that are not leaves are the root of a tool, or an
object argument, written as ``{"type": "object", "properties": {...}, "required": [...],
"description": "...", "additionalProperties": false}`` (any of the last three left out;
typed ``["object", "null"]`` where the target takes type lists, as strict mode writes an
optional object argument; the root of a tool without arguments, ``properties: {}``,
outside strict mode). For such a node every per-node step of the walk is known in
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
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsontypes import only_strings
from plistspec.lowering.check import check_node, count_properties
from plistspec.lowering.context import Ctx
from plistspec.lowering.rules import Rules
from plistspec.lowering.strict import close_object

__all__ = ["object_node", "empty_root", "FLAT_KEYS"]

#: the keywords of the node this path takes (``type`` and ``properties`` always there)
FLAT_KEYS = frozenset(("type", "properties", "required", "description", "additionalProperties"))
_AP = frozenset(("additionalProperties",))
#: keywords of a property that make :func:`plistspec.lowering.objects.object_rules` look
#: closer at the parent (a recursive ``$ref`` in a required property, for Gemini)
_REFS = frozenset(("$ref", "anyOf", "oneOf"))
#: an optional object argument as strict mode writes it (required, null allowed)
_NULLABLE = ["object", "null"]
_EMPTY_KEYS = frozenset(("type", "properties"))


def object_node(node: dict, p: Any, root: bool, depth: int, ctx: Ctx) -> dict | None:
    """``node`` (a dict with ``properties``, not inside an inlined definition) lowered, its
    rewrites recorded and its checks made, as the general path would at ``depth``; None
    when it is not the node this path takes (nothing is recorded then)."""
    if not node.keys() <= FLAT_KEYS:
        return None
    t = node["type"] if "type" in node else None
    if t != "object" and (root or t != _NULLABLE or ctx.rules.type_list == "nullable"):
        return None  # (the root must be an object; Gemini rewrites a type list)
    props = node["properties"] if "properties" in node else None
    if type(props) is not dict:
        return None
    if not props and (ctx.strict is not None or not root):
        return None  # (no properties: strict mode's refusal, Gemini's report)
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
            return None
    new = dict(node)
    if s is None:
        return new
    close_object(new, p, ctx, node)
    if (s["closed_objects"] and new.get("additionalProperties") is not False) or (
        s["all_required"] and new.get("required") != list(new["properties"])
    ):  # not what close_object leaves: the checks say what is wrong
        check_node(new, p, root, depth, ctx)
        return new
    count_properties(props, depth, ctx.stats)
    return new


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
