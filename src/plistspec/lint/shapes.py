"""Shape lints of schema values: ``:enum``, ``:items``, ``:properties``, ``:required``.

Owns: whether each of these values has the shape JSON Schema (and gptel/llm) need --
``:enum`` a vector of strings (PS317), ``:items`` one schema plist (PS334),
``:properties`` a plist of property schemas with no repeated name (PS335, PS312),
``:properties`` only on objects (PS319), an array with ``:items`` (PS318),
``:required`` a vector of property names (PS320, PS321) and ``:anyOf``/``:allOf``/
``:oneOf`` a vector (PS330). The lints that read a nested schema push it on the walk's
work list (:mod:`plistspec.lint.schema`) instead of recursing.
"""

from __future__ import annotations

from plistspec.core.diagnostics import Fix
from plistspec.elisp.datum import Datum, List, String, Symbol, Vector, is_nil
from plistspec.lint._util import (
    JSON_TYPES,
    Sink,
    brief,
    elisp_string,
    flag,
    is_plist,
    suggest,
    suggest_type,
)
from plistspec.lint.keys import required_flag
from plistspec.lint.surprises import property_deleted

__all__ = [
    "check_enum",
    "check_items",
    "check_properties",
    "check_required",
    "schema_list",
]


_SENDABLE = frozenset((":null", ":json-false", "t"))
_SENDABLE_LLM = _SENDABLE | {":false"}


def check_enum(sink: Sink, v: Datum, dialect: str = "gptel") -> None:
    """PS317: ``:enum`` must be a vector of strings (or other sendable values). Under
    llm, ``:false`` is JSON false too (``json-serialize``'s own false object, what
    ``from-json -d llm`` writes)."""
    if isinstance(v, Vector):
        sendable = _SENDABLE_LLM if dialect == "llm" else _SENDABLE
        syms = [x for x in v.items if isinstance(x, Symbol) and x.name not in sendable]
        if syms:
            fix = None
            if all(isinstance(x, (Symbol, String)) for x in v.items):
                parts = [
                    elisp_string(x.name) if isinstance(x, Symbol) else elisp_string(x.value)  # type: ignore[union-attr]
                    for x in v.items
                ]
                fix = sink.replace(v, "[" + " ".join(parts) + "]")
            sink.add(
                "PS317",
                "error",
                f":enum holds the symbol {syms[0].name} (neither library can send it); "
                "write strings",
                v,
                fix=fix,
            )
        return
    if is_nil(v):
        sink.add("PS317", "error", ':enum nil is sent as {} by gptel; write a vector ["a" "b"]', v)
    elif isinstance(v, List):
        sink.add(
            "PS317",
            "error",
            ':enum is a list: both gptel and llm fail to send it; write a vector ["a" "b"]',
            v,
            fix=sink.as_vector(v),
        )
    else:
        sink.add("PS317", "error", f":enum {brief(v, sink.text)} is not a vector of values", v)


def check_properties(
    sink: Sink,
    first: dict[str, tuple[Symbol, Datum]],
    types: list[str] | None,
    level: str,
    conv: bool,
    dialect: str,
    work: list[tuple[List, str, bool]],
) -> set[str] | None:
    """The property names of ``:properties`` (None when it has none or is unreadable);
    pushes each property schema on ``work``. Also an array without ``:items`` (PS318)."""
    if (
        types is not None
        and "array" in types
        and ":items" not in first
        and ":prefixItems" not in first
    ):
        tk, tv = first[":type"]
        sink.add(
            "PS318",
            "warning",
            "array without :items: Gemini and OpenAI reject it (add e.g. :items (:type string))",
            tv,
        )
    pv = first.get(":properties")
    if pv is None:
        return None
    k, v = pv
    if types is not None and "object" not in types and any(t in JSON_TYPES for t in types):
        sink.add(
            "PS319",
            "warning",
            f":properties on a schema of type {'/'.join(types)}: it only means something for "
            "objects (Gemini rejects it)",
            k,
        )
    if is_nil(v):
        return set()
    if _bad_properties(sink, v) or not isinstance(v, List):
        return None
    seen: dict[str, Datum] = {}
    items = v.items
    nested_conv = conv or level == "arg"
    for i in range(0, len(items) - 1, 2):
        pk = items[i]
        pval = items[i + 1]
        t = type(pk)
        if t is Symbol:  # the JSON key gptel makes of it (key_name)
            name = pk.name  # type: ignore[attr-defined]
            if len(name) > 1 and name[0] == ":":
                name = name[1:]
        elif t is String:
            name = pk.value  # type: ignore[attr-defined]
        else:
            continue
        if name in seen:
            sink.add(
                "PS312",
                "warning",
                f"duplicate property {name}: gptel and llm keep the first one "
                f"(line {sink.line(seen[name])})",
                pk,
            )
            continue
        seen[name] = pk
        if name == "additionalProperties" and dialect == "gptel":
            property_deleted(sink, pk)
        if is_plist(pval):
            work.append((pval, "nested", nested_conv))  # type: ignore[arg-type]
        elif not is_nil(pval) and not isinstance(pval, List):
            sug = None
            if isinstance(pval, (Symbol, String)):
                sug = suggest_type(pval.name if isinstance(pval, Symbol) else pval.value)
            sink.add(
                "PS335",
                "error",
                f"the schema of property {name} is {brief(pval, sink.text)}, not a plist "
                f"such as (:type {sug or 'string'})",
                pval,
                fix=sink.replace(pval, f"(:type {sug})") if sug else None,
            )
    return set(seen)


