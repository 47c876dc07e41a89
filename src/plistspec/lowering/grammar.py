"""The per-target JSON Schemas of ``grammars/providers/``, written from ``rules.json``.

Owns: :func:`grammar` (the JSON Schema that a ``parameters`` value must satisfy for one
target: which keywords a node may hold, what ``type``/``enum``/``format`` may say,
``items`` on arrays, ``type`` on every node, nothing beside ``anyOf``, an object root
without composition, closed objects in strict mode) and ``python -m
plistspec.lowering.grammar`` which rewrites ``grammars/providers/TARGET.schema.json``
for every target. The files are generated so that a rule lives in one place
(``rules.json``); a test fails when they are stale. Rules JSON Schema cannot state
(every property required, recursion, size limits) are checked by
:mod:`plistspec.lowering.validate` only.
"""

from __future__ import annotations

import json
from typing import Any

from plistspec.lowering.rules import Rules, grammar_dir, rules, table

__all__ = ["grammar", "write_all", "grammar_targets"]

_TYPES = ["string", "number", "integer", "boolean", "array", "object", "null"]
_NODE = {"$ref": "#/$defs/node"}
_NODE_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_NODE_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_NODE_ONE = ("not", "if", "then", "else", "contains", "propertyNames", "additionalItems")
_NODE_ONE += ("unevaluatedItems", "unevaluatedProperties", "contentSchema")


def grammar_targets() -> list[tuple[str, str, bool]]:
    """``(file stem, target, strict)`` for every grammar file."""
    out = []
    for name in table()["targets"]:
        r = rules(name)
        out.append((name, name, r.strict_flag is not None))
    return out


def _node_schema(r: Rules, keywords: frozenset[str] | None, strict: bool) -> dict[str, Any]:
    s = r.strict if strict else None
    props: dict[str, Any] = {}
    if r["type_list"] == "nullable":
        props["type"] = {"enum": _TYPES}
    else:
        props["type"] = {"anyOf": [{"enum": _TYPES}, {"type": "array", "items": {"enum": _TYPES}}]}
    enum_items = {"strings": {"type": "string"}, "strings-numbers": {"type": ["string", "number"]}}
    props["enum"] = {"type": "array", "items": enum_items.get(r["enum"], {})}
    for k in _NODE_MAPS:
        props[k] = {"type": "object", "additionalProperties": _NODE}
    for k in _NODE_LISTS:
        props[k] = {"type": "array", "items": _NODE}
    for k in _NODE_ONE:
        props[k] = _NODE
    props["items"] = _NODE if r["type_required"] else {"anyOf": [_NODE, {"type": "array"}]}
    props["additionalProperties"] = _NODE
    if s is not None and s["closed_objects"]:
        props["additionalProperties"] = {"const": False}
    props["description"] = {"type": "string"}
    props["required"] = {"type": "array", "items": {"type": "string"}}
    props["$ref"] = {"type": "string", "pattern": "^#"}
    fm = r.formats
    if s is not None:
        sf = r.strict_formats
        fm = sf if fm is None else (fm & sf if sf is not None else fm)
    if fm is not None:
        props["format"] = {"enum": sorted(fm)}
    node: dict[str, Any] = {"type": "object" if r["type_required"] else ["object", "boolean"]}
    reject: set[str] = set()
    if s is not None:  # strict mode: its documented keywords only
        keywords = s["keywords_set"] if keywords is None else keywords & s["keywords_set"]
    if keywords is not None:
        kept = set(keywords) - reject
        if r["additional_properties"] == "false-only":  # kept as false though dropped
            props["additionalProperties"] = {"const": False}
            kept.add("additionalProperties")
        node["properties"] = {k: props.get(k, {}) for k in sorted(kept)}
        node["additionalProperties"] = False
    else:
        node["properties"] = {**props, **{k: False for k in sorted(reject)}}
    checks: list[dict[str, Any]] = []
    if r["items_required"]:
        checks.append(
            {
                "if": {"properties": {"type": {"const": "array"}}, "required": ["type"]},
                "then": {"anyOf": [{"required": ["items"]}, {"required": ["prefixItems"]}]},
            }
        )
    if r["type_required"]:
        checks.append({"anyOf": [{"required": ["type"]}, {"required": ["anyOf"]}]})
    if not r["anyof_with_type"]:
        checks.append({"not": {"required": ["type", "anyOf"]}})
    if s is not None and s["closed_objects"]:
        checks.append(
            {
                "if": {"properties": {"type": {"const": "object"}}, "required": ["type"]},
                "then": {"required": ["additionalProperties"]},
            }
        )
    if s is not None and s.get("typed_nodes"):
        checks.append(
            {"anyOf": [{"required": ["type"]}, {"required": ["anyOf"]}, {"required": ["$ref"]}]}
        )
    if checks:
        node["allOf"] = checks
    return node


def grammar(target: str, strict: bool = False) -> dict[str, Any]:
    """The JSON Schema of what ``target`` accepts as ``parameters`` (strict mode when asked)."""
    r = rules(target)
    root = _node_schema(r, r.root_keywords if r.root_keywords is not None else r.keywords, strict)
    root_rules: dict[str, Any] = {
        "type": "object",
        "required": ["type"],
        "properties": {"type": {"const": "object"}},
    }
    if strict or not r["root_composition"]:
        root_rules["not"] = {
            "anyOf": [{"required": ["anyOf"]}, {"required": ["oneOf"]}, {"required": ["allOf"]}]
        }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$comment": "Generated from rules.json by `python -m plistspec.lowering.grammar`; "
        "do not edit. Rules JSON Schema cannot state (every property required, recursion, "
        "size limits) are checked by plistspec.lowering.validate.",
        "title": f"parameters that {target}{' (strict mode)' if strict else ''} accepts",
        "allOf": [root_rules, {"$ref": "#/$defs/root"}],
        "$defs": {"root": root, "node": _node_schema(r, r.keywords, strict)},
    }


def files() -> dict[str, dict[str, Any]]:
    out = {}
    for stem, target, has_strict in grammar_targets():
        out[f"{stem}.schema.json"] = grammar(target, strict=has_strict)
    return out


def write_all() -> list[str]:
    d = grammar_dir()
    written = []
    for name, schema in files().items():
        (d / name).write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
        written.append(name)
    return written


if __name__ == "__main__":  # pragma: no cover
    for n in write_all():
        print(n)
