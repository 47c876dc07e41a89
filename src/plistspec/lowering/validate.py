"""What a target would reject in a parameters schema or a tool: the rules of
``grammars/providers/rules.json`` as checks.

Owns: :func:`schema_violations` (every node of a parameters schema against one target's
rules, strict mode included when asked) and :func:`tool_violations` (name and
description). ``--lower`` runs them on its own output and refuses to emit what fails;
the tests hold lowered output to them; ``check --target`` reads the same table. Each
violation is ``(JSON pointer, message)``. Iterative: any depth.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsonutil import ROOT, ptr, resolve_pointer, subschemas, types_of
from plistspec.lowering.rules import Rules, rules

__all__ = ["schema_violations", "tool_violations", "strict_violations"]

_TYPES = frozenset("string number integer boolean array object null".split())
_COMPOSITION = ("anyOf", "oneOf", "allOf")


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
    out: list[tuple[str, str]] = []
    if not isinstance(params, dict):
        return [("", "parameters must be a JSON object")]
    if params.get("type") != "object":
        out.append(("/type", 'the root schema must have type "object"'))
    if (s is not None or not r["root_composition"]) and any(k in params for k in _COMPOSITION):
        out.append(("", f"{r.name} refuses anyOf/oneOf/allOf at the root"))
    work: list[tuple[Any, Any, bool]] = [(params, ROOT, True)]
    stats = {"props": 0, "enum": 0, "chars": 0}
    while work:
        node, p, root = work.pop()
        if isinstance(node, bool) and p.endswith("additionalProperties"):
            continue
        if isinstance(node, bool):
            if r["type_required"] or s is not None:
                out.append((p, f"{r.name} needs a schema object, not {str(node).lower()}"))
            continue
        if not isinstance(node, dict):
            out.append((p, "a schema must be a JSON object"))
            continue
        _node(node, p, root, r, s, params, out, stats)
        for parts, c, k in subschemas(node):
            work.append((c[k], ptr(p, *parts), False))
    if s is not None:
        out.extend(strict_violations(params, r, stats))
    return [(str(p), m) for p, m in out]


def _allowed(key: str, root: bool, r: Rules, s: dict | None) -> bool:
    if not r.allowed(key, root):
        return False
    return not (s is not None and key in s["reject"])


def _node(
    node: dict, p: str, root: bool, r: Rules, s: dict | None, params: dict, out: list, stats: dict
) -> None:
    for key in node:
        if not _allowed(key, root, r, s):
            out.append((ptr(p, key), f"{r.name} refuses the keyword {key}"))
    t = node.get("type")
    types = types_of(node)
    if t is not None:
        if types is None or any(x not in _TYPES for x in types):
            out.append((ptr(p, "type"), f"type must name JSON types, not {t!r}"))
        elif isinstance(t, list) and r["type_list"] == "nullable":
            out.append((ptr(p, "type"), f"{r.name} refuses a list of types"))
    enum = node.get("enum")
    if isinstance(enum, list):
        stats["enum"] = max(stats["enum"], len(enum))
        stats["chars"] += sum(len(x) for x in enum if isinstance(x, str))
        kind = r["enum"]
        if kind == "strings" and any(not isinstance(x, str) for x in enum):
            out.append((ptr(p, "enum"), f"{r.name} accepts only strings in enum"))
        if kind == "strings-numbers" and any(
            isinstance(x, bool) or not isinstance(x, (str, int, float)) for x in enum
        ):
            out.append((ptr(p, "enum"), f"{r.name} accepts only strings and numbers in enum"))
    elif "enum" in node:
        out.append((ptr(p, "enum"), "enum must be an array"))
    ref = node.get("$ref")
    if ref is not None:
        if not isinstance(ref, str) or not ref.startswith("#"):
            out.append((ptr(p, "$ref"), f"the $ref {ref!r} is not local"))
        elif not resolve_pointer(params, ref)[0]:
            out.append((ptr(p, "$ref"), f"the $ref {ref} points at nothing"))
        others = [k for k in node if k != "$ref"]
        if r["ref"] == "inline-siblings" and any(not k.startswith("$") for k in others):
            out.append((p, f"{r.name} refuses keywords beside $ref"))
        if s is not None and not s["ref_siblings"] and others:
            out.append((p, "strict mode refuses keywords beside $ref"))
    arrays = types is not None and "array" in types
    if r["items_required"] and arrays and "items" not in node and "prefixItems" not in node:
        out.append((p, f"{r.name} rejects an array schema without items"))
    if r["type_required"] and "type" not in node and "anyOf" not in node:
        out.append((p, f"{r.name} needs a type on every schema"))
    if not r["anyof_with_type"] and "type" in node and "anyOf" in node:
        out.append((p, f"{r.name} refuses type beside anyOf"))
    if r["object_keywords_only_on_objects"] and types is not None and "object" not in types:
        for k in ("properties", "required"):
            if k in node:
                out.append((ptr(p, k), f"{r.name} refuses {k} on a schema that is not an object"))
    fm = r.formats
    if s is not None:
        sf = r.strict_formats
        fm = sf if fm is None else (fm & sf if sf is not None else fm)
    f = node.get("format")
    if f is not None and fm is not None and f not in fm:
        out.append((ptr(p, "format"), f"{r.name} refuses the format {f!r}"))
    if f is not None and r["type_required"] and (types is None or "string" not in types):
        out.append((ptr(p, "format"), f"{r.name} takes format on strings only"))
    if "description" in node and not isinstance(node["description"], str):
        out.append((ptr(p, "description"), "description must be a string"))
    props = node.get("properties")
    if props is not None and not isinstance(props, dict):
        out.append((ptr(p, "properties"), "properties must be an object"))
    if isinstance(props, dict):
        stats["props"] += len(props)
        stats["chars"] += sum(len(k) for k in props)
    req = node.get("required")
    if req is not None and not (isinstance(req, list) and all(isinstance(x, str) for x in req)):
        out.append((ptr(p, "required"), "required must be an array of strings"))
    if s is not None:
        _strict_node(node, p, types, s, out)


def _strict_node(node: dict, p: str, types: list[str] | None, s: dict, out: list) -> None:
    is_obj = (types is not None and "object" in types) or (types is None and "properties" in node)
    if s["closed_objects"] and is_obj and node.get("additionalProperties", None) is not False:
        out.append((p, "strict mode needs additionalProperties: false on every object"))
    props = node.get("properties")
    if s["all_required"] and isinstance(props, dict):
        req = node.get("required") if isinstance(node.get("required"), list) else []
        missing = [k for k in props if k not in req]
        if missing:
            out.append(
                (ptr(p, "required"), f"strict mode needs every property required: {missing[0]!r}")
            )
    mi = node.get("minItems")
    if s["min_items_max"] is not None and isinstance(mi, int) and mi > s["min_items_max"]:
        out.append((ptr(p, "minItems"), f"strict mode takes minItems up to {s['min_items_max']}"))
    pat = node.get("pattern")
    if isinstance(pat, str) and s["simple_patterns"]:
        from plistspec.lowering.nodes import LOOKAROUND

        if LOOKAROUND.search(pat):
            out.append((ptr(p, "pattern"), "strict mode takes simple patterns only"))


def strict_violations(params: dict, r: Rules, stats: dict | None = None) -> list[tuple[str, str]]:
    """Whole-schema strict limits: size, depth, recursion."""
    s = r.strict
    assert s is not None
    out: list[tuple[str, str]] = []
    if stats is not None:
        if s["max_properties"] is not None and stats["props"] > s["max_properties"]:
            out.append(("", f"strict mode allows at most {s['max_properties']} properties"))
        if s["max_enum_values"] is not None and stats["enum"] > s["max_enum_values"]:
            out.append(("", f"strict mode allows at most {s['max_enum_values']} enum values"))
        if s["max_chars"] is not None and stats["chars"] > s["max_chars"]:
            out.append(("", f"strict mode allows at most {s['max_chars']} characters of names"))
    if s["max_depth"] is not None and _object_depth(params) > s["max_depth"]:
        out.append(("", f"strict mode allows at most {s['max_depth']} levels of nesting"))
    if not s["recursion"]:
        cyc = _cycle(params)
        if cyc is not None:
            out.append(("", f"strict mode refuses the recursive $ref {cyc}"))
    return out


def _object_depth(params: dict) -> int:
    best = 0
    work: list[tuple[Any, int]] = [(params, 0)]
    while work:
        node, d = work.pop()
        if not isinstance(node, dict):
            continue
        if "properties" in node:
            d += 1
            best = max(best, d)
        for _parts, c, k in subschemas(node):
            work.append((c[k], d))
    return best


def _refs_in(node: Any) -> list[str]:
    out = []
    work = [node]
    while work:
        n = work.pop()
        if isinstance(n, dict):
            r = n.get("$ref")
            if isinstance(r, str):
                out.append(r)
            for _parts, c, k in subschemas(n):
                work.append(c[k])
    return out


def _cycle(params: dict) -> str | None:
    """A ``$ref`` that reaches itself again (None when there is none)."""
    graph: dict[str, list[str]] = {}
    todo = _refs_in(params)
    if "#" in todo:
        return "#"
    while todo:
        ref = todo.pop()
        if ref in graph:
            continue
        found, target = resolve_pointer(params, ref)
        graph[ref] = _refs_in(target) if found else []
        todo.extend(graph[ref])
    for start in graph:
        seen = set()
        work = list(graph[start])
        while work:
            x = work.pop()
            if x == start:
                return start
            if x in seen:
                continue
            seen.add(x)
            work.extend(graph.get(x, ()))
    return None


def tool_violations(name: Any, description: Any, target: str | Rules) -> list[tuple[str, str]]:
    """The tool-level rules: name (errors only for rules of severity error) and description."""
    r = rules(target) if isinstance(target, str) else target
    out: list[tuple[str, str]] = []
    if not isinstance(name, str) or not name:
        out.append(("/name", "the tool needs a non-empty string name"))
    elif r.name_re is not None and not r.name_re.fullmatch(name):
        out.append(("/name", f"{r.name} refuses the tool name {name!r} ({r['name']['pattern']})"))
    want = r["description"]
    if want == "nonempty" and not (isinstance(description, str) and description):
        out.append(("/description", f"{r.name} needs a non-empty description"))
    if description is not None and not isinstance(description, str):
        out.append(("/description", "the description must be a string"))
    return out
