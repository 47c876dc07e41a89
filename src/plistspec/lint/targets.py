"""Provider lints (PS4xx): what one provider would reject or ignore in the JSON gptel or
llm sends it for a tool form (``plistspec check --target T``).

Owns: the per-provider rules of ``providers.md`` §1-§3, applied to **the JSON the real
emitter produces** (:func:`plistspec.providers.emit` on the lowered tool, for the
target's wire format), so the lints cannot drift from what gptel/llm send: gptel's
``additionalProperties: false`` on object args, its Gemini filter, llm's dropped arg
keys... are all already in (or out of) that JSON. Each JSON node is paired with the
plist it came from (a property with its arg plist, first arg of a name for gptel, last
for llm; a key with the first occurrence of that key in the plist), so every finding
points at the datum responsible: the key symbol, the value, or, for what is missing,
the plist's opening parenthesis (up to its first key). Tool-level rules (name,
description) read the form's slots. Generic mistakes are the spec lints' (PS3xx).
"""

from __future__ import annotations

from typing import Any

from plistspec.diagnostics import Diagnostic
from plistspec.elisp.datum import Datum, List, String, Symbol, Vector, is_nil
from plistspec.extract import ToolForm
from plistspec.lint._util import (
    Sink,
    elisp_string,
    is_plist,
    key_name,
    plist_pairs,
)
from plistspec.lint.target_data import (
    _GEMINI_KEYS,
    _GEMINI_PROP_RE,
    _OLLAMA_KEEPS,
    _STRICT_REJECTS,
    NAME_RULES,
    const_fix,
    json_brief,
    nullable_fix,
)
from plistspec.lowering.jsonutil import types_of

__all__ = ["lint_target", "NAME_RULES"]


def lint_target(form: ToolForm, tool: Any, target: str, dialect: str) -> list[Diagnostic]:
    """PS4xx diagnostics: what ``target`` would reject or ignore in this tool's JSON.

    ``tool`` is the IR lowered from ``form`` (None when the library itself fails on the
    spec: then only the tool-level rules run, the failure being reported already).
    """
    if target in _BY_RULES:
        from plistspec.lint.target_rules import lint_by_rules

        return lint_by_rules(form, tool, target)
    sink = Sink(form.text)
    _name(sink, form, target)
    _description(sink, form, target)
    params = parameters_sent(tool, target)
    args = form.slot(":args")
    if not isinstance(params, dict) or args is None or args.value is None:
        return sink.diags
    value = args.value
    elements = [a for a in value.items if is_plist(a)] if isinstance(value, (List, Vector)) else []
    llm_rules = ((tool or {}).get("metadata") or {}).get("dialect", dialect) == "llm"
    root = _Node(params, None, args.key, "root")
    root.children = _arg_map(elements, llm_rules)
    work = [root]
    while work:
        node = work.pop()
        _check_node(sink, node, target, llm_rules, work)
    return sink.diags


_BY_RULES = frozenset(
    ("gemini-jsonschema", "anthropic-strict", "mcp-2025-06-18", "mcp-2025-11-25", "mcp-2026-07-28")
)

#: check target -> the emitter's wire format whose JSON it judges
_WIRE = {"openai-strict": "openai"}


def parameters_sent(tool: Any, target: str) -> Any:
    """The parameters object the emitter sends ``target`` for ``tool`` (None if none)."""
    if not isinstance(tool, dict):
        return None
    from plistspec.providers import emit

    try:
        value, diags = emit([tool], _WIRE.get(target, target))
    except Exception:  # noqa: BLE001 - a tool the emitter cannot take has no JSON to judge
        return None
    if not value:
        return None
    entry = value[0]
    if target in ("gemini", "vertex"):
        decls = next(iter(entry.values()), [])
        return decls[0].get("parameters") if decls else None
    if target == "mcp":
        return entry.get("inputSchema")
    if target == "bedrock":
        return entry.get("toolSpec", {}).get("inputSchema", {}).get("json")
    if target == "anthropic":
        return entry.get("input_schema")
    if "function" in entry:
        return entry["function"].get("parameters")
    return entry.get("parameters")


class _Node:
    """One JSON schema node and the plist it was made from (None when the library
    made it up); ``anchor`` is where to point when the plist has no datum to offer."""

    __slots__ = ("json", "plist", "anchor", "level", "children", "first")

    def __init__(self, json: Any, plist: Datum | None, anchor: Datum, level: str) -> None:
        self.json = json
        self.plist = plist if isinstance(plist, List) and plist.items else None
        self.anchor = anchor
        self.level = level  # "root", "arg" or "nested"
        self.children: dict[str, tuple[Datum, Datum]] | None = None
        self.first = _first(self.plist) if self.plist is not None else {}

    def key(self, name: str) -> tuple[Datum, Datum | None]:
        """``(datum, end)`` for the key ``name``: its symbol, else the plist's opening."""
        if name in self.first:
            return self.first[name][0], None
        return self.opening()

    def value(self, name: str) -> tuple[Datum, Datum | None]:
        if name in self.first:
            return self.first[name][1], None
        return self.opening()

    def opening(self) -> tuple[Datum, Datum | None]:
        if self.plist is not None:
            return self.plist, self.plist.items[0]
        return self.anchor, None


