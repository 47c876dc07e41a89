"""What a target would reject in a parameters schema or a tool: the rules of
``grammars/providers/rules.json`` as checks.

Owns: :func:`schema_violations` (every node of a parameters schema against one target's
rules, strict mode included when asked) and :func:`tool_violations` (name and
description). ``--lower`` runs them on its own output and refuses to emit what fails (a
strict schema that fails is sent non-strict); the tests hold lowered output to them;
``check --target`` reads the same table. Each violation is ``(JSON pointer, message)``.
Iterative, and linear in the schema (recursion is found on the ``$ref`` graph,
:class:`plistspec.lowering.refs.RefGraph`).
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsontypes import JSON_TYPES
from plistspec.core.jsonutil import ROOT, ptr, resolve_pointer, types_of
from plistspec.lowering.rules import GEMINI_OBJECT_KEYS, Rules, ref_target_ok, rules

__all__ = ["schema_violations", "tool_violations", "strict_violations"]


_COMPOSITION = ("anyOf", "oneOf", "allOf")
_ONE = frozenset(
    "items not if then else contains additionalProperties propertyNames additionalItems "
    "unevaluatedItems unevaluatedProperties contentSchema".split()
)
_LIST = frozenset(("anyOf", "oneOf", "allOf", "prefixItems"))
_MAP = frozenset(("properties", "$defs", "definitions", "patternProperties", "dependentSchemas"))


def _children(node: dict, p: Any, out: list) -> None:
    """Push ``(subschema, pointer, False)`` for every subschema of ``node`` onto ``out``."""
    for k, v in node.items():
        if k in _ONE:
            if type(v) is dict or v is True or v is False:
                out.append((v, ptr(p, k), False))
        elif k in _LIST:
            if type(v) is list:
                kp = ptr(p, k)
                for i, m in enumerate(v):
                    out.append((m, ptr(kp, i), False))
        elif k in _MAP:
            if type(v) is dict:
                kp = ptr(p, k)
                for name, m in v.items():
                    out.append((m, ptr(kp, name), False))
        elif k == "dependencies" and type(v) is dict:
            kp = ptr(p, k)
            for name, m in v.items():
                if type(m) is dict:
                    out.append((m, ptr(kp, name), False))


def schema_violations(
    params: Any, target: str | Rules, strict: bool = False, wire: bool = False
) -> list[tuple[str, str]]:
    """``(pointer, message)`` for everything ``target`` would reject in ``params``.

    ``wire``: judge JSON someone else sends (gptel/llm): keywords a target drops silently
    (``unknown_keywords: drop``, Ollama) are then not violations, only lowering's own
    output is held to keeping nothing the target would drop.
    """
    r = rules(target) if isinstance(target, str) else target
    if wire and r.get("unknown_keywords") == "drop":
        return [
            v for v in schema_violations(params, r, strict) if "refuses the keyword" not in v[1]
        ]
    s = r.strict if strict else None
    out: list[tuple[Any, str]] = []
    if not isinstance(params, dict):
        return [("", "parameters must be a JSON object")]
    if params.get("type") != "object":
        out.append(("/type", 'the root schema must have type "object"'))
    if (s is not None or not r.root_composition) and any(k in params for k in _COMPOSITION):
        out.append(("", f"{r.name} refuses anyOf/oneOf/allOf at the root"))
    work: list[tuple[Any, Any, bool]] = [(params, ROOT, True)]
    stats = {"props": 0, "enum": 0, "chars": 0, "refs": False}
    allowed_node = r.keywords
    allowed_root = r.root_keywords if r.root_keywords is not None else r.keywords
    if s is not None:
        ks = s["keywords_set"]
        allowed_node = ks if allowed_node is None else allowed_node & ks
        allowed_root = ks if allowed_root is None else allowed_root & ks
    while work:
        node, p, root = work.pop()
        if node is True or node is False:
            if p.endswith("additionalProperties"):
                continue
            if r.type_required or s is not None:
                out.append((p, f"{r.name} needs a schema object, not {str(node).lower()}"))
            continue
        if type(node) is not dict:
            out.append((p, "a schema must be a JSON object"))
            continue
        allowed = allowed_root if root else allowed_node
        if allowed is not None and not node.keys() <= allowed:
            for key in node:
                if key not in allowed and not (
                    key == "additionalProperties"
                    and node[key] is False
                    and r.additional == "false-only"
                ):
                    out.append((ptr(p, key), f"{r.name} refuses the keyword {key}"))
        _node(node, p, r, s, params, out, stats)
        _children(node, p, work)
    if s is not None:
        out.extend(strict_violations(params, r, stats))
    return [(str(p), m) for p, m in out]


def _node(
    node: dict, p: Any, r: Rules, s: dict | None, params: dict, out: list, stats: dict
) -> None:
    t = node.get("type")
    types = types_of(node)
    if t is not None:
        if types is None or any(x not in JSON_TYPES for x in types):
            out.append((ptr(p, "type"), f"type must name JSON types, not {t!r}"))
        elif type(t) is list and r.type_list == "nullable":
            out.append((ptr(p, "type"), f"{r.name} refuses a list of types"))
    enum = node.get("enum")
    if type(enum) is list:
        stats["enum"] += len(enum)
        stats["chars"] += sum(len(x) for x in enum if type(x) is str)
        kind = r.enum_kind
        if kind == "strings" and any(type(x) is not str for x in enum):
            out.append((ptr(p, "enum"), f"{r.name} accepts only strings in enum"))
        if kind == "strings-numbers" and any(type(x) not in (str, int, float) for x in enum):
            out.append((ptr(p, "enum"), f"{r.name} accepts only strings and numbers in enum"))
    elif "enum" in node:
        out.append((ptr(p, "enum"), "enum must be an array"))
    ref = node.get("$ref")
    if ref is not None:
        stats["refs"] = True
        if type(ref) is not str or not ref.startswith("#"):
            out.append((ptr(p, "$ref"), f"the $ref {ref!r} is not local"))
        elif not resolve_pointer(params, ref)[0]:
            out.append((ptr(p, "$ref"), f"the $ref {ref} points at nothing"))
        elif s is not None and not ref_target_ok(ref, s):
            out.append((ptr(p, "$ref"), f"strict mode resolves $ref into definitions only: {ref}"))
        if r.ref_mode == "inline-siblings" and any(
            k != "$ref" and not k.startswith("$") for k in node
        ):
            out.append((p, f"{r.name} refuses keywords beside $ref"))
        if s is not None and not s["ref_siblings"] and len(node) > 1:
            out.append((p, "strict mode refuses keywords beside $ref"))
    if r.items_required and types is not None and "array" in types:
        if "items" not in node and "prefixItems" not in node:
            out.append((p, f"{r.name} rejects an array schema without items"))
    if r.type_required and "type" not in node and "anyOf" not in node:
        out.append((p, f"{r.name} needs a type on every schema"))
    if not r.anyof_with_type and "type" in node and "anyOf" in node:
        out.append((p, f"{r.name} refuses type beside anyOf"))
    if r.object_keywords_only and (types is None or "object" not in types):
        for k in GEMINI_OBJECT_KEYS:
            if k in node:
                out.append((ptr(p, k), f"{r.name} refuses {k} on a schema not typed object"))
    f = node.get("format")
    if f is not None:
        fm = r.formats
        if s is not None:
            sf = r.strict_formats
            fm = sf if fm is None else (fm & sf if sf is not None else fm)
        if fm is not None and f not in fm:
            out.append((ptr(p, "format"), f"{r.name} refuses the format {f!r}"))
        if r.type_required and (types is None or "string" not in types):
            out.append((ptr(p, "format"), f"{r.name} takes format on strings only"))
    if "description" in node and type(node["description"]) is not str:
        out.append((ptr(p, "description"), "description must be a string"))
    props = node.get("properties")
    if props is not None and type(props) is not dict:
        out.append((ptr(p, "properties"), "properties must be an object"))
    if type(props) is dict:
        stats["props"] += len(props)
        stats["chars"] += sum(len(k) for k in props)
    req = node.get("required")
    if req is not None:
        if not (type(req) is list and all(type(x) is str for x in req)):
            out.append((ptr(p, "required"), "required must be an array of strings"))
        elif (r.required_in_properties or s is not None) and req:
            have = props if type(props) is dict else {}
            missing = [x for x in req if x not in have]
            if missing:
                out.append((ptr(p, "required"), f"required names {missing[0]!r}, not a property"))
    ap = node.get("additionalProperties")
    if r.additional == "false-only" and ap is not None and ap is not False:
        out.append(
            (ptr(p, "additionalProperties"), f"{r.name} keeps only additionalProperties: false")
        )
    if s is not None:
        _strict_node(node, p, types, s, out)


def _strict_node(node: dict, p: Any, types: list[str] | None, s: dict, out: list) -> None:
    is_obj = (types is not None and "object" in types) or (types is None and "properties" in node)
    if is_obj:
        ap = node.get("additionalProperties", None)
        if s["closed_objects"] and ap is not False:
            # (one without properties is free-form: the lowering sends it non-strict)
            out.append((p, "strict mode needs additionalProperties: false on every object"))
    if s.get("typed_nodes") and "type" not in node and "anyOf" not in node and "$ref" not in node:
        out.append((p, "strict mode needs a type on every schema"))
    props = node.get("properties")
    if s["all_required"] and type(props) is dict:
        req = set(node["required"]) if type(node.get("required")) is list else set()
        missing = [k for k in props if k not in req]
        if missing:
            out.append(
                (ptr(p, "required"), f"strict mode needs every property required: {missing[0]!r}")
            )
    from plistspec.lowering.strict import enum_violations, value_violations

    value_violations(node, p, s, out)
    enum = node.get("enum")
    if type(enum) is list:
        enum_violations(enum, p, s, out)


def strict_violations(params: dict, r: Rules, stats: dict | None = None) -> list[tuple[str, str]]:
    """Whole-schema strict limits: size, depth, recursion."""
    s = r.strict
    assert s is not None
    out: list[tuple[str, str]] = []
    if stats is not None:
        if s["max_properties"] is not None and stats["props"] > s["max_properties"]:
            out.append(("", f"strict mode allows at most {s['max_properties']} properties"))
        if s["max_enum_values"] is not None and stats["enum"] > s["max_enum_values"]:
            out.append(
                ("", f"strict mode allows at most {s['max_enum_values']} enum values in all")
            )
        if s["max_chars"] is not None and stats["chars"] > s["max_chars"]:
            out.append(("", f"strict mode allows at most {s['max_chars']} characters of names"))
    if s["max_depth"] is not None and _object_depth(params) > s["max_depth"]:
        out.append(("", f"strict mode allows at most {s['max_depth']} levels of nesting"))
    if not s["recursion"] and (stats is None or stats["refs"]):
        from plistspec.lowering.refs import RefGraph

        cyc = RefGraph(params).first_cycle()
        if cyc is not None:
            out.append(("", f"strict mode refuses the recursive $ref {cyc}"))
    return out


def _object_depth(params: dict) -> int:
    best = 0
    work: list[tuple[Any, int]] = [(params, 0)]
    kids: list = []
    while work:
        node, d = work.pop()
        if type(node) is not dict:
            continue
        if "properties" in node:
            d += 1
            if d > best:
                best = d
        kids.clear()
        _children(node, "", kids)
        work.extend((c, d) for c, _p, _r in kids)
    return best


def tool_violations(
    name: Any, description: Any, target: str | Rules, name_checked: bool = False
) -> list[tuple[str, str]]:
    """The tool-level rules: name (errors only for rules of severity error) and description.
    ``name_checked``: the caller matched the name against the target's rule already."""
    r = rules(target) if isinstance(target, str) else target
    out: list[tuple[str, str]] = []
    if not isinstance(name, str) or not name:
        out.append(("/name", "the tool needs a non-empty string name"))
    elif r.name_re is not None and not name_checked and not r.name_re.fullmatch(name):
        out.append(("/name", f"{r.name} refuses the tool name {name!r} ({r['name']['pattern']})"))
    want = r.description_rule
    if want == "nonempty" and not (isinstance(description, str) and description):
        out.append(("/description", f"{r.name} needs a non-empty description"))
    if description is not None and not isinstance(description, str):
        out.append(("/description", "the description must be a string"))
    return out
