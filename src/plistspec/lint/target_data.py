"""The data behind the provider lints, read from ``grammars/providers/rules.json``.

Owns: the per-target name rules, Gemini's keyword list and property-name rule, OpenAI
strict mode's documented refusals and what Ollama's decoder keeps (the same table
``--lower`` uses, so ``check --target`` and the lowering cannot disagree), and the
suggested fixes for findings whose lowering is lossless in the source: ``:const V`` →
``:enum [V]``, ``:type ["T" "null"]`` → ``:type T :nullable t`` (gptel), and the tool
name mapped to the target's rule (in :mod:`plistspec.lint.target_tool`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from plistspec.core.diagnostics import Fix
from plistspec.core.formats import TARGETS

if TYPE_CHECKING:
    from plistspec.lint._util import Sink

__all__ = ["NAME_RULES", "const_fix", "nullable_fix", "json_brief"]


def _name_rule(target: str) -> tuple[re.Pattern[str], str, str] | None:
    """The tool-name rule of a check target, from grammars/providers/rules.json."""
    from plistspec.lowering.rules import rules

    r = rules(target)
    rule = r["name"]
    if rule is None:
        return None
    text = {"gemini": "a letter or _, then [A-Za-z0-9_.:-], at most 64 characters"}.get(
        target, rule["pattern"]
    )
    if target.startswith("mcp"):
        text = f"1-{rule['max']} characters of [A-Za-z0-9_.-]"
    return re.compile(rule["pattern"].strip("^$")), text, rule["severity"]


def _rules_sets() -> tuple[frozenset[str], re.Pattern[str], frozenset[str], frozenset[str]]:
    from plistspec.lowering.rules import rules, table

    gem = rules("gemini")
    ollama = rules("ollama")
    keeps = (ollama.keywords or frozenset()) | (ollama.root_keywords or frozenset())
    return (
        (gem.keywords or frozenset()) | frozenset(gem.get("tolerated", ())),
        re.compile(gem["property_name"]["pattern"].strip("^$")),
        frozenset(table()["strict"]["openai"]["reject"]),
        keeps,
    )


NAME_RULES: dict[str, tuple[re.Pattern[str], str, str] | None] = {t: _name_rule(t) for t in TARGETS}
# Gemini `parameters` keys and property names, OpenAI strict's refusals and what Ollama
# keeps: the same table --lower uses (grammars/providers/rules.json).
_GEMINI_KEYS, _GEMINI_PROP_RE, _STRICT_REJECTS, _OLLAMA_KEEPS = _rules_sets()
_LLM_ARG_KEYS = ("type", "description", "enum", "items", "properties")
_OPENAI_FAMILY = ("openai", "openai-strict", "openai-responses", "ollama", "bedrock")


def const_fix(sink: Sink, node) -> Fix | None:
    """``:const V`` → ``:enum [V]`` (the lowering's lossless rewrite, in the source)."""
    if "const" not in node.first or "enum" in node.json:
        return None
    k, v = node.first["const"]
    if not (sink.written(k) and sink.written(v)) or v.start < k.end:
        return None
    return Fix(k.start, v.end, ":enum [" + sink.text[v.start : v.end] + "]")


_JSON_TYPES = frozenset("string number integer boolean array object".split())


def nullable_fix(sink: Sink, node, types: list, llm_rules: bool) -> Fix | None:
    """``:type ["T" "null"]`` → ``:type T :nullable t`` (gptel keeps :nullable; llm drops it)."""
    if llm_rules or "type" not in node.first or "nullable" in node.json:
        return None
    rest = [t for t in types if t != "null"]
    if len(types) != 2 or len(rest) != 1 or rest[0] not in _JSON_TYPES:
        return None
    k, v = node.first["type"]
    if not (sink.written(k) and sink.written(v)) or v.start < k.end:
        return None
    return Fix(k.start, v.end, f":type {rest[0]} :nullable t")


def json_brief(x: Any) -> str:
    import json

    try:
        s = json.dumps(x, ensure_ascii=False)
    except (TypeError, ValueError):
        s = repr(x)
    return "`" + (s if len(s) <= 40 else s[:39] + "…") + "`"
