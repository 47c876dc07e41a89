"""Provider lints of the parameters' schemas (PS403-PS411): the per-provider rules.

Owns: what each provider rejects or ignores in one JSON schema node of the parameters
the emitter sends (``providers.md`` §1-§3), node by node: Gemini's keyword list, enum
and type rules and property names (PS403, PS405, PS409, PS410, PS411), OpenAI's array
rule and strict mode's required, additionalProperties and refused keywords (PS403,
PS405, PS406, PS407, PS411), optional args the Responses API may fill in (PS408) and
what Ollama drops (PS404). :func:`check_node` is called once per node by the walk of
:mod:`plistspec.lint.targets`; each finding points at the node's datum
(:class:`plistspec.replay.sourcemap.Node`).
"""

from __future__ import annotations

from plistspec.core.jsonutil import types_of
from plistspec.elisp.datum import Datum, List, Symbol, Vector
from plistspec.lint._util import Sink, elisp_string, plist_pairs
from plistspec.lint.target_data import (
    _GEMINI_KEYS,
    _GEMINI_PROP_RE,
    _OLLAMA_KEEPS,
    _STRICT_REJECTS,
    const_fix,
    json_brief,
    nullable_fix,
)
from plistspec.replay.sourcemap import Node, children

__all__ = ["check_node", "SCHEMA_RULE_TARGETS"]

#: The targets :func:`check_node` has rules for: for any other target the schema walk
#: finds nothing, so :func:`plistspec.lint.targets.lint_target` neither emits the JSON
#: nor walks it. A rule for another target must add it here.
SCHEMA_RULE_TARGETS = frozenset(("gemini", "openai", "openai-strict", "openai-responses", "ollama"))
# The targets whose rules on optional args _root_rules applies (and openai under llm).
_OPTIONAL_RULES = ("openai-strict", "openai-responses")
# The Gemini keywords whose value _gemini judges (the others pass as they are).
_GEMINI_VALUES = frozenset(("default", "format", "enum", "type"))
# Keys no rule here says anything about on a non-root node (given the value checks of
# quiet_leaf): accepted by Gemini, kept by Ollama, not refused by OpenAI strict.
_QUIET_KEYS = frozenset(("type", "description", "enum")) & (
    _GEMINI_KEYS & _OLLAMA_KEEPS - _STRICT_REJECTS
)
_ITEMS_QUIET = "items" in _GEMINI_KEYS & _OLLAMA_KEEPS - _STRICT_REJECTS


def quiet_leaf(j: dict) -> bool:
    """True when :func:`check_node` finds nothing in the non-root node ``j`` and queues
    nothing under it, for every target (the walk then skips it): only ``type`` (one
    type, not object), ``description`` and an ``enum`` of strings, and for an array
    ``items`` that is such a schema itself (of a type other than array: one level, so a
    deep chain of arrays is not judged again at every level)."""
    t = j.get("type")
    if not isinstance(t, str) or t == "object" or not _plain(j, t == "array"):
        return False
    if t != "array":
        return True
    items = j.get("items")
    if not isinstance(items, dict):
        return False  # no items (a finding), or items no rule walks into
    t = items.get("type")
    return isinstance(t, str) and t != "object" and t != "array" and _plain(items, False)


def _plain(j: dict, array: bool) -> bool:
    """``j``'s keys are quiet ones (``items`` too, for an array) and its enum is strings."""
    for name in j:
        if name not in _QUIET_KEYS and not (array and name == "items" and _ITEMS_QUIET):
            return False
    e = j.get("enum")
    return e is None or (isinstance(e, list) and all(isinstance(x, str) for x in e))


def _add(sink: Sink, code: str, severity: str, message: str, at: tuple[Datum, Datum | None]):
    d, end = at
    return sink.add(code, severity, message, d, end=end)


def check_node(sink: Sink, node: Node, target: str, llm_rules: bool, work: list) -> None:
    """The findings of one schema node under ``target``; queues its nested nodes."""
    j = node.json
    if not isinstance(j, dict):
        return
    t = j.get("type")
    types = [t] if isinstance(t, str) else types_of(j)
    props = children(node, work, quiet_leaf)
    if node.level == "root":
        if target in _OPTIONAL_RULES or (target == "openai" and llm_rules):
            _root_rules(sink, node, props, target, llm_rules)
        if target == "gemini":
            _property_names(sink, props)
        if target == "openai-strict":
            _strict(sink, node, types, props)
        return
    if target == "gemini":
        _gemini(sink, node, types, props, llm_rules)
    elif target in ("openai", "openai-strict", "openai-responses"):
        if types is not None and "array" in types and "items" not in j and "prefixItems" not in j:
            _add(
                sink,
                "PS411",
                "error",
                "OpenAI rejects an array schema without items",
                node.value("type"),
            )
        if target == "openai-strict":
            _strict(sink, node, types, props)
    elif target == "ollama":
        for name in j:
            if name not in _OLLAMA_KEEPS:
                fix = const_fix(sink, node) if name == "const" else None
                _add(
                    sink,
                    "PS404",
                    "warning",
                    f"Ollama drops {name} (its tool schema keeps only type, description, "
                    "enum, items, properties, required, anyOf)"
                    + ("; :enum [VALUE] says the same" if fix else ""),
                    node.key(name),
                ).fix = fix


def _optional_anchor(arg: Datum | None, fallback: Datum) -> tuple[Datum, Datum | None]:
    if isinstance(arg, List):
        for k, _v in plist_pairs(arg)[0]:
            if isinstance(k, Symbol) and k.name == ":optional":
                return k, None
        if arg.items:
            return arg, arg.items[0]
    return fallback, None


