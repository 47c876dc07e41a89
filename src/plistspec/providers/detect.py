"""Provider / MCP tool JSON → IR: recognising the format and converting it.

Owns: ``from_json`` (any supported tool JSON → IR tools + diagnostics) and
``detect_format``. Recognised without being told (``fmt=`` forces one):

* ``ir``                plistspec's IR (``{"type":"function","name",…,"metadata"}``)
* ``openai``            Chat Completions ``{"type":"function","function":{…}}`` (also Ollama)
* ``openai-responses``  ``{"type":"function","name",…,"parameters"}``
* ``anthropic``         ``{"name",…,"input_schema"}``
* ``gemini``            ``{"functionDeclarations"|"function_declarations":[…]}`` or bare
                        declarations ``{"name",…,"parameters"|"parametersJsonSchema"}``;
                        upper-case OpenAPI types (``STRING``) are lower-cased
* ``bedrock``           ``{"toolSpec":{"name",…,"inputSchema":{"json":…}}}``
* ``mcp``               MCP ``Tool`` objects ``{"name",…,"inputSchema"}``

plus any array of those, ``{"tools":[…]}`` (an MCP ``tools/list`` result or a request
body), ``{"toolConfig":{"tools":[…]}}`` and a whole JSON-RPC response around them.

Parameter schemas are normalised for a gptel/llm spec: local ``$ref`` s are resolved
against the root (``$defs``/``definitions`` or any ``#/…`` pointer) and inlined, sibling
keys next to a ``$ref`` win, a recursive reference is an error naming the cycle; root
keys a spec has no place for (``additionalProperties``, ``$schema``, ``anyOf``, ``title``…)
are dropped with a warning naming them. Every walk is iterative (a generator
trampoline), so nesting depth is unlimited.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from plistspec.diagnostics import Diagnostic
from plistspec.ir import Tool, make_tool
from plistspec.trampoline import run as _run

__all__ = ["from_json", "detect_format", "FORMATS", "normalize_parameters"]

FORMATS = ("ir", "openai", "openai-responses", "anthropic", "gemini", "bedrock", "mcp")

_ALIASES = {
    "ollama": "openai",
    "openai-chat": "openai",
    "chat": "openai",
    "llm-openai": "openai",
    "llm-ollama": "openai",
    "responses": "openai-responses",
    "llm-openai-responses": "openai-responses",
    "claude": "anthropic",
    "llm-anthropic": "anthropic",
    "llm-claude": "anthropic",
    "vertex": "gemini",
    "llm-gemini": "gemini",
    "llm-vertex": "gemini",
    "google": "gemini",
}

_EXPECTED = (
    'OpenAI chat {"type":"function","function":{"name",…}}; '
    'OpenAI Responses {"type":"function","name",…,"parameters"}; '
    'Anthropic {"name",…,"input_schema"}; '
    'Gemini {"functionDeclarations":[…]} or {"name",…,"parameters"|"parametersJsonSchema"}; '
    'Bedrock {"toolSpec":{"name",…,"inputSchema":{"json":…}}}; '
    'MCP {"name",…,"inputSchema"}, {"tools":[…]} or a JSON-RPC response {"result":{"tools":[…]}}; '
    'plistspec IR {"type":"function","name",…,"parameters","metadata"}; '
    "or an array of these"
)

# JSON Schema keywords whose value is a schema, a list of schemas, or a map of schemas.
_SCHEMA_ONE = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "additionalItems",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
_SCHEMA_LIST = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_SCHEMA_MAP = frozenset(
    {"properties", "patternProperties", "dependentSchemas", "$defs", "definitions"}
)
_ROOT_KEEP = ("type", "properties", "required")
_GEMINI_TYPES = frozenset(
    {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL", "TYPE_UNSPECIFIED"}
)


def _diag(code: str, severity: str, message: str) -> Diagnostic:
    return Diagnostic(code, severity, message)  # type: ignore[arg-type]


def _ptr(base: str, *keys: Any) -> str:
    out = base
    for k in keys:
        out += "/" + str(k).replace("~", "~0").replace("/", "~1")
    return out


def _describe(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    keys = ", ".join(f'"{k}"' for k in list(v)[:8])
    return f"an object with keys {keys}" if v else "an empty object"


# --------------------------------------------------------------------------------------
# Format recognition


class _Mismatch(Exception):
    """The element does not fit a format: where (JSON pointer) and why."""

    def __init__(self, pointer: str, reason: str) -> None:
        super().__init__(reason)
        self.pointer = pointer
        self.reason = reason


def _classify(v: Any) -> str | None:
    """The format of one element, by its envelope keys (None when nothing fits)."""
    if not isinstance(v, dict):
        return None
    if v.get("type") == "function" and isinstance(v.get("function"), dict):
        return "openai"
    if "toolSpec" in v:
        return "bedrock"
    if "functionDeclarations" in v or "function_declarations" in v:
        return "gemini"
    if "input_schema" in v:
        return "anthropic"
    if "inputSchema" in v:
        return "mcp"
    if v.get("type") == "function" and "name" in v:
        return "ir" if "metadata" in v else "openai-responses"
    if "name" in v and ("parameters" in v or "parametersJsonSchema" in v):
        return "gemini"
    return None


def _container(v: Any) -> tuple[str, Any] | None:
    """For wrappers around tool lists: (key to descend into, value)."""
    if not isinstance(v, dict):
        return None
    if "jsonrpc" in v or ("id" in v and ("result" in v or "error" in v)):
        if "result" in v:
            return "result", v["result"]
        return None
    if isinstance(v.get("tools"), list) and _classify(v) is None:
        return "tools", v["tools"]
    if isinstance(v.get("toolConfig"), dict) and _classify(v) is None:
        return "toolConfig", v["toolConfig"]
    return None


def _elements(
    value: Any, forced: str | None, diags: list[Diagnostic]
) -> list[tuple[str, Any, str]]:
    """Flatten wrappers and arrays into ``(pointer, element, format)`` triples.

    Raises :class:`_Mismatch` for an element that fits nothing (or not the forced format).
    """
    out: list[tuple[str, Any, str]] = []
    todo: list[tuple[str, Any, bool]] = [("", value, False)]
    while todo:
        ptr, v, in_decls = todo.pop()
        if in_decls:
            if not isinstance(v, dict) or "name" not in v:
                raise _Mismatch(
                    ptr, f'expected a function declaration {{"name",…}}, found {_describe(v)}'
                )
            out.append((ptr, v, "gemini"))
            continue
        if isinstance(v, list):
            for i in range(len(v) - 1, -1, -1):
                todo.append((_ptr(ptr, i), v[i], False))
            continue
        if (
            isinstance(v, dict)
            and ("jsonrpc" in v or "id" in v)
            and "error" in v
            and "result" not in v
        ):
            err = v["error"]
            msg = err.get("message") if isinstance(err, dict) else err
            raise _Mismatch(_ptr(ptr, "error"), f"the JSON-RPC response is an error: {msg!r}")
        wrap = _container(v)
        if wrap is not None:
            todo.append((_ptr(ptr, wrap[0]), wrap[1], False))
            continue
        if isinstance(v, dict) and "cachePoint" in v and len(v) == 1:
            diags.append(_diag("PS511", "info", f"skipped the Bedrock cachePoint at {ptr or '/'}"))
            continue
        fmt = _classify(v)
        if forced is not None:
            if fmt != forced and not (forced == "openai-responses" and fmt == "ir"):
                if not (forced == "gemini" and isinstance(v, dict) and "name" in v):
                    raise _Mismatch(ptr, f"expected {_expected_for(forced)}, found {_describe(v)}")
            fmt = forced
        if fmt is None:
            if (
                isinstance(v, dict)
                and isinstance(v.get("type"), str)
                and v.get("type") != "function"
            ):
                diags.append(
                    _diag(
                        "PS511",
                        "warning",
                        f"skipped the built-in tool of type {v['type']!r} at {ptr or '/'}: it has no "
                        "parameter schema a gptel/llm tool could carry",
                    )
                )
                continue
            raise _Mismatch(ptr, f"found {_describe(v)}{_hint(v)}")
        if (
            fmt == "gemini"
            and isinstance(v, dict)
            and ("functionDeclarations" in v or "function_declarations" in v)
        ):
            key = "functionDeclarations" if "functionDeclarations" in v else "function_declarations"
            decls = v[key]
            if not isinstance(decls, list):
                raise _Mismatch(
                    _ptr(ptr, key),
                    f"expected an array of function declarations, found {_describe(decls)}",
                )
            for i in range(len(decls) - 1, -1, -1):
                todo.append((_ptr(ptr, key, i), decls[i], True))
            continue
        out.append((ptr, v, fmt))
    return out


_ENVELOPE_KEYS = (
    "name",
    "description",
    "parameters",
    "parametersJsonSchema",
    "input_schema",
    "inputSchema",
    "functionDeclarations",
    "function_declarations",
    "toolSpec",
    "function",
    "type",
    "tools",
    "result",
)


def _hint(v: Any) -> str:
    """What a near miss probably meant (misspelt keys, a tool without a schema)."""
    if not isinstance(v, dict):
        return ""
    import difflib

    notes = []
    for k in v:
        if k in _ENVELOPE_KEYS or not isinstance(k, str):
            continue
        close = difflib.get_close_matches(k, _ENVELOPE_KEYS, n=1, cutoff=0.75)
        if not close:
            low = {e.lower().replace("_", ""): e for e in _ENVELOPE_KEYS}
            e = low.get(k.lower().replace("_", "").replace("-", ""))
            close = [e] if e else []
        if close:
            notes.append(f'"{k}" (did you mean "{close[0]}"?)')
    if notes:
        return "; unknown key " + ", ".join(notes)
    if "name" in v and v.get("type") != "function":
        return (
            '; it has "name" but no parameter schema ("inputSchema", "input_schema", '
            '"parameters" or "parametersJsonSchema"): for a tool without parameters '
            "add one, or pass --from gemini (a Gemini declaration may leave it out)"
        )
    return ""


def _expected_for(fmt: str) -> str:
    return {
        "openai": '{"type":"function","function":{"name",…,"parameters"}}',
        "openai-responses": '{"type":"function","name",…,"parameters"}',
        "anthropic": '{"name",…,"input_schema"}',
        "gemini": '{"functionDeclarations":[…]} or {"name",…,"parameters"}',
        "bedrock": '{"toolSpec":{"name",…,"inputSchema":{"json":…}}}',
        "mcp": '{"name",…,"inputSchema"}',
        "ir": '{"type":"function","name",…,"parameters","metadata"}',
    }[fmt]


def detect_format(value: Any) -> str:
    """The format of ``value`` (one of :data:`FORMATS`, ``"mixed"``, or ``"unknown"``)."""
    try:
        elems = _elements(value, None, [])
    except _Mismatch:
        return "unknown"
    fmts = {f for _, _, f in elems}
    if not fmts:
        return "unknown"
    return fmts.pop() if len(fmts) == 1 else "mixed"


# --------------------------------------------------------------------------------------
# One element → (name, description, parameters, metadata)


def _need(d: Any, key: str, ptr: str, what: str = "an object") -> Any:
    if not isinstance(d, dict):
        raise _Mismatch(ptr, f"expected an object, found {_describe(d)}")
    if key not in d:
        raise _Mismatch(_ptr(ptr, key), f'missing key "{key}"')
    v = d[key]
    if what == "an object" and not isinstance(v, dict):
        raise _Mismatch(_ptr(ptr, key), f"expected an object, found {_describe(v)}")
    return v


_KNOWN_KEYS = {
    "openai": {"name", "description", "parameters"},
    "openai-responses": {"type", "name", "description", "parameters"},
    "anthropic": {"name", "description", "input_schema", "type"},
    "gemini": {"name", "description", "parameters", "parametersJsonSchema"},
    "bedrock": {"name", "description", "inputSchema"},
    "mcp": {"name", "description", "inputSchema", "title", "annotations", "outputSchema"},
}


def _unpack(v: Any, fmt: str, ptr: str) -> tuple[dict, str, Any, str, dict]:
    """(object holding name/description, its pointer, parameters, parameters pointer, metadata)."""
    meta: dict = {}
    if fmt == "openai":
        obj, optr = _need(v, "function", ptr), _ptr(ptr, "function")
        params, pkey = obj.get("parameters"), "parameters"
    elif fmt == "bedrock":
        obj, optr = _need(v, "toolSpec", ptr), _ptr(ptr, "toolSpec")
        schema = obj.get("inputSchema")
        if schema is None:
            params, pkey = None, "inputSchema"
        else:
            if not isinstance(schema, dict) or "json" not in schema:
                raise _Mismatch(_ptr(optr, "inputSchema"), 'expected {"json": SCHEMA}')
            params, pkey = schema["json"], "inputSchema/json"
    elif fmt == "gemini":
        obj, optr = v, ptr
        if isinstance(v, dict) and "parametersJsonSchema" in v:
            params, pkey = v["parametersJsonSchema"], "parametersJsonSchema"
        else:
            params, pkey = (v.get("parameters") if isinstance(v, dict) else None), "parameters"
    elif fmt == "anthropic":
        obj, optr = v, ptr
        params, pkey = _need(v, "input_schema", ptr, "any"), "input_schema"
    elif fmt == "mcp":
        obj, optr = v, ptr
        params, pkey = _need(v, "inputSchema", ptr, "any"), "inputSchema"
        for src, dst in (
            ("title", "title"),
            ("annotations", "annotations"),
            ("outputSchema", "output_schema"),
        ):
            if src in v:
                meta[dst] = v[src]
    else:  # ir, openai-responses
        obj, optr = v, ptr
        params, pkey = (v.get("parameters") if isinstance(v, dict) else None), "parameters"
        if fmt == "ir":
            m = v.get("metadata")
            if not isinstance(m, dict):
                raise _Mismatch(_ptr(ptr, "metadata"), f"expected an object, found {_describe(m)}")
            meta = dict(m)
    if not isinstance(obj, dict):
        raise _Mismatch(optr, f"expected an object, found {_describe(obj)}")
    if "name" not in obj:
        raise _Mismatch(_ptr(optr, "name"), 'missing key "name"')
    return obj, optr, params, optr + "/" + pkey, meta


def _convert(
    v: Any, fmt: str, ptr: str, diags: list[Diagnostic], trust: bool = False
) -> Tool | None:
    obj, optr, params, pptr, meta = _unpack(v, fmt, ptr)
    name = obj["name"]
    if fmt != "ir" and not isinstance(name, str):
        raise _Mismatch(_ptr(optr, "name"), f"expected a string, found {_describe(name)}")
    label = name if isinstance(name, str) else repr(name)
    if "description" in obj:
        description = obj["description"]
    else:
        description = {}
        diags.append(
            _diag(
                "PS504",
                "warning",
                f"tool {label!r} has no description (at {optr or '/'}): the Elisp gets no :description "
                'and gptel/llm send "description": {}; write one',
            )
        )
    if fmt != "ir":
        known = _KNOWN_KEYS[fmt]
        dropped = [k for k in obj if k not in known]
        if fmt == "openai" or fmt == "bedrock":
            dropped += [
                f"{k} (outside {optr.rsplit('/', 1)[-1]})"
                for k in v
                if k not in ("type", "function", "toolSpec")
            ]
        if fmt == "gemini" and "parameters" in obj and "parametersJsonSchema" in obj:
            dropped.append("parameters (parametersJsonSchema was used)")
        if dropped:
            diags.append(
                _diag(
                    "PS503",
                    "warning",
                    f"tool {label!r}: dropped {', '.join(dropped)} (at {optr or '/'}): "
                    "a gptel/llm tool has no place for it",
                )
            )
    parameters, ok = normalize_parameters(
        params,
        pptr,
        label,
        diags,
        gemini=(fmt == "gemini"),
        vector_args=(fmt == "ir" and meta.get("args") == "vector"),
    )
    if not ok:
        return None
    if fmt == "ir":
        from plistspec.providers.ir_meta import check_metadata

        n = len(diags)
        meta = check_metadata(meta, _ptr(ptr, "metadata"), repr(label), diags, trust)
        if any(d.is_error for d in diags[n:]):
            return None
    if fmt != "ir":
        meta["args"] = "list" if parameters["properties"] else "nil"
    return make_tool(name, description, parameters, meta)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# Parameter schemas


def normalize_parameters(
    params: Any,
    ptr: str,
    label: str,
    diags: list[Diagnostic],
    *,
    gemini: bool = False,
    vector_args: bool = False,
) -> tuple[dict, bool]:
    """A root parameter schema as a gptel/llm spec can carry it; ``ok`` False on errors.

    ``vector_args``: the IR of a gptel ``:args [...]`` vector, whose ``required`` names
    are not properties (gptel sends ``properties {}``); they are kept as they are."""
    if params is None or params == {}:
        return {"type": "object", "properties": {}}, True
    if not isinstance(params, dict):
        diags.append(
            _diag(
                "PS502",
                "error",
                f"tool {label!r}: the parameter schema at {ptr} must be an object, found {_describe(params)}",
            )
        )
        return {}, False
    rtype = params.get("type", "object")
    if isinstance(rtype, str) and gemini:
        rtype = rtype.lower() if rtype in _GEMINI_TYPES else rtype
    if rtype != "object":
        diags.append(
            _diag(
                "PS502",
                "error",
                f'tool {label!r}: the parameter schema at {ptr} has type {rtype!r}; a tool\'s parameters are "type": "object"',
            )
        )
        return {}, False
    resolver = _Resolver(params, ptr, label, diags, gemini)
    props = params.get("properties", {})
    if not isinstance(props, dict):
        diags.append(
            _diag(
                "PS502",
                "error",
                f"tool {label!r}: {ptr}/properties must be an object, found {_describe(props)}",
            )
        )
        return {}, False
    new_props = resolver.walk_map(props, _ptr(ptr, "properties"))
    if resolver.failed:
        return {}, False
    out: dict[str, Any] = {"type": "object", "properties": new_props}
    req = params.get("required")
    if req is not None:
        if not isinstance(req, list):
            diags.append(
                _diag(
                    "PS502",
                    "error",
                    f"tool {label!r}: {ptr}/required must be an array, found {_describe(req)}",
                )
            )
            return {}, False
        good = [r for r in req if isinstance(r, str) and (vector_args or r in new_props)]
        bad = [r for r in req if not (isinstance(r, str) and (vector_args or r in new_props))]
        if bad:
            diags.append(
                _diag(
                    "PS507",
                    "warning",
                    f"tool {label!r}: dropped required names that are not properties: "
                    f"{', '.join(repr(b) for b in bad)} (at {ptr}/required)",
                )
            )
        if good:
            out["required"] = good
    dropped = [k for k in params if k not in _ROOT_KEEP and k not in ("$defs", "definitions")]
    if "type" not in params:
        diags.append(
            _diag(
                "PS508",
                "info",
                f'tool {label!r}: the parameter schema at {ptr} has no "type"; "object" assumed',
            )
        )
    quiet = [
        k for k in dropped if k == "$schema" or k == "additionalProperties" and params[k] is False
    ]
    loud = [k for k in dropped if k not in quiet]
    if loud:
        diags.append(
            _diag(
                "PS505",
                "warning",
                f"tool {label!r}: dropped root {', '.join(loud)} of the parameter schema (at {ptr}): "
                "a gptel/llm spec has no place for it",
            )
        )
    if quiet:
        what = " and ".join(
            "$schema" if k == "$schema" else "additionalProperties: false" for k in quiet
        )
        why = []
        if "$schema" in quiet:
            why.append("$schema only names the JSON Schema dialect")
        if "additionalProperties" in quiet:
            why.append(
                "gptel adds additionalProperties: false back for the OpenAI family "
                "(openai, openai-responses, ollama, bedrock) by itself"
            )
        diags.append(
            _diag("PS505", "info", f"tool {label!r}: dropped root {what}: {'; '.join(why)}")
        )
    for key in ("$defs", "definitions"):
        defs = params.get(key)
        if isinstance(defs, dict):
            unused = [k for k in defs if f"#/{key}/{k}" not in resolver.used]
            if unused:
                diags.append(
                    _diag(
                        "PS506",
                        "warning",
                        f"tool {label!r}: dropped unused {key} {', '.join(repr(u) for u in unused)} (at {ptr}/{key}): "
                        "referenced definitions are written inline",
                    )
                )
    return out, True


def _mat(ptr: Any) -> str:
    """A pointer built as nested ``(parent, key)`` pairs (cheap to extend) → its text."""
    keys = []
    while isinstance(ptr, tuple):
        ptr, k = ptr
        keys.append(k)
    return _ptr(ptr, *reversed(keys))


def _unescape_pointer(part: str) -> str:
    from urllib.parse import unquote

    return unquote(part).replace("~1", "/").replace("~0", "~")


class _Resolver:
    """Inline local ``$ref`` s and lower-case Gemini types, iteratively."""

    def __init__(
        self, root: dict, ptr: str, label: str, diags: list[Diagnostic], gemini: bool
    ) -> None:
        self.root = root
        self.ptr = ptr
        self.label = label
        self.diags = diags
        self.gemini = gemini
        self.memo: dict[str, Any] = {}
        self.used: set[str] = set()
        self.failed = False

    def walk_map(self, m: dict, ptr: str) -> dict:
        return _run(self._map(m, ptr, ("#",)))

    def _lookup(self, ref: str) -> tuple[bool, Any]:
        if not ref.startswith("#"):
            return False, None
        frag = ref[1:]
        if frag and not frag.startswith("/"):
            return False, None
        cur: Any = self.root
        for part in frag.split("/")[1:] if frag else []:
            key = _unescape_pointer(part)
            if isinstance(cur, dict) and key in cur:
                cur = cur[key]
            elif isinstance(cur, list) and key.isdigit() and int(key) < len(cur):
                cur = cur[int(key)]
            else:
                return False, None
        return True, cur

    def _map(self, m: dict, ptr: str, chain: tuple) -> Generator:
        out = {}
        for k, sub in m.items():
            out[k] = yield self._schema(sub, (ptr, k), chain)
        return out

    def _schema(self, node: Any, ptr: str, chain: tuple) -> Generator:
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        target: Any = None
        has_target = False
        if isinstance(ref, str):
            found, raw = self._lookup(ref)
            if not found:
                if ref.startswith("#"):
                    self.failed = True
                    self.diags.append(
                        _diag(
                            "PS501",
                            "error",
                            f"tool {self.label!r}: $ref {ref!r} at {_mat(ptr)} points to nothing in the schema",
                        )
                    )
                else:
                    self.diags.append(
                        _diag(
                            "PS509",
                            "warning",
                            f"tool {self.label!r}: external $ref {ref!r} at {_mat(ptr)} is kept as it is (not fetched)",
                        )
                    )
            elif ref in chain:
                self.failed = True
                cycle = " → ".join(chain[chain.index(ref) :] + (ref,))
                self.diags.append(
                    _diag(
                        "PS510",
                        "error",
                        f"tool {self.label!r}: recursive $ref at {_mat(ptr)}: {cycle}",
                    )
                )
                return {}
            else:
                self.used.add(ref)
                if ref in self.memo:
                    target = self.memo[ref]
                else:
                    target = yield self._schema(raw, ref, chain + (ref,))
                    self.memo[ref] = target
                has_target = True
        out: dict[str, Any] = {}
        for k, sub in node.items():
            if k == "$ref" and has_target:
                if isinstance(target, dict):
                    for tk, tv in target.items():
                        if tk not in node or tk == "$ref":
                            out[tk] = tv
                continue
            p = (ptr, k)
            if k in _SCHEMA_ONE and isinstance(sub, dict):
                out[k] = yield self._schema(sub, p, chain)
            elif (
                k in _SCHEMA_LIST
                and isinstance(sub, list)
                or k == "items"
                and isinstance(sub, list)
            ):
                items = []
                for i, s in enumerate(sub):
                    items.append((yield self._schema(s, (p, i), chain)))
                out[k] = items
            elif k in _SCHEMA_MAP and isinstance(sub, dict):
                out[k] = yield self._map(sub, p, chain)
            elif k == "type" and self.gemini:
                out[k] = _lower_type(sub)
            else:
                out[k] = sub
        return out


def _lower_type(t: Any) -> Any:
    if isinstance(t, str) and t in _GEMINI_TYPES:
        return t.lower()
    if isinstance(t, list):
        return [x.lower() if isinstance(x, str) and x in _GEMINI_TYPES else x for x in t]
    return t


# --------------------------------------------------------------------------------------


def from_json(
    value: Any, fmt: str | None = None, *, trust_functions: bool = False
) -> tuple[list[Tool], list[Diagnostic]]:
    """Every tool in ``value`` (any supported format, or ``fmt`` forced) as IR tools.

    The Elisp slot texts of IR input are read, checked and printed again
    (:mod:`plistspec.providers.ir_meta`); code that would run when the generated file is
    loaded is dropped unless ``trust_functions``.

    A tool with errors is left out (error diagnostics say why); the others go on.
    Input that fits no format gives one error listing what was expected and where
    (JSON pointer) it stopped fitting.
    """
    diags: list[Diagnostic] = []
    forced = None
    if fmt is not None:
        forced = _ALIASES.get(fmt, fmt)
        if forced not in FORMATS:
            diags.append(
                _diag(
                    "PS500",
                    "error",
                    f"unknown input format {fmt!r}; expected one of {', '.join(FORMATS)}",
                )
            )
            return [], diags
    try:
        elems = _elements(value, forced, diags)
    except _Mismatch as m:
        where = m.pointer or "/"
        if forced:
            msg = f"not {forced} tool JSON: at {where}: {m.reason}"
        else:
            msg = f"not a tool definition in any known format: at {where}: {m.reason}. Expected one of: {_EXPECTED}"
        diags.append(_diag("PS500", "error", msg))
        return [], diags
    if not elems:
        diags.append(_diag("PS512", "warning", "the input holds no tool definitions"))
    tools: list[Tool] = []
    start = len(diags)
    for ptr, v, f in elems:
        try:
            tool = _convert(v, f, ptr, diags, trust_functions)
        except _Mismatch as m:
            diags.append(
                _diag("PS500", "error", f"not {f} tool JSON: at {m.pointer or '/'}: {m.reason}")
            )
            continue
        except RecursionError:  # pragma: no cover - defensive; the walks are iterative
            diags.append(_diag("PS500", "error", f"the tool at {ptr or '/'} is nested too deeply"))
            continue
        if tool is not None:
            tools.append(tool)
    diags[start:] = _merge_infos(diags[start:])
    return tools, diags


def _merge_infos(diags: list[Diagnostic]) -> list[Diagnostic]:
    """One info for the same note about several tools (an MCP server's 40 tools all
    carry ``$schema``): ``tools 'a', 'b' and 38 more: ...``."""
    groups: dict[tuple[str, str], list[str]] = {}
    out: list[Diagnostic | tuple[str, str]] = []
    for d in diags:
        head, sep, rest = d.message.partition(": ")
        if d.severity == "info" and sep and head.startswith("tool "):
            key = (d.code, rest)
            if key not in groups:
                groups[key] = []
                out.append(key)
            groups[key].append(head[5:])
        else:
            out.append(d)
    merged: list[Diagnostic] = []
    for item in out:
        if isinstance(item, Diagnostic):
            merged.append(item)
            continue
        names = groups[item]
        if len(names) == 1:
            who = f"tool {names[0]}"
        else:
            shown = ", ".join(names[:3])
            who = f"tools {shown}" + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        merged.append(_diag(item[0], "info", f"{who}: {item[1]}"))
    return merged
