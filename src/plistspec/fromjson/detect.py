"""Provider / MCP tool JSON → IR: recognising the format of each element.

Owns: ``from_json`` (any supported tool JSON → IR tools + diagnostics: finds the tool
elements, refuses strings Emacs cannot hold, hands each element to
:func:`plistspec.fromjson.convert.convert`) and ``detect_format``. Recognised without being told (``fmt=`` forces one):

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

Parameter schemas are normalised for a gptel/llm spec (:mod:`.convert`, :mod:`.refs`): local ``$ref`` s are resolved
against the root (``$defs``/``definitions`` or any ``#/…`` pointer) and inlined, sibling
keys next to a ``$ref`` win, a recursive reference is an error naming the cycle; root
keys a spec has no place for (``additionalProperties``, ``$schema``, ``anyOf``, ``title``…)
are dropped with a warning naming them. Every walk is iterative (a generator
trampoline), so nesting depth is unlimited.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.ir import Tool
from plistspec.core.jsontext import brief
from plistspec.fromjson.common import Mismatch, describe, diag, jptr
from plistspec.fromjson.convert import convert, normalize_parameters

__all__ = ["from_json", "detect_format", "not_tool_json", "FORMATS", "normalize_parameters"]

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

# --------------------------------------------------------------------------------------
# Format recognition


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

    Raises :class:`Mismatch` for an element that fits nothing (or not the forced format).
    """
    out: list[tuple[str, Any, str]] = []
    todo: list[tuple[str, Any, bool]] = [("", value, False)]
    while todo:
        ptr, v, in_decls = todo.pop()
        if in_decls:
            if not isinstance(v, dict) or "name" not in v:
                raise Mismatch(
                    ptr, f'expected a function declaration {{"name",…}}, found {describe(v)}'
                )
            out.append((ptr, v, "gemini"))
            continue
        if isinstance(v, list):
            for i in range(len(v) - 1, -1, -1):
                todo.append((jptr(ptr, i), v[i], False))
            continue
        if (
            isinstance(v, dict)
            and ("jsonrpc" in v or "id" in v)
            and "error" in v
            and "result" not in v
        ):
            err = v["error"]
            msg = err.get("message") if isinstance(err, dict) else err
            raise Mismatch(jptr(ptr, "error"), f"the JSON-RPC response is an error: {brief(msg)}")
        wrap = _container(v)
        if wrap is not None:
            todo.append((jptr(ptr, wrap[0]), wrap[1], False))
            continue
        if isinstance(v, dict) and "cachePoint" in v and len(v) == 1:
            diags.append(diag("PS511", "info", f"skipped the Bedrock cachePoint at {ptr or '/'}"))
            continue
        fmt = _classify(v)
        if forced is not None:
            if fmt != forced and not (forced == "openai-responses" and fmt == "ir"):
                if not (forced == "gemini" and isinstance(v, dict) and "name" in v):
                    raise Mismatch(ptr, f"expected {_expected_for(forced)}, found {describe(v)}")
            fmt = forced
        if fmt is None:
            if (
                isinstance(v, dict)
                and isinstance(v.get("type"), str)
                and v.get("type") != "function"
            ):
                diags.append(
                    diag(
                        "PS511",
                        "warning",
                        f"skipped the built-in tool of type {v['type']!r} at {ptr or '/'}: it has no "
                        "parameter schema a gptel/llm tool could carry",
                    )
                )
                continue
            raise Mismatch(ptr, f"found {describe(v)}{_hint(v)}")
        if (
            fmt == "gemini"
            and isinstance(v, dict)
            and ("functionDeclarations" in v or "function_declarations" in v)
        ):
            key = "functionDeclarations" if "functionDeclarations" in v else "function_declarations"
            decls = v[key]
            if not isinstance(decls, list):
                raise Mismatch(
                    jptr(ptr, key),
                    f"expected an array of function declarations, found {describe(decls)}",
                )
            for i in range(len(decls) - 1, -1, -1):
                todo.append((jptr(ptr, key, i), decls[i], True))
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
    except Mismatch:
        return "unknown"
    fmts = {f for _, _, f in elems}
    if not fmts:
        return "unknown"
    return fmts.pop() if len(fmts) == 1 else "mixed"


