"""One recognised tool element → an IR tool: names, descriptions, parameter schemas.

Owns: :func:`convert` (one element of a known format → IR tool + diagnostics) and
:func:`normalize_parameters` (a root parameter schema as a gptel/llm spec can carry it:
``$ref`` s inlined by :mod:`plistspec.fromjson.refs`, root keys a spec has no place for
dropped with a warning naming them). IR input keeps its metadata, whose Elisp slot texts
are checked by :mod:`plistspec.fromjson.ir_meta`.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.ir import Tool, make_tool
from plistspec.core.jsontext import brief
from plistspec.fromjson.common import Mismatch, describe, diag, jptr
from plistspec.fromjson.refs import GEMINI_TYPES, Resolver

__all__ = ["convert", "normalize_parameters"]

_ROOT_KEEP = ("type", "properties", "required")


def _need(d: Any, key: str, ptr: str, what: str = "an object") -> Any:
    if not isinstance(d, dict):
        raise Mismatch(ptr, f"expected an object, found {describe(d)}")
    if key not in d:
        raise Mismatch(jptr(ptr, key), f'missing key "{key}"')
    v = d[key]
    if what == "an object" and not isinstance(v, dict):
        raise Mismatch(jptr(ptr, key), f"expected an object, found {describe(v)}")
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
        obj, optr = _need(v, "function", ptr), jptr(ptr, "function")
        params, pkey = obj.get("parameters"), "parameters"
    elif fmt == "bedrock":
        obj, optr = _need(v, "toolSpec", ptr), jptr(ptr, "toolSpec")
        schema = obj.get("inputSchema")
        if schema is None:
            params, pkey = None, "inputSchema"
        else:
            if not isinstance(schema, dict) or "json" not in schema:
                raise Mismatch(jptr(optr, "inputSchema"), 'expected {"json": SCHEMA}')
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
                raise Mismatch(jptr(ptr, "metadata"), f"expected an object, found {describe(m)}")
            meta = dict(m)
    if not isinstance(obj, dict):
        raise Mismatch(optr, f"expected an object, found {describe(obj)}")
    if "name" not in obj:
        raise Mismatch(jptr(optr, "name"), 'missing key "name"')
    return obj, optr, params, optr + "/" + pkey, meta


def convert(
    v: Any,
    fmt: str,
    ptr: str,
    diags: list[Diagnostic],
    trust: bool = False,
    dialect: str = "gptel",
) -> Tool | None:
    obj, optr, params, pptr, meta = _unpack(v, fmt, ptr)
    name = obj["name"]
    if fmt != "ir" and not isinstance(name, str):
        raise Mismatch(jptr(optr, "name"), f"expected a string, found {describe(name)}")
    label = name if isinstance(name, str) else brief(name)
    if "description" in obj:
        description = obj["description"]
    else:
        description = {}
        diags.append(
            diag(
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
                diag(
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
        dialect=dialect,
    )
    if not ok:
        return None
    if fmt == "ir":
        from plistspec.fromjson.ir_meta import check_metadata

        n = len(diags)
        meta = check_metadata(meta, jptr(ptr, "metadata"), repr(label), diags, trust)
        if any(d.is_error for d in diags[n:]):
            return None
    if fmt != "ir":
        meta["args"] = "list" if parameters["properties"] else "nil"
    return make_tool(name, description, parameters, meta)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------
# Parameter schemas


def _additional_properties_note(dialect: str, has_args: bool) -> str:
    """What becomes of a dropped root ``additionalProperties: false``, as gptel 0.9.9.5 /
    llm 0.31.1 really send it: gptel writes it back (for the OpenAI family only) when the
    tool has arguments; a tool without arguments it sends as ``{"type": "object",
    "properties": {}}``; llm sends no ``additionalProperties`` for tools."""
    if dialect == "llm":
        return "llm sends no additionalProperties for a tool's parameters"
    if not has_args:
        return (
            'gptel sends a tool without arguments as {"type": "object", "properties": {}}, '
            "which accepts no argument anyway"
        )
    return (
        "gptel adds additionalProperties: false back for the OpenAI family "
        "(openai, openai-responses, ollama, bedrock) by itself"
    )


def normalize_parameters(
    params: Any,
    ptr: str,
    label: str,
    diags: list[Diagnostic],
    *,
    gemini: bool = False,
    vector_args: bool = False,
    dialect: str = "gptel",
) -> tuple[dict, bool]:
    """A root parameter schema as a gptel/llm spec can carry it; ``ok`` False on errors.

    ``vector_args``: the IR of a gptel ``:args [...]`` vector, whose ``required`` names
    are not properties (gptel sends ``properties {}``); they are kept as they are."""
    if params is None or params == {}:
        return {"type": "object", "properties": {}}, True
    if not isinstance(params, dict):
        diags.append(
            diag(
                "PS502",
                "error",
                f"tool {label!r}: the parameter schema at {ptr} must be an object, found {describe(params)}",
            )
        )
        return {}, False
    rtype = params.get("type", "object")
    if isinstance(rtype, str) and gemini:
        rtype = rtype.lower() if rtype in GEMINI_TYPES else rtype
    if rtype != "object":
        diags.append(
            diag(
                "PS502",
                "error",
                f'tool {label!r}: the parameter schema at {ptr} has type {rtype!r}; a tool\'s parameters are "type": "object"',
            )
        )
        return {}, False
    resolver = Resolver(params, ptr, label, diags, gemini)
    props = params.get("properties", {})
    if not isinstance(props, dict):
        diags.append(
            diag(
                "PS502",
                "error",
                f"tool {label!r}: {ptr}/properties must be an object, found {describe(props)}",
            )
        )
        return {}, False
    new_props = resolver.walk_map(props, jptr(ptr, "properties"))
    if resolver.failed:
        return {}, False
    out: dict[str, Any] = {"type": "object", "properties": new_props}
    req = params.get("required")
    if req is not None:
        if not isinstance(req, list):
            diags.append(
                diag(
                    "PS502",
                    "error",
                    f"tool {label!r}: {ptr}/required must be an array, found {describe(req)}",
                )
            )
            return {}, False
        good = [r for r in req if isinstance(r, str) and (vector_args or r in new_props)]
        bad = [r for r in req if not (isinstance(r, str) and (vector_args or r in new_props))]
        if bad:
            diags.append(
                diag(
                    "PS507",
                    "warning",
                    f"tool {label!r}: dropped required names that are not properties: "
                    f"{', '.join(repr(b) if isinstance(b, str) else brief(b) for b in bad)} (at {ptr}/required)",
                )
            )
        if good:
            out["required"] = good
    dropped = [k for k in params if k not in _ROOT_KEEP and k not in ("$defs", "definitions")]
    if "type" not in params:
        diags.append(
            diag(
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
            diag(
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
            why.append(_additional_properties_note(dialect, bool(new_props)))
        diags.append(
            diag("PS505", "info", f"tool {label!r}: dropped root {what}: {'; '.join(why)}")
        )
    for key in ("$defs", "definitions"):
        defs = params.get(key)
        if isinstance(defs, dict):
            unused = [k for k in defs if f"#/{key}/{k}" not in resolver.used]
            if unused:
                diags.append(
                    diag(
                        "PS506",
                        "warning",
                        f"tool {label!r}: dropped unused {key} {', '.join(repr(u) for u in unused)} (at {ptr}/{key}): "
                        "referenced definitions are written inline",
                    )
                )
    return out, True
