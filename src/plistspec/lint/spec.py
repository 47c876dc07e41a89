"""Spec lints (PS3xx): mistakes and surprises in one tool form, read from its datums.

Owns: every check that needs only the source form (slots, arg plists, nested schemas)
and the library whose rules apply (gptel or llm). Errors the libraries themselves would
raise are :mod:`plistspec.lower`'s (PS2xx); these lints add what the libraries accept
silently but a user would not expect (semantics.md §10). Each diagnostic points at the
exact datum responsible (a key symbol, a value) and carries a fix where the fix is
obvious. The walk over nested schemas is iterative.
"""

from __future__ import annotations

import re

from plistspec.diagnostics import Diagnostic, Fix
from plistspec.elisp.datum import Datum, List, String, Symbol, Vector, is_nil, quoted
from plistspec.extract import ToolForm
from plistspec.lint._util import (
    JSON_TYPES,
    SCHEMA_KEYS,
    Sink,
    brief,
    elisp_string,
    is_plist,
    key_name,
    plist_pairs,
    suggest,
    suggest_type,
)

__all__ = ["lint_spec", "TOOL_NAME_RE", "GPTEL_SLOTS", "LLM_SLOTS"]

TOOL_NAME_RE = re.compile(r"[a-zA-Z0-9_-]{1,64}")
LLM_SLOTS = (":function", ":name", ":description", ":args", ":async")
GPTEL_SLOTS = LLM_SLOTS + (":category", ":confirm", ":include")
_SLOT_WORDS = tuple(s[1:] for s in GPTEL_SLOTS)
_ARG_EXTRA = ("name", "optional")
_LLM_ARG_KEYS = frozenset(
    (":name", ":optional", ":type", ":description", ":enum", ":items", ":properties")
)
_SCHEMA_WORDS = frozenset(SCHEMA_KEYS) | {"optional"}
_TRUTHY = ("t", ":true", ":json-true")
_FALSY = ("nil", ":json-false", ":false")
_COMPOSED = (":anyOf", ":oneOf", ":allOf", ":$ref", ":enum", ":const", ":not")
_CALLBACK_NAMES = ("callback", "cb", "callback-fn", "callback_fn", "cont", "continuation")
_NO_NIL_CHECK = (":optional", ":name", ":properties", ":required", ":enum", ":type", ":items")


def lint_spec(form: ToolForm, dialect: str | None = None) -> list[Diagnostic]:
    """PS3xx diagnostics of one tool form under ``dialect`` (default: the form's own)."""
    dialect = dialect or form.dialect
    sink = Sink(form.text)
    _tool_slots(sink, form, dialect)
    args = form.slot(":args")
    if args is not None and args.value is not None:
        _args(sink, form, args.key, args.value, dialect)
    return sink.diags


# --------------------------------------------------------------------------------------
# Tool level


def _head(form: ToolForm) -> Symbol:
    """A pseudo-datum spanning ``(head`` of the form, to anchor 'missing slot' findings."""
    t = form.text
    end = form.start + 1
    if 0 <= form.start < len(t) and t[form.start] == "(":
        j = end
        while j < len(t) and j < form.end and not t[j].isspace() and t[j] not in "()":
            j += 1
        end = j
    return Symbol(form.head, form.start, max(end, form.start + 1))


def _tool_slots(sink: Sink, form: ToolForm, dialect: str) -> None:
    seen: dict[str, Datum] = {}
    present = {s.key.name for s in form.slots}
    for s in form.slots:
        n = s.key.name
        if n in seen:
            sink.add(
                "PS312",
                "warning",
                f"duplicate slot {n}: gptel and llm use the first one "
                f"(line {_line(sink, seen[n])}); this one is ignored",
                s.key,
            )
            continue
        seen[n] = s.key
        if n not in GPTEL_SLOTS:
            sug = suggest(n, _SLOT_WORDS)
            if sug is None and isinstance(s.value, String) and ":description" not in present:
                sug = "description"
            if sug is not None and ":" + sug not in present:
                sink.add(
                    "PS301",
                    "warning",
                    f"unknown slot {n} (did you mean :{sug}?); gptel and llm ignore it",
                    s.key,
                    fix=sink.replace(s.key, ":" + sug, n),
                )
            else:
                lib = "gptel" if dialect == "gptel" else "llm"
                sink.add("PS302", "info", f"{lib} ignores the slot {n}", s.key)
        elif dialect == "llm" and n not in LLM_SLOTS:
            sink.add("PS302", "info", f"llm ignores the slot {n} (a gptel slot)", s.key)
    head = _head(form)
    _tool_name(sink, form, head)
    _tool_description(sink, form, head)
    if form.slot(":function") is None and form.head != "llm-tool-collection-deftool":
        sink.add("PS331", "warning", "tool without :function: nothing runs when it is called", head)


