"""Provider lints (PS4xx): what one provider would reject or ignore in the JSON gptel or
llm sends it for a tool form (``plistspec check --target T``).

Owns: the per-provider rules of ``providers.md`` §1-§3, applied to a model of the JSON
the library sends, built from the form's datums so that every finding points at the
datum responsible (the key symbol, the value, the arg's name). The model follows
``semantics.md``: gptel sends every first key of a plist, adds
``additionalProperties: false`` to top-level object args for the OpenAI family and
strips ``additionalProperties`` and top-level string ``format`` for Gemini; llm keeps
only ``type description enum items properties`` of a top-level arg and every key below.
Generic mistakes (unknown keys, bad types...) are the spec lints' (PS3xx); a finding
here says what *this target* does with the spec.
"""

from __future__ import annotations

import re
from typing import Any

from plistspec.diagnostics import Diagnostic
from plistspec.elisp.datum import Datum, List, String, Symbol, Vector, is_nil
from plistspec.extract import ToolForm
from plistspec.lint._util import (
    Sink,
    brief,
    elisp_string,
    is_plist,
    key_name,
    plist_pairs,
    type_names,
)

__all__ = ["lint_target", "NAME_RULES"]

_COMMON_NAME = (re.compile(r"[a-zA-Z0-9_-]{1,64}"), "^[a-zA-Z0-9_-]{1,64}$", "error")
NAME_RULES: dict[str, tuple[re.Pattern[str], str, str] | None] = {
    "openai": _COMMON_NAME,
    "openai-strict": _COMMON_NAME,
    "openai-responses": _COMMON_NAME,
    "anthropic": _COMMON_NAME,
    "bedrock": _COMMON_NAME,
    "gemini": (
        re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}"),
        "a letter or _, then [A-Za-z0-9_.:-], at most 64 characters",
        "error",
    ),
    "mcp": (re.compile(r"[A-Za-z0-9_.-]{1,128}"), "1-128 characters of [A-Za-z0-9_.-]", "warning"),
    "ollama": None,
}

_GEMINI_KEYS = frozenset(
    """anyOf default description enum example format items maximum maxItems maxLength
    maxProperties minimum minItems minLength minProperties nullable pattern properties
    propertyOrdering required title type""".split()
)
_GEMINI_PROP_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_STRICT_REJECTS = frozenset(
    "default allOf oneOf not if then else dependentRequired dependentSchemas".split()
)
_OLLAMA_KEEPS = frozenset("anyOf type items description enum properties required $defs".split())
_LLM_ARG_KEYS = ("type", "description", "enum", "items", "properties")
_OPENAI_FAMILY = ("openai", "openai-strict", "openai-responses", "ollama", "bedrock")


def lint_target(form: ToolForm, tool: Any, target: str, dialect: str) -> list[Diagnostic]:
    """PS4xx diagnostics: what ``target`` would reject or ignore in this tool's JSON.

    ``tool`` (the IR, or None) is not needed: the model is built from the form's datums,
    which also gives every finding its exact source span.
    """
    sink = Sink(form.text)
    _name(sink, form, target)
    _description(sink, form, target)
    args = form.slot(":args")
    if args is None or args.value is None or is_nil(args.value):
        return sink.diags
    value = args.value
    if isinstance(value, List) and not is_plist(value):
        elements = [a for a in value.items if is_plist(a)]
    elif isinstance(value, Vector):
        elements = [a for a in value.items if is_plist(a)]
    else:
        return sink.diags
    _root(sink, args.key, elements, target, dialect)
    work: list[tuple[List, str, Datum]] = []
    for arg in elements:
        anchor = _arg_name_datum(arg) or arg
        work.append((arg, "arg", anchor))  # type: ignore[arg-type]
    while work:
        plist, level, anchor = work.pop()
        _node(sink, plist, level, anchor, target, dialect, work)
    return sink.diags