def not_tool_json(value: Any) -> Diagnostic | None:
    """The PS500 error :func:`from_json` gives ``value`` when it is no tool JSON in any
    format (a ``package.json``...), else None: what ``to-json --lower`` refuses too, so
    the two commands agree on what tool JSON is."""
    try:
        _elements(value, None, [])
    except Mismatch as m:
        return diag("PS500", "error", _mismatch_message(m, None))
    return None


def _mismatch_message(m: Mismatch, forced: str | None) -> str:
    where = m.pointer or "/"
    if forced:
        return f"not {forced} tool JSON: at {where}: {m.reason}"
    return (
        f"not a tool definition in any known format: at {where}: {m.reason}. "
        f"Expected one of: {_EXPECTED}"
    )


# --------------------------------------------------------------------------------------


def from_json(
    value: Any,
    fmt: str | None = None,
    *,
    trust_functions: bool = False,
    dialect: str = "gptel",
    pointers: list[str] | None = None,
) -> tuple[list[Tool], list[Diagnostic]]:
    """Every tool in ``value`` (any supported format, or ``fmt`` forced) as IR tools.
    ``pointers``, when given, gets the JSON pointer of each tool's object in ``value``
    (in the order of the tools), for placing what later stages say of a tool.

    The Elisp slot texts of IR input are read, checked and printed again
    (:mod:`plistspec.fromjson.ir_meta`); code that would run when the generated file is
    loaded is dropped unless ``trust_functions``. ``dialect`` (the Elisp that will be
    written) words the notes about what gptel or llm does with what was dropped.

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
                diag(
                    "PS500",
                    "error",
                    f"unknown input format {fmt!r}; expected one of {', '.join(FORMATS)}",
                )
            )
            return [], diags
    from plistspec.core.jsontext import find_surrogates

    bad = find_surrogates(value)
    if bad:
        for ptr, what in bad:
            diags.append(
                diag(
                    "PS518",
                    "error",
                    f"the {what} at {ptr or '/'} holds a lone surrogate (such as \\ud800 or "
                    "\\udc80): no Emacs string or symbol can hold it",
                )
            )
        return [], diags
    from plistspec.core.jsontext import find_keys
    from plistspec.elisp.printer import BIDI

    bidi = find_keys(value, BIDI)
    if bidi:
        for ptr in bidi:
            diags.append(
                diag(
                    "PS526",
                    "error",
                    f"the key at {ptr} holds a bidirectional control character (such as "
                    "U+202E), which changes how the text around it is shown: a key is written "
                    "as an Emacs Lisp symbol, which has no escape for it; rename the key",
                )
            )
        return [], diags
    try:
        elems = _elements(value, forced, diags)
    except Mismatch as m:
        diags.append(diag("PS500", "error", _mismatch_message(m, forced)))
        return [], diags
    if not elems:
        diags.append(diag("PS512", "warning", "the input holds no tool definitions"))
    tools: list[Tool] = []
    start = len(diags)
    for ptr, v, f in elems:
        try:
            tool = convert(v, f, ptr, diags, trust_functions, dialect)
        except Mismatch as m:
            diags.append(
                diag("PS500", "error", f"not {f} tool JSON: at {m.pointer or '/'}: {m.reason}")
            )
            continue
        except RecursionError:  # pragma: no cover - defensive; the walks are iterative
            diags.append(diag("PS500", "error", f"the tool at {ptr or '/'} is nested too deeply"))
            continue
        if tool is not None:
            tools.append(tool)
            if pointers is not None:
                pointers.append(ptr)
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
        merged.append(diag(item[0], "info", f"{who}: {item[1]}"))
    return merged