def _not_a_string(sink: Sink, s, what: str) -> None:
    """PS308 at the value as written (``'read_file``, not the symbol inside the quote)."""
    v = s.value
    at = s.form if sink.written(s.form) else v
    fix = None
    if isinstance(v, Symbol):
        fix = sink.replace(at, elisp_string(v.name))
        why = "a symbol: gptel and llm fail to send it"
    else:
        why = "not a string"
    sink.add("PS308", "error", f"tool :{what} {brief(at, sink.text)} is {why}", at, fix=fix)


def _line(sink: Sink, d: Datum) -> int:
    return sink.line(d)


def _tool_name(sink: Sink, form: ToolForm, head: Datum) -> None:
    s = form.slot(":name")
    if s is None:
        sink.add("PS304", "error", 'tool without :name: it is sent as "name": {}', head)
        return
    v = s.value
    if v is None:
        return
    if is_nil(v):
        sink.add("PS304", "error", 'tool :name is nil: it is sent as "name": {}', v)
    elif isinstance(v, String):
        if not TOOL_NAME_RE.fullmatch(v.value):
            fixed = re.sub(r"[^a-zA-Z0-9_-]", "_", v.value)[:64] or "tool"
            sink.add(
                "PS307",
                "error",
                f"tool name {elisp_string(v.value)} is rejected by OpenAI, Anthropic and Bedrock: "
                f"names must match ^[a-zA-Z0-9_-]{{1,64}}$ (e.g. {elisp_string(fixed)})",
                v,
                fix=sink.replace(v, elisp_string(fixed)) if v.value else None,
            )
    else:
        _not_a_string(sink, s, "name")


def _tool_description(sink: Sink, form: ToolForm, head: Datum) -> None:
    s = form.slot(":description")
    if s is None:
        sink.add(
            "PS305",
            "error",
            'tool without :description: gptel and llm send "description": {} '
            "(Bedrock rejects it, other providers expect a string)",
            head,
        )
        return
    v = s.value
    if v is None:
        return
    if is_nil(v):
        sink.add("PS305", "error", 'tool :description is nil: it is sent as "description": {}', v)
    elif isinstance(v, String):
        if not v.value.strip():
            sink.add("PS306", "warning", "empty tool description (Bedrock rejects it)", v)
    else:
        _not_a_string(sink, s, "description")


# --------------------------------------------------------------------------------------
# :args


def _args(sink: Sink, form: ToolForm, key: Symbol, value: Datum, dialect: str) -> None:
    if is_nil(value):
        return
    flag = form.slot(":async")
    is_async = flag is not None and flag.value is not None and _flag(flag.value) is True
    if isinstance(value, Vector):
        sink.add(
            "PS329",
            "error",
            ":args is a vector: gptel sends properties {} with a non-empty required, llm fails; "
            "write a list of arg plists",
            value,
            fix=_vector_to_list(sink, value),
        )
        elements = value.items
    elif isinstance(value, List) and is_plist(value):
        wrapped = None
        if sink.written(value) and sink.text[value.start] == "(":
            inner = sink.text[value.start : value.end]
            built = bool(value.items) and sink.text[value.start + 1 : value.items[0].start].strip()
            wrapped = Fix(value.start, value.end, f"(list {inner})" if built else f"({inner})")
        sink.add(
            "PS329",
            "error",
            ":args is a single plist, not a list of arg plists: gptel fails and llm sends "
            "garbage; wrap it in another pair of parentheses",
            value,
            fix=wrapped,
        )
        elements = [value]
    elif isinstance(value, List):
        elements = list(value.items)
    else:
        sink.add(
            "PS329", "error", f":args {brief(value, sink.text)} is not a list of arg plists", value
        )
        return
    names: dict[str, Datum] = {}
    for arg in elements:
        if not is_plist(arg):
            sink.add(
                "PS329",
                "error",
                f'this arg {brief(arg, sink.text)} is not a plist such as (:name "x" :type string)',
                arg,
            )
            continue
        assert isinstance(arg, List)
        name = _arg_name(sink, arg)
        if name is not None and is_async and name[0].lower() in _CALLBACK_NAMES:
            sink.add(
                "PS336",
                "warning",
                f"async tool lists its callback {elisp_string(name[0])} in :args: the library "
                "passes the callback itself, as the first argument; the model would be asked "
                "for it too (delete this arg)",
                arg,
                end=arg.items[0],
            )
        if name is not None:
            n, d = name
            if n in names:
                sink.add(
                    "PS311",
                    "error",
                    f"duplicate arg name {elisp_string(n)} (first on line {_line(sink, names[n])}): "
                    "gptel keeps the first arg's schema, llm the later one's in the first one's "
                    "place, and required lists the name twice",
                    d,
                )
            else:
                names[n] = d
        _schemas(sink, arg, dialect)


