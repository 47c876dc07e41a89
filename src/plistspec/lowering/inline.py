"""``$ref``, ``allOf`` and root unions in a lowering walk: what is settled before a node's
own rewrites.

Owns: :func:`settle` (until the node is stable: a ``$ref`` the target needs inlined is
written inline, a recursive one kept, loosened or refused as the target says; ``allOf``
merged where the target refuses it; a root ``anyOf``/``oneOf`` flattened into one object
where the root may not be a union). Inlining makes a new node from the definition (the
input is never changed) and makes the reference active until the walk leaves the node,
so a reference back to it is found at once. Once a few thousand inlined nodes are
written, the whole expansion is measured (:func:`plistspec.lowering.refs.expanded_size`,
linear): past ``from-json``'s bound the tool is refused (PS519) then and there.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from plistspec.core.jsonutil import ROOT, Ptr, add_note, brief, resolve_pointer
from plistspec.lowering.context import LOSSLESS, WIDENS, Ctx
from plistspec.lowering.merge import flatten_union, merge_all
from plistspec.lowering.rules import ref_target_ok
from plistspec.lowering.shape import shape

__all__ = ["settle", "graph", "pointer_of", "check_size"]


def graph(ctx: Ctx):
    """The :class:`~plistspec.lowering.refs.RefGraph` of the schema (built once)."""
    if ctx.graph is None:
        from plistspec.lowering.refs import RefGraph

        ctx.graph = RefGraph(ctx.original)
    return ctx.graph


def settle(
    node: dict, p: Any, root: bool, home: Any, ctx: Ctx, origin: Any
) -> tuple[dict, tuple[str, ...] | None, Any, Any, Any]:
    """``(node, refs made active, home, origin, pointer)`` once no ``$ref``/``allOf``/root
    union the target refuses is left at ``node``. ``pointer`` is where the node's own
    rewrites are reported: once a definition is written in its place, the definition's
    (so that its rewrites, reported once, say where they are in the input)."""
    added: list[str] = []
    root_ok = root and ctx.strict is None and ctx.rules.root_composition
    made = False  # an allOf this function wrote at the root (a $ref beside its keywords)
    for _ in range(100_000):
        if "$ref" in node:
            before = origin
            # a root reference (zod-to-json-schema's named root) is written inline for a
            # strict mode: the root must be the object that strict mode checks
            force = root and ctx.strict is not None
            node, ref, home, again, origin = _ref(node, p, home, ctx, origin, force)
            made = (
                root
                and ref is not None
                and len(node) == 1
                and type(node.get("allOf")) is list
                and len(node["allOf"]) == 2
                and node["allOf"][0] is home
            )
            if ref is not None:
                added.append(ref)
                ctx.active[ref] = 1
                ctx.dedupe = True  # the definition may be written at other places too
                if origin is not before:  # the definition itself, as it is in the input
                    p = pointer_of(ref)
            if ctx.failed:
                break
            if again:
                continue
        if "allOf" in node and (made or _merge_allof(node, ctx)):
            # the allOf inlining wrote at the root is merged even where the target keeps
            # allOf: it is not the input's, and a root allOf is refused by the targets
            # that inline (moved into the description, the root would lose its type)
            made = False
            node = _allof(node, p, home, ctx, origin)
            continue
        if root and not root_ok and ("anyOf" in node or "oneOf" in node):
            node = _flatten(node, p, home, ctx, origin)
            continue
        break
    return node, (tuple(added) if added else None), home, origin, p


@lru_cache(maxsize=1024)
def pointer_of(ref: str) -> Any:
    """The local ``$ref`` ``#/$defs/A`` as a pointer of the schema (``/$defs/A``); made
    once per reference (a pointer is never changed, only its text kept once written)."""
    from urllib.parse import unquote

    out: Any = ROOT
    for raw in ref[1:].split("/")[1:]:
        out = Ptr(out, unquote(raw).replace("~1", "/").replace("~0", "~"))
    return out


def _must_inline(node: dict, ref: str, ctx: Ctx) -> bool:
    mode = ctx.rules.ref_mode
    if mode == "inline":
        return True
    s = ctx.strict
    if mode == "inline-siblings" or (s is not None and not s["ref_siblings"]):
        for k in node:
            if k != "$ref" and (s is not None and not s["ref_siblings"] or not k.startswith("$")):
                return True
    if s is not None and not ref_target_ok(ref, s):
        return True  # strict mode resolves references into definitions only
    return False


def _ref(
    node: dict, p: Any, home: Any, ctx: Ctx, origin: Any, force: bool
) -> tuple[dict, str | None, Any, bool, Any]:
    """``(node, the ref made active, home, look again, origin)``."""
    ref = node["$ref"]
    siblings = {k: v for k, v in node.items() if k != "$ref"}
    if not ref.startswith("#"):  # never fetched (MCP: MUST NOT): loosened, loudly
        ctx.block(p, f"the $ref {ref} is not local")
        add_note(siblings, f"a value of {ref}")
        ctx.add(
            p,
            "PS413",
            WIDENS,
            f"the $ref {brief(ref)} is not local (it is never fetched): removed, so the "
            "schema takes any value (said in the description)",
            origin,
        )
        return siblings, None, home, True, origin
    found, target = resolve_pointer(ctx.original, ref)
    if not found:
        ctx.error(p, "PS413", f"the $ref {ref} points at nothing", origin)
        ctx.block(p, f"the $ref {ref} points at nothing")
        return siblings, None, home, True, origin
    s = ctx.strict
    if s is not None and not s["recursion"]:
        cycle = graph(ctx).first_cycle()
        if cycle is not None:
            ctx.block(p, f"the $ref {cycle} is recursive")
    if not force and not _must_inline(node, ref, ctx):
        return node, None, home, False, origin
    if ref in ctx.active:
        return _recursive(ref, siblings, p, home, ctx, origin)
    if target is True:
        target = {}
    if type(target) is not dict:
        new: dict = {"not": {}}
        target_origin = origin
    elif all(k in ("description", "title") or k.startswith("$") for k in siblings):
        new = dict(target)
        new.update({k: v for k, v in siblings.items() if k not in ("$defs", "definitions")})
        target_origin = target if not siblings else origin
    else:
        new = {"allOf": [target, siblings]}
        target_origin = origin
    ctx.add(p, "PS412", LOSSLESS, f"inlined $ref {ref}", origin)
    return new, ref, target, True, target_origin


def _recursive(
    ref: str, siblings: dict, p: Any, home: Any, ctx: Ctx, origin: Any
) -> tuple[dict, str | None, Any, bool, Any]:
    how = ctx.rules.cycle
    cyc = f"the $ref {ref} is recursive (it refers back to a schema that contains it)"
    if ctx.strict is not None and not ctx.strict["recursion"]:
        ctx.block(p, cyc)
    if how == "keep":
        if "anyOf" in siblings:
            ctx.error(p, "PS413", f"{cyc}; it cannot be inlined beside anyOf", origin)
            return siblings, None, home, True, origin
        new = dict(siblings)
        new["anyOf"] = [{"$ref": ref}]
        ctx.add(
            p, "PS412", LOSSLESS, f"{cyc}: kept as anyOf [{{$ref}}] beside its keywords", origin
        )
        return new, None, home, False, origin
    if how == "loosen":
        new = {k: v for k, v in siblings.items() if not k.startswith("$")}
        add_note(new, f"recursive {ref}")
        ctx.add(p, "PS413", WIDENS, f"{cyc}: {ctx.rules.name} drops $ref, any value fits", origin)
        return new, None, home, True, origin
    ctx.error(p, "PS413", f"{cyc}; {ctx.rules.name} cannot express recursion", origin)
    return siblings, None, home, True, origin


def check_size(p: Any, ctx: Ctx, origin: Any) -> None:
    """Refuse (PS519) a schema whose inlined form passes from-json's bound. The walk asks
    once it has written a few thousand nodes of inlined definitions (a small schema never
    pays for the measure)."""
    from plistspec.fromjson.refs import MAX_NODES
    from plistspec.lowering.refs import expanded_size

    ctx.sized = True
    size, worst = expanded_size(ctx.original, MAX_NODES)
    if size > MAX_NODES:
        which = f"; the largest definition is {worst!r}" if worst else ""
        ctx.error(
            p,
            "PS519",
            f"the schema expands to more than {MAX_NODES} objects and arrays when its $refs "
            f"are written inline{which}",
            origin,
        )
        ctx.failed = True


def _merge_allof(node: dict, ctx: Ctx) -> bool:
    if ctx.rules.all_of == "merge":
        return True
    s = ctx.strict
    if s is not None:
        if "allOf" not in s["keywords_set"]:
            return True
        members = node.get("allOf")
        return type(members) is list and any(type(m) is dict and "$ref" in m for m in members)
    return False


def _inline_members(members: list, p: Any, home: Any, ctx: Ctx, origin: Any) -> list:
    """Each member with its ``$ref`` chain inlined (a recursive one is left as a ``$ref``)."""
    out = []
    for m in members:
        if type(m) is dict:
            m = dict(m)
            shape(m, p, ctx, origin)
        mine: set[str] = set()  # each member expands from the parent's path
        for _ in range(100_000):
            if not (type(m) is dict and "$ref" in m):
                break
            ref = m["$ref"]
            if type(ref) is not str or ref in ctx.active or ref in mine:
                break
            m, got, _home, _again, _o = _ref(m, p, home, ctx, origin, True)
            if ctx.failed:
                return out
            if got is not None:
                mine.add(got)
        out.append(m)
    return out


def _allof(node: dict, p: Any, home: Any, ctx: Ctx, origin: Any) -> dict:
    members = node.pop("allOf")
    members = _inline_members(members, p, home, ctx, origin)
    cyc = [m for m in members if type(m) is dict and "$ref" in m]
    if cyc:
        ctx.block(p, f"allOf holds the recursive $ref {cyc[0]['$ref']}")
        ctx.error(p, "PS413", f"allOf holds the recursive $ref {cyc[0]['$ref']}", origin)
        members = [m for m in members if m not in cyc]
    merged, losses = merge_all(node, members)
    if losses:
        for note in losses:
            add_note(merged, f"allOf: {note}")
        ctx.add(
            p, "PS418", WIDENS, "merged allOf into one schema, losing: " + "; ".join(losses), origin
        )
    else:
        ctx.add(p, "PS418", LOSSLESS, "merged allOf into one schema", origin)
    return merged


def _flatten(node: dict, p: Any, home: Any, ctx: Ctx, origin: Any) -> dict:
    members: list = []
    for key in ("anyOf", "oneOf"):
        v = node.pop(key, None)
        if type(v) is list:
            members.extend(v)
    members = _inline_members(members, p, home, ctx, origin)
    members = [
        _merge_member(m, p, home, ctx, origin) if type(m) is dict and "allOf" in m else m
        for m in members
    ]
    flat, losses = flatten_union(node, members)
    if flat is None:
        ctx.block(p, f"the root union cannot be one object: {losses[0]}")
        ctx.error(p, "PS428", f"{ctx.rules.name} needs an object at the root: {losses[0]}", origin)
        return node
    ctx.add(p, "PS427", WIDENS, f"root anyOf/oneOf flattened: {losses[0]}", origin)
    return flat


def _merge_member(m: dict, p: Any, home: Any, ctx: Ctx, origin: Any) -> dict:
    m = dict(m)
    raw = m.pop("allOf")
    members = _inline_members(raw if type(raw) is list else [], p, home, ctx, origin)
    merged, _losses = merge_all(m, [x for x in members if not (type(x) is dict and "$ref" in x)])
    return merged