def _root_rules(sink: Sink, node: Node, props: list, target: str, llm_rules: bool) -> None:
    """Optional args: OpenAI strict rejects them, the Responses API may fill them in."""
    required = node.json.get("required")
    names = set(x for x in required if isinstance(x, str)) if isinstance(required, list) else set()
    responses = target == "openai-responses" or (target == "openai" and llm_rules)
    for pname, anchor, arg, _sub in props:
        if pname in names:
            continue
        if target == "openai-strict":
            _add(
                sink,
                "PS407",
                "error",
                "OpenAI strict mode needs every property in required: drop :optional and "
                'allow null instead (:type ["string" "null"])',
                _optional_anchor(arg, anchor),
            )
        elif responses:
            api = (
                "llm-openai uses the Responses API, which"
                if target == "openai"
                else "the Responses API"
            )
            _add(
                sink,
                "PS408",
                "warning",
                f"{api} normalises the schema to strict when strict is omitted (gptel and llm "
                "omit it): this optional arg may become required and be filled with a "
                "placeholder",
                _optional_anchor(arg, anchor),
            )


def _gemini(
    sink: Sink, node: Node, types: list[str] | None, props: list, llm_rules: bool = False
) -> None:
    j = node.json
    for name, v in j.items():
        if name not in _GEMINI_KEYS:
            fix = const_fix(sink, node) if name == "const" else None
            d = _add(
                sink,
                "PS403",
                "error",
                f'Gemini rejects the keyword "{name}" in function parameters (HTTP 400 for '
                "the whole request)" + ("; :enum [VALUE] says the same" if fix else ""),
                node.key(name),
            )
            d.fix = fix
        elif name not in _GEMINI_VALUES:
            continue
        elif name == "default":
            _add(
                sink,
                "PS404",
                "warning",
                "the Gemini API may reject default in function declarations",
                node.key(name),
            )
        elif name == "format" and isinstance(v, str) and v not in ("enum", "date-time"):
            _add(
                sink,
                "PS404",
                "warning",
                "the Gemini API supports only the string formats enum and date-time, not "
                f"{elisp_string(v)}",
                node.value(name),
            )
        elif name == "enum" and isinstance(v, list):
            for i, x in enumerate(v):
                if not isinstance(x, str):
                    src = node.first.get("enum")
                    at: tuple[Datum, Datum | None] = node.value("enum")
                    if src is not None and isinstance(src[1], Vector) and i < len(src[1].items):
                        at = (src[1].items[i], None)
                    _add(
                        sink,
                        "PS405",
                        "error",
                        f"Gemini accepts only strings in enum, not {json_brief(x)}",
                        at,
                    )
                    break
        elif name == "type" and isinstance(v, list):
            fix = nullable_fix(sink, node, v, llm_rules)
            d = _add(
                sink,
                "PS405",
                "error",
                'Gemini rejects a type array; drop "null" and leave the property out of required'
                + (" (or :nullable t, which the fix writes)" if fix else ""),
                node.value(name),
            )
            d.fix = fix
    if types is not None and "object" not in types:
        for name in ("properties", "required"):
            if name in j:
                _add(
                    sink,
                    "PS403",
                    "error",
                    f"Gemini rejects {name} on a schema that is not an object",
                    node.key(name),
                )
    if types is not None and "array" in types and "items" not in j:
        _add(
            sink,
            "PS411",
            "error",
            "Gemini rejects an array schema without items",
            node.value("type"),
        )
    if "type" not in j and "anyOf" not in j:
        _add(
            sink,
            "PS410",
            "warning",
            "schema without type: Gemini 3 rejects it (MALFORMED_FUNCTION_CALL)",
            node.opening(),
        )
    if props:
        _property_names(sink, props)


def _property_names(sink: Sink, props: list) -> None:
    for pname, anchor, _v, _sub in props:
        if not _GEMINI_PROP_RE.fullmatch(pname):
            _add(
                sink,
                "PS409",
                "warning",
                "Gemini restricts parameter and property names to "
                f"^[A-Za-z_][A-Za-z0-9_]{{0,63}}$, not {elisp_string(pname)}",
                (anchor, None),
            )


def _strict(sink: Sink, node: Node, types: list[str] | None, props: list) -> None:
    j = node.json
    if node.level != "root":
        for name in j:
            if name in _STRICT_REJECTS:
                _add(
                    sink,
                    "PS403",
                    "error",
                    f"OpenAI strict mode rejects the keyword {name}",
                    node.key(name),
                )
    if types is None or "object" not in types:
        return
    ap = j.get("additionalProperties", None)
    if "additionalProperties" not in j:
        _add(
            sink,
            "PS406",
            "error",
            "OpenAI strict mode needs additionalProperties: false on every object "
            "(add :additionalProperties :json-false)",
            node.opening(),
        )
    elif ap is not False:
        _add(
            sink,
            "PS405",
            "error",
            "OpenAI strict mode rejects free-form objects (additionalProperties not false)",
            node.value("additionalProperties"),
        )
    if node.level == "root":
        return  # optional args: _root_rules
    req = j.get("required")
    names = set(x for x in req if isinstance(x, str)) if isinstance(req, list) else set()
    for pname, anchor, _v, _sub in props:
        if pname not in names:
            _add(
                sink,
                "PS407",
                "error",
                f"OpenAI strict mode needs every property in required; {pname!r} is not listed",
                (anchor, None),
            )