def _vector_to_list(sink: Sink, v: Vector) -> Fix | None:
    t = sink.text
    if not sink.written(v) or t[v.start] != "[" or t[v.end - 1] != "]":
        return None
    return Fix(v.start, v.end, "(" + t[v.start + 1 : v.end - 1] + ")")


def _arg_name(sink: Sink, arg: List) -> tuple[str, Datum] | None:
    pairs, dangling = plist_pairs(arg)
    for k, v in pairs:
        if isinstance(k, Symbol) and k.name == ":name":
            if isinstance(v, String) and v.value:
                return v.value, v
            if is_nil(v):
                sink.add(
                    "PS309", "error", 'arg :name is nil: gptel sends the property ":", llm "nil"', v
                )
            elif isinstance(v, String):
                sink.add(
                    "PS310",
                    "error",
                    'empty arg name: gptel sends the property ":" and required ""',
                    v,
                )
            elif isinstance(v, Symbol) and v.name.startswith(":"):
                sink.add(
                    "PS310",
                    "error",
                    f"arg :name is the keyword {v.name}: gptel fails to send it, llm sends "
                    f'"{v.name}"; write a string',
                    v,
                    fix=sink.replace(v, elisp_string(v.name[1:]), v.name)
                    if len(v.name) > 1
                    else None,
                )
            elif isinstance(v, Symbol):
                sink.add(
                    "PS310",
                    "error",
                    f"arg :name is the symbol {v.name}: gptel fails on it; write a string",
                    v,
                    fix=sink.replace(v, elisp_string(v.name), v.name),
                )
            else:
                sink.add("PS310", "error", f"arg :name {brief(v, sink.text)} is not a string", v)
            return None
    sink.add(
        "PS309",
        "error",
        'arg without :name: gptel sends it as the property ":" (not required), llm as "nil"',
        arg,
        end=arg.items[0],
    )
    return None


# --------------------------------------------------------------------------------------
# Schemas (arg plists and everything nested in them)


def _schemas(sink: Sink, arg: List, dialect: str) -> None:
    # Work items: (plist, level, llm_converted) with level "arg" or "nested".
    work: list[tuple[List, str, bool]] = [(arg, "arg", False)]
    while work:
        plist, level, conv = work.pop()
        _schema(sink, plist, level, conv, dialect, work)


