"""Lowering one parameters schema for one target: the walk and the per-node rewrites.

Owns: :func:`lower_schema`. The walk is iterative (a work list, never the call stack);
each node goes through the rewrites in a fixed order (``$ref`` / ``allOf`` / root
composition until stable, ``oneOf``, nullability and type lists, ``const``, ``enum``,
strict closing, unsupported keywords into the description, ``format``, array ``items``,
node ``type``), then its subschemas are queued. Every rewrite is a :class:`Change` at
the JSON pointer of the node in the lowered schema: ``info`` when the lowered schema
accepts exactly what the original did, ``warning`` when it accepts more or less,
``error`` when the target cannot express the schema (the caller then emits nothing).
What the target's rules are comes from :mod:`plistspec.lowering.rules`; this module
only knows JSON Schema.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsonutil import (
    ROOT,
    add_note,
    brief,
    jcopy,
    ptr,
    resolve_pointer,
    subschemas,
)
from plistspec.lowering.context import Change, Ctx
from plistspec.lowering.merge import flatten_union, merge_all
from plistspec.lowering.nodes import rewrite_node
from plistspec.lowering.rules import Rules

__all__ = ["Change", "lower_schema"]


def lower_schema(
    params: dict[str, Any], rules: Rules, strict: bool = False
) -> tuple[dict[str, Any], list[Change], list[str]]:
    """``params`` lowered for ``rules`` (with its strict mode when ``strict``), the
    changes made and notes that belong in the tool's description (keywords of the root
    that the target keeps nowhere else)."""
    params, moved = defs_home(params, rules)
    original = jcopy(params)
    ctx = Ctx(rules, strict, original, budget=200_000 + 20 * _size(params))
    if moved:
        ctx.add("", "PS412", "info", "definitions moved into $defs (and every $ref to them)")
    holder: dict[str, Any] = {"": jcopy(params)}
    work: list[tuple[Any, Any, str, frozenset[str], bool]] = [
        (holder, "", ROOT, frozenset(("#",)), True)
    ]
    while work:
        cont, key, pointer, refs, is_root = work.pop()
        ctx.budget -= 1
        if ctx.budget < 0:
            ctx.add(pointer, "PS413", "error", "inlining $ref makes the schema too large")
            break
        if isinstance(cont[key], bool) and key == "additionalProperties":
            continue  # additionalProperties: true/false is the keyword's own value
        node, refs = _rewrite(cont[key], pointer, refs, is_root, ctx)
        cont[key] = node
        if isinstance(node, dict):
            subs = list(subschemas(node))
            for parts, c, k in reversed(subs):
                work.append((c, k, ptr(pointer, *parts), refs, False))
    changes = [c._replace(pointer=str(c.pointer)) for c in ctx.changes]
    return holder[""], changes, ctx.tool_notes


def _size(value: Any) -> int:
    n = 0
    work = [value]
    while work:
        v = work.pop()
        n += 1
        if isinstance(v, dict):
            work.extend(v.values())
        elif isinstance(v, list):
            work.extend(v)
    return n


def _rewrite(
    node: Any, p: str, refs: frozenset[str], root: bool, ctx: Ctx
) -> tuple[Any, frozenset[str]]:
    if isinstance(node, bool) and (ctx.rules["type_required"] or ctx.strict is not None):
        new = {} if node is True else {"not": {}}
        ctx.add(p, "PS419", "info", f"the boolean schema {brief(node)} written as {brief(new)}")
        node = new
    if not isinstance(node, dict):
        if isinstance(node, bool):
            return node, refs
        ctx.add(p, "PS428", "error", f"a schema must be an object, not {brief(node, 60)}")
        return {}, refs
    node = dict(node)
    _shape(node, p, ctx)
    _type_names(node, p, ctx)
    for _ in range(10_000):
        if "$ref" in node:
            node, refs, again = _ref(node, p, refs, ctx)
            if again:
                continue
        if "allOf" in node and _merge_allof(node, ctx):
            node, refs = _allof(node, p, refs, ctx)
            continue
        if root and not _root_composition_ok(ctx) and ("anyOf" in node or "oneOf" in node):
            node, refs = _flatten(node, p, refs, ctx)
            continue
        break
    rewrite_node(node, p, root, ctx)
    return node, refs


# --- $ref, allOf, root composition -------------------------------------------------------


def _ref(node: dict, p: str, refs: frozenset[str], ctx: Ctx) -> tuple[dict, frozenset[str], bool]:
    ref = node["$ref"]
    siblings = {k: v for k, v in node.items() if k != "$ref"}
    mode = ctx.rules["ref"]
    must = mode == "inline"
    if mode == "inline-siblings" and any(not k.startswith("$") for k in siblings):
        must = True
    if ctx.strict is not None and not ctx.strict["ref_siblings"] and siblings:
        must = True
    if not isinstance(ref, str) or not ref.startswith("#"):
        ctx.add(p, "PS413", "error", f"the $ref {brief(ref)} is not local: it cannot be resolved")
        return siblings, refs, True
    found, target = resolve_pointer(ctx.original, ref)
    if not found:
        ctx.add(p, "PS413", "error", f"the $ref {ref} points at nothing")
        return siblings, refs, True
    if not must:
        return node, refs, False
    if ref in refs:
        how = ctx.rules["cycle"]
        cyc = f"the $ref {ref} is recursive (it refers back to a schema that contains it)"
        if how == "keep":
            if "anyOf" in siblings:
                ctx.add(p, "PS413", "error", f"{cyc}; it cannot be inlined beside anyOf")
                return siblings, refs, True
            new = {k: v for k, v in siblings.items()}
            new["anyOf"] = [{"$ref": ref}]
            ctx.add(p, "PS412", "info", f"{cyc}: kept as anyOf [{{$ref}}] beside its keywords")
            return new, refs, False
        if how == "loosen":
            new = {k: v for k, v in siblings.items() if not k.startswith("$")}
            add_note(new, f"recursive {ref}")
            ctx.add(p, "PS413", "warning", f"{cyc}: {ctx.rules.name} drops $ref, any value fits")
            return new, refs, True
        ctx.add(p, "PS413", "error", f"{cyc}; {ctx.rules.name} cannot express recursion")
        return siblings, refs, True
    inlined = jcopy(target)
    if inlined is True:
        inlined = {}
    if not isinstance(inlined, dict):
        inlined = {"not": {}}
    if all(k in ("description", "title") or k.startswith("$") for k in siblings):
        new = dict(inlined)
        new.update({k: v for k, v in siblings.items() if k not in ("$defs", "definitions")})
    else:
        new = {"allOf": [inlined, siblings]}
    ctx.add(p, "PS412", "info", f"inlined $ref {ref}")
    return new, refs | {ref}, True


def _merge_allof(node: dict, ctx: Ctx) -> bool:
    if ctx.rules["allOf"] == "merge":
        return True
    if ctx.strict is not None:
        if "allOf" in ctx.strict["reject"]:
            return True
        members = node.get("allOf")
        return isinstance(members, list) and any(
            isinstance(m, dict) and "$ref" in m for m in members
        )
    return False


def _inline_members(
    members: list, p: str, refs: frozenset[str], ctx: Ctx
) -> tuple[list, frozenset[str]]:
    out = []
    for m in members:
        if not isinstance(m, (dict, bool)):
            ctx.add(p, "PS428", "error", f"a member {brief(m, 40)} is not a schema")
            continue
        if isinstance(m, dict):
            m = dict(m)
            _shape(m, p, ctx)
        mine = refs  # each member expands from the parent's path, not its siblings
        for _ in range(1000):
            if not (isinstance(m, dict) and "$ref" in m):
                break
            ref = m["$ref"]
            if isinstance(ref, str) and ref in mine:
                break
            m, mine, _again = _ref_inline(m, p, mine, ctx)
        out.append(m)
    # the merged node's children go on from the parent's path: a recursion through a
    # member is still found one expansion later, and siblings never look recursive
    return out, refs


def _ref_inline(m: dict, p: str, refs: frozenset[str], ctx: Ctx):
    saved = ctx.rules.data.get("ref")
    ctx.rules.data["ref"] = "inline"
    try:
        return _ref(m, p, refs, ctx)
    finally:
        ctx.rules.data["ref"] = saved


def _allof(node: dict, p: str, refs: frozenset[str], ctx: Ctx) -> tuple[dict, frozenset[str]]:
    members = node.pop("allOf")
    if not isinstance(members, list):
        ctx.add(p, "PS428", "error", "allOf must be an array")
        return node, refs
    members, refs = _inline_members(members, p, refs, ctx)
    cyc = [m for m in members if isinstance(m, dict) and "$ref" in m]
    if cyc:
        ctx.add(p, "PS413", "error", f"allOf holds the recursive $ref {cyc[0]['$ref']}")
        members = [m for m in members if m not in cyc]
    merged, losses = merge_all(node, members)
    if losses:
        for note in losses:
            add_note(merged, f"allOf: {note}")
        ctx.add(p, "PS418", "warning", "merged allOf into one schema, losing: " + "; ".join(losses))
    else:
        ctx.add(p, "PS418", "info", "merged allOf into one schema")
    return merged, refs


def _root_composition_ok(ctx: Ctx) -> bool:
    if ctx.strict is not None:
        return False
    return bool(ctx.rules["root_composition"])


def _flatten(node: dict, p: str, refs: frozenset[str], ctx: Ctx) -> tuple[dict, frozenset[str]]:
    members: list = []
    for key in ("anyOf", "oneOf"):
        v = node.pop(key, None)
        if isinstance(v, list):
            members.extend(v)
    members, refs = _inline_members(members, p, refs, ctx)
    members = [
        _merge_member(m, p, refs, ctx) if isinstance(m, dict) and "allOf" in m else m
        for m in members
    ]
    flat, losses = flatten_union(node, members)
    if flat is None:
        ctx.add(p, "PS428", "error", f"{ctx.rules.name} needs an object at the root: {losses[0]}")
        return node, refs
    ctx.add(p, "PS427", "warning", f"root anyOf/oneOf flattened: {losses[0]}")
    return flat, refs


def _merge_member(m: dict, p: str, refs: frozenset[str], ctx: Ctx) -> dict:
    m = dict(m)
    raw = m.pop("allOf")
    members, _ = _inline_members(raw if isinstance(raw, list) else [], p, refs, ctx)
    merged, _losses = merge_all(
        m, [x for x in members if not (isinstance(x, dict) and "$ref" in x)]
    )
    return merged


_JSON_TYPES = frozenset("string number integer boolean array object null".split())


def _type_names(node: dict, p: str, ctx: Ctx) -> None:
    """Gemini's upper-case type names (``STRING``) as JSON Schema's (``string``)."""
    t = node.get("type")
    names = [t] if isinstance(t, str) else t if isinstance(t, list) else []
    if not all(isinstance(x, str) for x in names):
        return
    low = [x.lower() if x.lower() in _JSON_TYPES else x for x in names]
    if low != names:
        node["type"] = low[0] if isinstance(t, str) else low
        ctx.add(p, "PS414", "info", f"the type {brief(t)} written in lower case")


def defs_home(params: dict, rules: Rules) -> tuple[dict, bool]:
    """Draft-07 ``definitions`` moved into ``$defs`` (and every ``$ref`` to them rewritten)
    for a target that keeps references but not ``definitions``."""
    if not isinstance(params.get("definitions"), dict) or rules.allowed("definitions", True):
        return params, False
    if not rules.allowed("$defs", True) or rules["ref"] == "inline":
        return params, False
    defs = dict(params.get("$defs") or {})
    if set(defs) & set(params["definitions"]):
        return params, False
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


_SHAPES: dict[str, tuple[type, ...]] = {
    "properties": (dict,),
    "$defs": (dict,),
    "definitions": (dict,),
    "required": (list,),
    "enum": (list,),
    "anyOf": (list,),
    "oneOf": (list,),
    "allOf": (list,),
    "prefixItems": (list,),
    "items": (dict, list, bool),
    "additionalProperties": (dict, bool),
    "not": (dict, bool),
    "$ref": (str,),
    "format": (str,),
    "pattern": (str,),
    "type": (str, list),
}


def _shape(node: dict, p: Any, ctx: Ctx) -> None:
    """A keyword whose value has the wrong JSON type is not JSON Schema: an error, removed."""
    for key, kinds in _SHAPES.items():
        if key in node and not isinstance(node[key], kinds):
            v = node.pop(key)
            ctx.add(p, "PS428", "error", f"{key} must be {_kind_names(kinds)}, not {brief(v, 60)}")
    if "description" in node and not isinstance(node["description"], str):
        v = node.pop("description")
        ctx.add(p, "PS429", "info", f"removed the description {brief(v, 40)}: not a string")
    t = node.get("type")
    if isinstance(t, list) and not all(isinstance(x, str) for x in t):
        node["type"] = [x for x in t if isinstance(x, str)]
        ctx.add(p, "PS428", "error", "a type list must hold type names (strings)")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems", "items"):
        v = node.get(key)
        if isinstance(v, list) and not all(isinstance(m, (dict, bool)) for m in v):
            node[key] = [m for m in v if isinstance(m, (dict, bool))]
            ctx.add(p, "PS428", "error", f"the members of {key} must be schemas (objects)")
    for key in ("properties", "$defs", "definitions"):
        v = node.get(key)
        if isinstance(v, dict) and not all(isinstance(m, (dict, bool)) for m in v.values()):
            node[key] = {k: m for k, m in v.items() if isinstance(m, (dict, bool))}
            ctx.add(p, "PS428", "error", f"the values of {key} must be schemas (objects)")
    if isinstance(node.get("items"), list):
        if "prefixItems" not in node:
            node["prefixItems"] = node.pop("items")
            ctx.add(p, "PS430", "info", "draft-4 items array written as prefixItems (2020-12)")
        else:
            del node["items"]
            ctx.add(p, "PS428", "error", "an items array beside prefixItems is not 2020-12")
    req = node.get("required")
    if isinstance(req, list) and not all(isinstance(x, str) for x in req):
        node["required"] = [x for x in req if isinstance(x, str)]
        ctx.add(p, "PS428", "error", "required must list property names (strings)")


def _kind_names(kinds: tuple[type, ...]) -> str:
    names = {dict: "an object", list: "an array", bool: "a boolean", str: "a string"}
    return " or ".join(names[k] for k in kinds)