def check_required(
    sink: Sink,
    first: dict[str, tuple[Symbol, Datum]],
    is_obj: bool,
    props: set[str] | None,
    level: str,
) -> None:
    """``:required``: a vector of strings naming properties (PS320, PS321), or a flag."""
    rq = first.get(":required")
    if rq is None:
        return
    k, v = rq
    if not is_obj and props is None:
        if flag(v) is not None or level == "arg":
            required_flag(sink, k, v, level)
        return
    if isinstance(v, Vector):
        for x in v.items:
            if not isinstance(x, String):
                sink.add("PS321", "error", f"{brief(x, sink.text)} in :required is not a string", x)
            elif props is not None and x.value not in props:
                sug = suggest(x.value, tuple(sorted(props))) if props else None
                hint = f" (did you mean {elisp_string(sug)}?)" if sug else ""
                sink.add(
                    "PS320",
                    "error",
                    f":required names {elisp_string(x.value)}, which is not in :properties{hint}",
                    x,
                    fix=sink.replace(x, elisp_string(sug)) if sug else None,
                )
        return
    if is_nil(v):
        sink.add(
            "PS321",
            "error",
            ':required nil is sent as "required": {} by gptel; write []',
            v,
            fix=sink.replace(v, "[]", "nil"),
        )
    elif isinstance(v, List):
        sink.add(
            "PS321",
            "error",
            ":required is a list: it fails to serialize; write a vector",
            v,
            fix=sink.as_vector(v),
        )
    elif flag(v) is not None:
        required_flag(sink, k, v, level)
    else:
        sink.add("PS321", "error", f":required {brief(v, sink.text)} is not a vector of names", v)


def check_items(sink: Sink, k: Symbol, v: Datum, work: list, conv: bool) -> None:
    """``:items`` must be one schema plist."""
    if is_plist(v):
        work.append((v, "nested", conv))
    elif isinstance(v, Vector):
        work.extend((x, "nested", False) for x in v.items if is_plist(x))
        sink.add(
            "PS334",
            "warning",
            ":items is a vector (draft-07 tuple form): OpenAI and Gemini reject it; give one "
            "schema, :items (:type string), or :prefixItems [...] for a tuple",
            v,
        )
    elif isinstance(v, List) and v.items and all(is_plist(x) for x in v.items):
        work.extend((x, "nested", False) for x in v.items)  # type: ignore[misc]
        single = len(v.items) == 1
        fix = None
        if single and sink.written(v) and sink.written(v.items[0]):
            fix = Fix(v.start, v.end, sink.text[v.items[0].start : v.items[0].end])
        sink.add(
            "PS334",
            "error",
            ":items is a list of schemas, not one schema: "
            + (
                "drop the outer parentheses, :items (:type ...)"
                if single
                else "give one schema (:anyOf [...] for alternatives, :prefixItems [...] for a tuple)"
            ),
            v,
            fix=fix,
        )
    elif not is_nil(v):
        fix = None
        name = v.name if isinstance(v, Symbol) else v.value if isinstance(v, String) else None
        if isinstance(name, str) and suggest_type(name):
            fix = sink.replace(v, f"(:type {suggest_type(name)})")
        sink.add(
            "PS334",
            "error",
            f":items {brief(v, sink.text)} is not a schema: write a plist such as (:type string)",
            v,
            fix=fix,
        )


def _bad_properties(sink: Sink, v: Datum) -> bool:
    """PS335 when ``:properties`` is not a plist of property schemas; True if reported."""
    if isinstance(v, Vector):
        what = "a vector" + (
            " of arg plists" if v.items and all(is_plist(x) for x in v.items) else ""
        )
    elif isinstance(v, List) and v.items and isinstance(v.items[0], List):
        what = (
            "a list of arg plists"
            if all(is_plist(x) for x in v.items)
            else "an alist ((name . schema) ...)"
        )
    elif isinstance(v, List) and v.items and isinstance(v.items[0], String):
        what = "keyed by strings"
    elif isinstance(v, List) or is_nil(v):
        return False
    else:
        what = brief(v, sink.text)
    sink.add(
        "PS335",
        "error",
        f":properties is {what}: write a plist of property schemas, "
        "(:city (:type string) :days (:type integer))",
        v,
    )
    return True


def schema_list(sink: Sink, n: str, v: List) -> None:
    """PS330: ``:anyOf``/``:allOf``/``:oneOf`` written as a list instead of a vector."""
    sink.add(
        "PS330",
        "error",
        f"{n} is a list: it takes a vector of schemas, [(...) (...)]",
        v,
        fix=sink.as_vector(v),
    )