def _schema(
    sink: Sink,
    plist: List,
    level: str,
    conv: bool,
    dialect: str,
    work: list[tuple[List, str, bool]],
) -> None:
    pairs, dangling = plist_pairs(plist)
    first: dict[str, tuple[Symbol, Datum]] = {}
    for k, v in pairs:
        if not isinstance(k, Symbol):
            continue
        n = k.name
        if n in first:
            worse = level == "arg" and n in (":name", ":optional")
            extra = f'; gptel sends this one as "{n[1:]}"' if worse else ""
            sink.add(
                "PS312",
                "error" if worse else "warning",
                f"duplicate key {n}: gptel and llm use the first one (line "
                f"{_line(sink, first[n][0])}){extra}",
                k,
                fix=sink.delete_pair(k, v),
            )
            continue
        first[n] = (k, v)
    if level == "arg" and isinstance(dangling, Symbol) and dangling.name == ":optional":
        sink.add(
            "PS323",
            "warning",
            ":optional without a value reads as nil: this arg stays required (write :optional t)",
            dangling,
        )
    types = _check_type(sink, plist, first, level, dialect)
    if level == "arg" and ":description" not in first and not _description_like(first):
        sink.add(
            "PS333",
            "warning",
            "arg without :description: the model sees only its name (llm's documentation "
            'requires one; add e.g. :description "What to pass")',
            plist,
            end=plist.items[0],
        )
    is_obj = types is not None and "object" in types
    props = _check_properties(sink, first, types, level, conv, dialect, work)
    _check_required(sink, first, is_obj, props, level)
    for n, (k, v) in first.items():
        bare = n[1:]
        if n == ":enum":
            _check_enum(sink, v)
        elif n == ":items":
            _check_items(sink, k, v, work, conv or level == "arg")
        elif n in (":anyOf", ":allOf", ":oneOf", ":prefixItems"):
            if isinstance(v, Vector):
                work.extend((x, "nested", False) for x in v.items if is_plist(x))  # type: ignore[misc]
            elif isinstance(v, List) and n != ":prefixItems":
                sink.add(
                    "PS330",
                    "error",
                    f"{n} is a list: it takes a vector of schemas, [(...) (...)]",
                    v,
                    fix=sink.as_vector(v),
                )
        elif n in (":not", ":contains", ":if", ":then", ":else", ":propertyNames"):
            if is_plist(v):
                work.append((v, "nested", False))  # type: ignore[arg-type]
        elif n == ":additionalProperties" and is_plist(v):
            work.append((v, "nested", conv))  # type: ignore[arg-type]
        elif n in (":$defs", ":definitions") and isinstance(v, List):
            for _pk, pv in plist_pairs(v)[0]:
                if is_plist(pv):
                    work.append((pv, "nested", False))  # type: ignore[arg-type]
        if bare in SCHEMA_KEYS or bare.startswith("x-"):
            pass
        elif level == "arg" and bare in _ARG_EXTRA:
            pass
        elif bare == "optional":
            sink.add(
                "PS322",
                "warning",
                ':optional means nothing in a nested schema (it is sent as an "optional" '
                "keyword); leave the property out of the enclosing object's :required instead",
                k,
                fix=sink.delete_pair(k, v),
            )
        elif bare == "name":
            sink.add(
                "PS301",
                "warning",
                'unknown keyword :name in a nested schema (sent as "name"): a nested '
                "property's name is its key in :properties",
                k,
            )
        elif bare in ("require", "required?", "mandatory", "req") and _flag(v) is not None:
            _required_flag(sink, k, v, level)
        else:
            _unknown_key(sink, k, v, first, level, dialect)
        if (
            level == "arg"
            and dialect == "llm"
            and n not in _LLM_ARG_KEYS
            and bare in SCHEMA_KEYS
            and not (n == ":required" and not is_obj and props is None)  # PS303 says it
        ):
            sink.add(
                "PS326",
                "warning",
                f"llm drops {n} on a top-level arg (it keeps only :type, :description, :enum, "
                ":items and :properties)",
                k,
            )
        if (
            is_nil(v)
            and n not in _NO_NIL_CHECK
            and not (level == "arg" and dialect == "llm")
            and not (n == ":additionalProperties" and level == "arg" and is_obj)
        ):
            sink.add(
                "PS325",
                "warning",
                f"{n} nil is sent as {{}} by gptel (null by llm when nested); write :null, "
                ":json-false or [] for JSON null, false or an empty array",
                v,
            )
        if conv and dialect == "llm" and isinstance(v, Symbol) and n != ":type":
            if v.name == ":null":
                sink.add("PS327", "warning", 'llm sends a nested :null as the string ":null"', v)
            elif not is_nil(v) and v.name not in ("t", ":json-false", ":false"):
                sink.add(
                    "PS327",
                    "warning",
                    f'llm sends the nested symbol {v.name} as the string "{v.name}"',
                    v,
                    fix=sink.replace(v, elisp_string(v.name), v.name),
                )
    if level == "arg":
        opt = first.get(":optional")
        if opt is not None and not (isinstance(opt[1], Symbol) and opt[1].name in ("t", "nil")):
            sink.add(
                "PS323",
                "warning",
                f":optional {brief(opt[1], sink.text)} makes the arg optional (any non-nil value "
                "does); write :optional t, or omit :optional for a required arg",
                opt[1],
            )
        ap = first.get(":additionalProperties")
        if dialect == "gptel" and is_obj and ap is not None:
            v = ap[1]
            if not (isinstance(v, Symbol) and v.name == ":json-false"):
                sink.add(
                    "PS324",
                    "warning",
                    f":additionalProperties {brief(v, sink.text)} on object arg is sent as false by "
                    "gptel for openai/openai-responses/ollama/bedrock (and dropped for gemini)",
                    v,
                )