def _arg_name_datum(arg: Datum) -> Datum | None:
    for k, v in plist_pairs(arg)[0]:
        if isinstance(k, Symbol) and k.name == ":name":
            return v
    return None


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
        sink.add(
            "PS401",
            severity,
            f"{target} rejects the tool name {elisp_string(s.value.value)}: it must match {text}",
            s.value,
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


def _optional(arg: Datum) -> tuple[Symbol, Datum] | None:
    for k, v in plist_pairs(arg)[0]:
        if isinstance(k, Symbol) and k.name == ":optional":
            return None if is_nil(v) else (k, v)
    return None


def _root(sink: Sink, key: Symbol, elements: list, target: str, dialect: str) -> None:
    responses = target == "openai-responses" or (target == "openai" and dialect == "llm")
    for arg in elements:
        opt = _optional(arg)
        if opt is None:
            continue
        k, v = opt
        if target == "openai-strict":
            sink.add(
                "PS407",
                "error",
                "OpenAI strict mode needs every property in required: drop :optional and allow "
                'null instead (:type ["string" "null"])',
                k,
            )
        elif responses:
            api = (
                "llm-openai uses the Responses API, which"
                if target == "openai"
                else "the Responses API"
            )
            sink.add(
                "PS408",
                "warning",
                f"{api} normalises the schema to strict when strict is omitted (gptel and llm "
                "omit it): this optional arg may become required and be filled with a placeholder",
                k,
            )
    if target == "openai-strict" and dialect == "llm":
        sink.add(
            "PS406",
            "error",
            "llm does not send additionalProperties: false at the root, which OpenAI strict mode requires",
            key,
        )


# --------------------------------------------------------------------------------------
# Schema nodes


def _node(
    sink: Sink,
    plist: List,
    level: str,
    anchor: Datum,
    target: str,
    dialect: str,
    work: list,
) -> None:
    first = _first(plist)
    sent = dict(first)
    if level == "arg" and dialect == "llm":
        sent = {k: v for k, v in first.items() if k in _LLM_ARG_KEYS}
        if "description" in sent and is_nil(sent["description"][1]):
            del sent["description"]
    sent.pop("name", None) if level == "arg" else None
    sent.pop("optional", None) if level == "arg" else None
    tv = sent.get("type")
    types = type_names(tv[1]) if tv is not None else None
    is_obj = types is not None and "object" in types
    if target == "gemini" and dialect == "gptel":
        sent.pop("additionalProperties", None)  # gptel's Gemini filter removes it
        if level == "arg" and types == ["string"]:
            sent.pop("format", None)
    # gptel adds additionalProperties: false to top-level object args (OpenAI family)
    closed_by_gptel = dialect == "gptel" and level == "arg" and is_obj and target in _OPENAI_FAMILY

    # children
    for name, (k, v) in sent.items():
        if name == "items":
            if is_plist(v):
                work.append((v, "nested", k))
            elif isinstance(v, Vector):
                work.extend((x, "nested", x) for x in v.items if is_plist(x))
        elif name in ("anyOf", "allOf", "oneOf", "prefixItems") and isinstance(v, Vector):
            work.extend((x, "nested", x) for x in v.items if is_plist(x))
        elif name in ("not", "if", "then", "else", "contains") and is_plist(v):
            work.append((v, "nested", k))
        elif name == "additionalProperties" and is_plist(v):
            work.append((v, "nested", k))
    props: list[tuple[str, Datum, Datum]] = []
    if "properties" in sent and isinstance(sent["properties"][1], List):
        seen = set()
        for pk, pv in plist_pairs(sent["properties"][1])[0]:
            pname = key_name(pk)
            if pname is None or pname in seen:
                continue
            seen.add(pname)
            if target == "gemini" and dialect == "gptel" and pname == "additionalProperties":
                continue
            props.append((pname, pk, pv))
            if is_plist(pv):
                work.append((pv, "nested", pk))

    if target == "gemini":
        _gemini(sink, sent, types, is_obj, props, level, anchor, plist)
    elif target in ("openai", "openai-strict", "openai-responses"):
        if (
            types is not None
            and "array" in types
            and "items" not in sent
            and "prefixItems" not in sent
        ):
            sink.add("PS411", "error", "OpenAI rejects an array schema without items", tv[1])  # type: ignore[index]
        if target == "openai-strict":
            _strict(sink, sent, is_obj, closed_by_gptel, props, level, anchor)
    elif target == "ollama":
        for name, (k, _v) in sent.items():
            if name not in _OLLAMA_KEEPS:
                sink.add(
                    "PS404",
                    "warning",
                    f"Ollama drops {k.name} (its tool schema keeps only type, description, enum, "
                    "items, properties, required, anyOf)",
                    k,
                )


def _gemini(
    sink: Sink,
    sent: dict[str, tuple[Symbol, Datum]],
    types: list[str] | None,
    is_obj: bool,
    props: list[tuple[str, Datum, Datum]],
    level: str,
    anchor: Datum,
    plist: List,
) -> None:
    for name, (k, v) in sent.items():
        if name not in _GEMINI_KEYS:
            sink.add(
                "PS403",
                "error",
                f'Gemini rejects the keyword "{name}" in function parameters (HTTP 400 for the '
                "whole request)",
                k,
            )
        elif name == "default":
            sink.add(
                "PS404", "warning", "the Gemini API may reject default in function declarations", k
            )
        elif name == "format" and isinstance(v, String) and v.value not in ("enum", "date-time"):
            sink.add(
                "PS404",
                "warning",
                f"the Gemini API supports only the string formats enum and date-time, not {elisp_string(v.value)}",
                v,
            )
        elif name == "enum" and isinstance(v, Vector):
            for x in v.items:
                if not isinstance(x, String):
                    sink.add(
                        "PS405",
                        "error",
                        f"Gemini accepts only strings in enum, not {brief(x, sink.text)}",
                        x,
                    )
                    break
        elif name == "type" and isinstance(v, Vector):
            sink.add(
                "PS405",
                "error",
                'Gemini rejects a type array; drop "null" and leave the property out of required',
                v,
            )
    if types is not None and not is_obj:
        for name in ("properties", "required"):
            if name in sent and not (level == "arg" and name == "required"):
                sink.add(
                    "PS403",
                    "error",
                    f"Gemini rejects {name} on a schema that is not an object",
                    sent[name][0],
                )
    if types is not None and "array" in types and "items" not in sent:
        sink.add("PS411", "error", "Gemini rejects an array schema without items", sent["type"][1])
    if "type" not in sent and "anyOf" not in sent:
        sink.add(
            "PS410",
            "warning",
            "schema without type: Gemini 3 rejects it (MALFORMED_FUNCTION_CALL)",
            anchor,
        )
    if (
        level == "arg"
        and isinstance(anchor, String)
        and not _GEMINI_PROP_RE.fullmatch(anchor.value)
    ):
        sink.add(
            "PS409",
            "warning",
            f"Gemini restricts parameter names to ^[A-Za-z_][A-Za-z0-9_]{{0,63}}$, not {elisp_string(anchor.value)}",
            anchor,
        )
    for pname, pk, _pv in props:
        if not _GEMINI_PROP_RE.fullmatch(pname):
            sink.add(
                "PS409",
                "warning",
                f"Gemini restricts property names to ^[A-Za-z_][A-Za-z0-9_]{{0,63}}$, not {elisp_string(pname)}",
                pk,
            )


def _strict(
    sink: Sink,
    sent: dict[str, tuple[Symbol, Datum]],
    is_obj: bool,
    closed_by_gptel: bool,
    props: list[tuple[str, Datum, Datum]],
    level: str,
    anchor: Datum,
) -> None:
    for name, (k, _v) in sent.items():
        if name in _STRICT_REJECTS:
            sink.add("PS403", "error", f"OpenAI strict mode rejects the keyword {name}", k)
    if not is_obj:
        return
    ap = sent.get("additionalProperties")
    if not closed_by_gptel:
        if ap is None:
            sink.add(
                "PS406",
                "error",
                "OpenAI strict mode needs additionalProperties: false on every object "
                "(add :additionalProperties :json-false)",
                anchor,
            )
        elif not (isinstance(ap[1], Symbol) and ap[1].name in (":json-false", ":false")):
            sink.add(
                "PS405",
                "error",
                "OpenAI strict mode rejects free-form objects (additionalProperties not false)",
                ap[1],
            )
    req = sent.get("required")
    names: set[str] = set()
    if req is not None and isinstance(req[1], Vector):
        names = {x.value for x in req[1].items if isinstance(x, String)}
    for pname, pk, _pv in props:
        if pname not in names:
            sink.add(
                "PS407",
                "error",
                f"OpenAI strict mode needs every property in required; {pname!r} is not listed",
                pk,
            )
