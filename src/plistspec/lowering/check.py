"""The target's rules, checked on each node as the lowering walk makes it.

Owns: :func:`check_node` (one lowered node against the rules of
``grammars/providers/rules.json``: the checks of :func:`plistspec.lowering.validate.
schema_violations`, made in the same pass as the rewrites, since a node is final once
the walk leaves it: its children are rewritten later, never it) and :func:`finish` (what
needs the whole schema: ``$ref`` targets, strict mode's size, depth and recursion
limits). ``validate.schema_violations`` stays the independent check (``check --target``,
the tests run it on every lowered schema); this one is what ``--lower`` runs on its own
output, and refuses to emit (or to mark strict) what fails.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsontypes import JSON_TYPES, only_strings
from plistspec.core.jsonutil import ptr, resolve_pointer
from plistspec.lowering.context import Ctx
from plistspec.lowering.rules import GEMINI_OBJECT_KEYS, ref_target_ok
from plistspec.lowering.strict import enum_violations as _strict_enum
from plistspec.lowering.strict import value_violations

__all__ = ["check_node", "finish", "count_properties"]

_SKIP = frozenset(("description", "title"))


def check_node(node: dict, p: Any, root: bool, depth: int, ctx: Ctx) -> None:
    """Append ``(pointer, message)`` to ``ctx.violations`` for each rule ``node`` breaks."""
    r = ctx.rules
    s = ctx.strict
    out = ctx.violations
    stats = ctx.stats
    if root:
        if node.get("type") != "object":
            out.append(("/type", 'the root schema must have type "object"'))
        if (s is not None or not r.root_composition) and (
            "anyOf" in node or "oneOf" in node or "allOf" in node
        ):
            out.append(("", f"{r.name} refuses anyOf/oneOf/allOf at the root"))
    allowed = ctx.allowed_root if root else ctx.allowed_node
    if allowed is not None and not node.keys() <= allowed:
        for key in node:
            if key not in allowed and not (
                key == "additionalProperties"
                and node[key] is False
                and r.additional == "false-only"
            ):
                out.append((ptr(p, key), f"{r.name} refuses the keyword {key}"))
    t = node.get("type")
    types: Any = None
    if t is not None:
        if type(t) is str:
            types = (t,)
            if t not in JSON_TYPES:
                out.append((ptr(p, "type"), f"type must name JSON types, not {t!r}"))
        elif type(t) is list:
            types = t
            if not all(type(x) is str and x in JSON_TYPES for x in t):
                out.append((ptr(p, "type"), f"type must name JSON types, not {t!r}"))
            elif r.type_list == "nullable":
                out.append((ptr(p, "type"), f"{r.name} refuses a list of types"))
        else:
            out.append((ptr(p, "type"), f"type must name JSON types, not {t!r}"))
    elif r.type_required and "anyOf" not in node:
        out.append((p, f"{r.name} needs a type on every schema"))
    if len(node) == 1 and t is not None and t != "object" and t != "array":
        return  # {"type": T}: nothing else to check (the common leaf)
    enum = node.get("enum")
    if enum is not None:
        if type(enum) is not list:
            out.append((ptr(p, "enum"), "enum must be an array"))
        else:
            stats[1] += len(enum)
            kind = r.enum_kind
            if kind == "strings":
                if any(type(x) is not str for x in enum):
                    out.append((ptr(p, "enum"), f"{r.name} accepts only strings in enum"))
            elif kind == "strings-numbers":
                if any(type(x) not in (str, int, float) for x in enum):
                    out.append(
                        (ptr(p, "enum"), f"{r.name} accepts only strings and numbers in enum")
                    )
            if s is not None:
                stats[2] += sum(len(x) for x in enum if type(x) is str)
                _strict_enum(enum, p, s, out)
    if "$ref" in node:
        _ref(node, p, ctx)
    if types is not None:
        if r.items_required and "array" in types and "items" not in node:
            if "prefixItems" not in node:
                out.append((p, f"{r.name} rejects an array schema without items"))
    if r.object_keywords_only and (types is None or "object" not in types):
        for k in GEMINI_OBJECT_KEYS:
            if k in node:
                out.append((ptr(p, k), f"{r.name} refuses {k} on a schema not typed object"))
    if not r.anyof_with_type and t is not None and "anyOf" in node:
        out.append((p, f"{r.name} refuses type beside anyOf"))
    f = node.get("format")
    if f is not None:
        fm = ctx.formats
        if fm is not None and f not in fm:
            out.append((ptr(p, "format"), f"{r.name} refuses the format {f!r}"))
        if r.type_required and (types is None or "string" not in types):
            out.append((ptr(p, "format"), f"{r.name} takes format on strings only"))
    d = node.get("description")
    if d is not None and type(d) is not str:
        out.append((ptr(p, "description"), "description must be a string"))
    props = node.get("properties")
    if props is not None:
        if type(props) is not dict:
            out.append((ptr(p, "properties"), "properties must be an object"))
            props = None
        elif s is not None:
            count_properties(props, depth, stats)
    req = node.get("required")
    if req is not None:
        if type(req) is not list or not only_strings(map(type, req)):
            out.append((ptr(p, "required"), "required must be an array of strings"))
        elif req and (r.required_in_properties or s is not None):
            have = props or {}
            if not all(map(have.__contains__, req)):  # (a dict: one lookup each, in C)
                for x in req:
                    if x not in have:
                        out.append((ptr(p, "required"), f"required names {x!r}, not a property"))
                        break
    ap = node.get("additionalProperties")
    if r.additional == "false-only" and ap is not None and ap is not False:
        out.append(
            (ptr(p, "additionalProperties"), f"{r.name} keeps only additionalProperties: false")
        )
    if s is not None:
        _strict(node, p, types, props, ap, s, out)


def count_properties(props: dict, depth: int, stats: list) -> None:
    """Strict mode's counts of an object's ``properties`` at object depth ``depth``, in
    ``ctx.stats`` (:func:`finish` holds them to the limits): the properties, the
    characters of their names, the deepest object. The walk's fast path
    (:mod:`.fastpath`) counts here too."""
    stats[0] += len(props)
    try:
        stats[2] += len("".join(props))  # the names' characters
    except TypeError:  # a key that is no string (a Python caller's dict)
        stats[2] += sum(len(str(k)) for k in props)
    if depth > stats[3]:
        stats[3] = depth


def _strict(node: dict, p: Any, types: Any, props: Any, ap: Any, s: dict, out: list) -> None:
    if (types is not None and "object" in types) or (types is None and props is not None):
        if s["closed_objects"] and ap is not False:
            out.append((p, "strict mode needs additionalProperties: false on every object"))
    if s["typed_nodes"] and types is None and "anyOf" not in node and "$ref" not in node:
        out.append((p, "strict mode needs a type on every schema"))
    if s["all_required"] and props is not None:
        req = node.get("required")
        if not (type(req) is list and len(req) == len(props) and req == list(props)):
            have = set(req) if type(req) is list else set()
            for k in props:
                if k not in have:
                    out.append(
                        (ptr(p, "required"), f"strict mode needs every property required: {k!r}")
                    )
                    break
    value_violations(node, p, s, out)


def _ref(node: dict, p: Any, ctx: Ctx) -> None:
    r = ctx.rules
    s = ctx.strict
    ref = node["$ref"]
    out = ctx.violations
    if type(ref) is not str or not ref.startswith("#"):
        out.append((ptr(p, "$ref"), f"the $ref {ref!r} is not local"))
        return
    ctx.refs.append((p, ref))
    if s is not None and not ref_target_ok(ref, s):
        out.append((ptr(p, "$ref"), f"strict mode resolves $ref into definitions only: {ref}"))
    if r.ref_mode == "inline-siblings" and any(k != "$ref" and not k.startswith("$") for k in node):
        out.append((p, f"{r.name} refuses keywords beside $ref"))
    if s is not None and not s["ref_siblings"] and len(node) > 1:
        out.append((p, "strict mode refuses keywords beside $ref"))


def finish(lowered: Any, ctx: Ctx) -> None:
    """The checks that need the whole lowered schema."""
    out = ctx.violations
    for p, ref in ctx.refs:
        if not resolve_pointer(lowered, ref)[0]:
            out.append((ptr(p, "$ref"), f"the $ref {ref} points at nothing"))
    s = ctx.strict
    if s is None:
        return
    props, enum, chars, depth = ctx.stats
    if s["max_properties"] is not None and props > s["max_properties"]:
        out.append(("", f"strict mode allows at most {s['max_properties']} properties"))
    if s["max_enum_values"] is not None and enum > s["max_enum_values"]:
        out.append(("", f"strict mode allows at most {s['max_enum_values']} enum values in all"))
    if s["max_chars"] is not None and chars > s["max_chars"]:
        out.append(("", f"strict mode allows at most {s['max_chars']} characters of names"))
    if s["max_depth"] is not None and depth > s["max_depth"]:
        out.append(("", f"strict mode allows at most {s['max_depth']} levels of nesting"))
    if not s["recursion"] and ctx.refs:
        from plistspec.lowering.refs import RefGraph

        cyc = RefGraph(lowered).first_cycle()
        if cyc is not None:
            out.append(("", f"strict mode refuses the recursive $ref {cyc}"))