def _description_like(first: dict[str, tuple[Symbol, Datum]]) -> bool:
    """True when an unknown key already stands for the missing :description (PS301 says it)."""
    for n, (_k, v) in first.items():
        bare = n[1:]
        if bare in _SCHEMA_WORDS or bare in _ARG_EXTRA:
            continue
        if isinstance(v, String) or suggest(n, _SCHEMA_WORDS) == "description":
            return True
    return False


def _check_items(sink: Sink, k: Symbol, v: Datum, work: list, conv: bool) -> None:
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


def _flag(v: Datum) -> bool | None:
    """True/False for a boolean-looking value (t, nil, :json-false...), else None."""
    if isinstance(v, Symbol):
        if v.name in _TRUTHY:
            return True
        if v.name in _FALSY:
            return False
    return None


def _required_flag(sink: Sink, k: Symbol, v: Datum, level: str) -> None:
    flag = _flag(v)
    if level == "arg":
        if flag:
            fix = sink.delete_pair(k, v)
            what = "delete it: args are required unless they have :optional t"
        else:
            fix = None
            if sink.written(k) and sink.written(v) and v.start >= k.end:
                fix = Fix(k.start, v.end, ":optional t")
            what = "write :optional t for an optional arg"
    else:
        fix = None
        what = "list the property in the enclosing object's :required vector instead"
    sink.add(
        "PS303",
        "warning",
        f"{k.name} {brief(v, sink.text)} is not read by gptel or llm (gptel sends it as a "
        f"schema keyword); {what}",
        k,
        end=v if sink.written(v) else None,
        fix=fix,
    )


def _unknown_key(
    sink: Sink,
    k: Symbol,
    v: Datum,
    first: dict[str, tuple[Symbol, Datum]],
    level: str,
    dialect: str,
) -> None:
    known = _SCHEMA_WORDS if level == "arg" else SCHEMA_KEYS
    sug = suggest(k.name, known | {"name"} if level == "arg" else known)
    if sug is None and isinstance(v, String) and ":description" not in first:
        sug = "description"
    if sug is not None and ":" + sug in first:
        sug = None
    if dialect == "llm" and level == "arg":
        effect = "llm drops it"
    else:
        effect = f'gptel sends it as "{k.name[1:]}"' if dialect == "gptel" else "llm sends it as is"
    hint = f" (did you mean :{sug}?)" if sug else ""
    sink.add(
        "PS301",
        "warning",
        f"unknown keyword {k.name}{hint}; {effect}",
        k,
        fix=sink.replace(k, ":" + sug, k.name) if sug else None,
    )