def _arg_map(elements: list, llm_rules: bool) -> dict[str, tuple[Datum, Datum]]:
    """Property name -> (arg plist, its :name datum): gptel's first arg of a name, llm's last."""
    out: dict[str, tuple[Datum, Datum]] = {}
    for arg in elements:
        for k, v in plist_pairs(arg)[0]:
            if isinstance(k, Symbol) and k.name == ":name":
                if isinstance(v, String):
                    name = v.value if v.value or llm_rules else ":"
                elif isinstance(v, Symbol) and llm_rules:
                    name = v.name
                else:
                    break
                if llm_rules or name not in out:
                    out[name] = (arg, v)
                break
    return out


def _first(plist: Datum) -> dict[str, tuple[Symbol, Datum]]:
    first: dict[str, tuple[Symbol, Datum]] = {}
    for k, v in plist_pairs(plist)[0]:
        if isinstance(k, Symbol):
            name = key_name(k)
            if name is not None and name not in first:
                first[name] = (k, v)
    return first


def _head_anchor(form: ToolForm) -> Datum:
    t = form.text
    end = form.start + 1
    while end < min(form.end, len(t)) and not t[end].isspace() and t[end] not in "()":
        end += 1
    return Symbol(form.head, form.start, max(end, form.start + 1))


# --------------------------------------------------------------------------------------
# Tool level


def _name(sink: Sink, form: ToolForm, target: str) -> None:
    rule = NAME_RULES.get(target)
    s = form.slot(":name")
    if rule is None or s is None or not isinstance(s.value, String):
        return
    regex, text, severity = rule
    if not regex.fullmatch(s.value.value):
        from plistspec.elisp.printer import print_string
        from plistspec.lowering.names import map_names
        from plistspec.lowering.rules import rules

        new = map_names([s.value.value], rules(target))[0]
        fix = sink.replace(s.value, print_string(new)) if isinstance(new, str) else None
        hint = f" (fix: {elisp_string(new)}, which gptel/llm dispatch by itself)" if fix else ""
        sink.add(
            "PS401",
            severity,
            f"{target} rejects the tool name {elisp_string(s.value.value)}: it must match {text}"
            + hint,
            s.value,
            fix=fix,
        )


def _description(sink: Sink, form: ToolForm, target: str) -> None:
    s = form.slot(":description")
    if target == "bedrock":
        if s is None:
            sink.add(
                "PS402", "error", "Bedrock requires a non-empty description", _head_anchor(form)
            )
        elif isinstance(s.value, String) and not s.value.value:
            sink.add("PS402", "error", 'Bedrock rejects the empty description ""', s.value)
        elif s.value is not None and is_nil(s.value):
            sink.add("PS402", "error", 'Bedrock rejects "description": {} (nil)', s.value)
    elif target == "ollama":
        if s is None or (s.value is not None and not isinstance(s.value, String)):
            where = _head_anchor(form) if s is None else s.value
            sink.add(
                "PS402",
                "error",
                "Ollama cannot decode a description that is not a string (a missing one is sent as {})",
                where,
            )


def _add(sink: Sink, code: str, severity: str, message: str, at: tuple[Datum, Datum | None]):
    d, end = at
    return sink.add(code, severity, message, d, end=end)


def _children(node: _Node, work: list) -> list[tuple[str, Datum, Datum | None, Any]]:
    """Queue the nested schema nodes; return the properties as (name, key datum, schema)."""
    j = node.json
    for name in ("items", "not", "if", "then", "else", "contains", "additionalProperties"):
        sub = j.get(name)
        if isinstance(sub, dict):
            d = node.first.get(name)
            work.append(_Node(sub, d[1] if d else None, d[0] if d else node.opening()[0], "nested"))
    for name in ("anyOf", "allOf", "oneOf", "prefixItems"):
        subs = j.get(name)
        if isinstance(subs, list):
            d = node.first.get(name)
            vec = d[1] if d is not None and isinstance(d[1], Vector) else None
            for i, sub in enumerate(subs):
                if isinstance(sub, dict):
                    src = vec.items[i] if vec is not None and i < len(vec.items) else None
                    work.append(_Node(sub, src, d[0] if d else node.opening()[0], "nested"))
    props = j.get("properties")
    out: list[tuple[str, Datum, Datum | None, Any]] = []
    if not isinstance(props, dict):
        return out
    if node.level == "root":
        mapping = node.children or {}
        for pname, sub in props.items():
            arg, name_datum = mapping.get(pname, (None, None))
            anchor = name_datum if name_datum is not None else node.anchor
            out.append((pname, anchor, arg, sub))
            if isinstance(sub, dict):
                work.append(_Node(sub, arg, anchor, "arg"))
        return out
    pd = node.first.get("properties")
    pairs: dict[str, tuple[Datum, Datum]] = {}
    if pd is not None and isinstance(pd[1], List):
        for k, v in plist_pairs(pd[1])[0]:
            kn = key_name(k)
            if kn is not None and kn not in pairs:
                pairs[kn] = (k, v)
    for pname, sub in props.items():
        k, v = pairs.get(pname, (None, None))
        anchor = k if k is not None else (pd[0] if pd else node.opening()[0])
        out.append((pname, anchor, v, sub))
        if isinstance(sub, dict):
            work.append(_Node(sub, v, anchor, "nested"))
    return out


def _check_node(sink: Sink, node: _Node, target: str, llm_rules: bool, work: list) -> None:
    j = node.json
    if not isinstance(j, dict):
        return
    types = types_of(j)
    props = _children(node, work)
    if node.level == "root":
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


def _root_rules(sink: Sink, node: _Node, props: list, target: str, llm_rules: bool) -> None:
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
    sink: Sink, node: _Node, types: list[str] | None, props: list, llm_rules: bool = False
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


def _strict(sink: Sink, node: _Node, types: list[str] | None, props: list) -> None:
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