def _check_type(
    sink: Sink,
    plist: List,
    first: dict[str, tuple[Symbol, Datum]],
    level: str,
    dialect: str = "gptel",
) -> list[str] | None:
    tv = first.get(":type")
    if tv is None:
        if not any(c in first for c in _COMPOSED):
            where = "arg" if level == "arg" else "schema"
            sink.add(
                "PS313",
                "error" if level == "arg" else "warning",
                f'{where} without :type: gptel sends no type, llm sends "nil" (add e.g. :type string)',
                plist,
                end=plist.items[0],
            )
        return None
    k, v = tv
    inner = quoted(v)
    if inner is not None and isinstance(inner, Symbol):
        sink.add(
            "PS316",
            "error",
            f"doubly quoted :type {brief(v, sink.text)} inside quoted data reads as (quote "
            f"{inner.name}); write :type {inner.name}",
            v,
            fix=sink.replace(v, inner.name),
        )
        return [inner.name]
    if isinstance(v, Symbol):
        if v.name in JSON_TYPES:
            return [v.name]
        sug = suggest_type(v.name) if not is_nil(v) else None
        _bad_type(sink, v, v.name, sug, symbol=True)
        return [v.name]
    if isinstance(v, String):
        if v.value in JSON_TYPES:
            if level == "arg":
                # Under gptel it works: only a note that the spec is not portable to llm.
                sink.add(
                    "PS315",
                    "info" if dialect == "gptel" else "warning",
                    f":type {elisp_string(v.value)} is a string: fine for gptel, but llm fails on "
                    f"it; write :type {v.value}",
                    v,
                    fix=sink.replace(v, v.value),
                )
            return [v.value]
        _bad_type(sink, v, v.value, suggest_type(v.value), symbol=False)
        return [v.value]
    if isinstance(v, Vector):
        names = []
        for x in v.items:
            if isinstance(x, String) and x.value in JSON_TYPES:
                names.append(x.value)
            elif isinstance(x, Symbol) and x.name in JSON_TYPES:
                sink.add(
                    "PS314",
                    "error",
                    f"symbol {x.name} in a :type vector cannot be sent; write {elisp_string(x.name)}",
                    x,
                    fix=sink.replace(x, elisp_string(x.name), x.name),
                )
                names.append(x.name)
            else:
                n = x.value if isinstance(x, String) else x.name if isinstance(x, Symbol) else None
                sug = suggest_type(n) if n else None
                sink.add(
                    "PS314",
                    "error",
                    f"{brief(x, sink.text)} is not a JSON Schema type"
                    + (f" (did you mean {elisp_string(sug)}?)" if sug else ""),
                    x,
                    fix=sink.replace(x, elisp_string(sug)) if sug else None,
                )
        return names
    sink.add(
        "PS314",
        "error",
        f":type {brief(v, sink.text)} is not a JSON Schema type ({' '.join(JSON_TYPES)})",
        v,
    )
    return None


def _bad_type(sink: Sink, v: Datum, name: str, sug: str | None, *, symbol: bool) -> None:
    hint = f" (did you mean {sug}?)" if sug else f" (one of {' '.join(JSON_TYPES)})"
    extra = ""
    if name.lower() == "object" and name != "object":
        extra = "; gptel adds its object handling only for exactly object"
    sink.add(
        "PS314",
        "error",
        f":type {brief(v, sink.text)} is not a JSON Schema type{hint}; it is sent verbatim{extra}",
        v,
        fix=sink.replace(v, sug) if sug else None,
    )


def _check_enum(sink: Sink, v: Datum) -> None:
    if isinstance(v, Vector):
        syms = [
            x
            for x in v.items
            if isinstance(x, Symbol) and x.name not in (":null", ":json-false", "t")
        ]
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


def _check_properties(
    sink: Sink,
    first: dict[str, tuple[Symbol, Datum]],
    types: list[str] | None,
    level: str,
    conv: bool,
    dialect: str,
    work: list[tuple[List, str, bool]],
) -> set[str] | None:
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
    names: set[str] = set()
    seen: dict[str, Datum] = {}
    for pk, pval in plist_pairs(v)[0]:
        name = key_name(pk)
        if name is None:
            continue
        if name in seen:
            sink.add(
                "PS312",
                "warning",
                f"duplicate property {name}: gptel and llm keep the first one "
                f"(line {_line(sink, seen[name])})",
                pk,
            )
            continue
        seen[name] = pk
        names.add(name)
        if dialect == "gptel" and name == "additionalProperties":
            sink.add(
                "PS328",
                "warning",
                "a property named additionalProperties is deleted by gptel's Gemini filter",
                pk,
            )
        if is_plist(pval):
            work.append((pval, "nested", conv or level == "arg"))  # type: ignore[arg-type]
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
    return names


def _check_required(
    sink: Sink,
    first: dict[str, tuple[Symbol, Datum]],
    is_obj: bool,
    props: set[str] | None,
    level: str,
) -> None:
    rq = first.get(":required")
    if rq is None:
        return
    k, v = rq
    if not is_obj and props is None:
        if _flag(v) is not None or level == "arg":
            _required_flag(sink, k, v, level)
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
    elif _flag(v) is not None:
        _required_flag(sink, k, v, level)
    else:
        sink.add("PS321", "error", f":required {brief(v, sink.text)} is not a vector of names", v)
