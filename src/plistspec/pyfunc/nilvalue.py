"""What an Elisp ``nil`` argument stands for, per tool argument and per library.

Owns: :func:`decide`, the one rule both halves of the bridge follow. ``from-py`` uses it to
write the Elisp-facing schema (which arguments are ``:optional``) and to say what it decided
(diagnostics PS614/PS615); ``plistspec call`` uses the very same decisions to turn a ``nil``
back into the JSON value the model sent. Both sides compute it from the tool's JSON Schema
``parameters`` and the library, so they always agree.

Why ``nil`` is ambiguous (read from gptel 0.9.9.5 and llm 0.31.1):

* gptel parses arguments with ``:null-object nil`` (``:null`` on Anthropic non-streaming),
  ``:false-object :json-false``; objects become plists, so ``{}`` is ``nil``; a missing
  argument is ``nil``. So a top-level ``nil`` is: null, ``{}`` or absent.
* llm parses with ``:null-object :null`` (``nil`` on Claude non-streaming) and then
  ``llm-provider-utils--normalize-args`` turns every ``:false``/``:json-false``, at any depth,
  into ``nil`` before any tool (sync or async) runs; objects are alists, so ``{}`` is ``nil``.
  So a top-level ``nil`` is: false, ``{}``, null (Claude non-streaming) or absent.

For each argument the candidates are kept only where the argument's schema accepts them, and
compared by what the Python function would receive (absent = its default). One distinct
outcome: unambiguous. More: if leaving the argument optional is what makes it ambiguous, the
argument becomes required in the Elisp schema (the model must always say; PS614); whatever
ambiguity remains is settled by the order below, the likeliest reading first (PS615).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["ABSENT", "Decision", "decide", "decisions", "accepts", "is_any", "nested_ambiguities"]


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()  # nil stands for a missing argument: the key is dropped
_UNKNOWN_DEFAULT = object()  # a Python default the schema does not publish


def _resolve(schema: Any, defs: dict[str, Any]) -> Any:
    seen = 0
    while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 50:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/") or ref[8:] not in defs:
            break
        schema = defs[ref[8:]]
        seen += 1
    return schema


def accepts(schema: Any, kind: str, defs: dict[str, Any]) -> bool:
    """Whether ``schema`` can accept a JSON value of type ``kind`` (``null``, ``object``...)."""
    schema = _resolve(schema, defs)
    if schema is True or schema == {}:
        return True
    if not isinstance(schema, dict):
        return False
    if "anyOf" in schema or "oneOf" in schema:
        return any(accepts(m, kind, defs) for m in schema.get("anyOf", schema.get("oneOf", [])))
    if "const" in schema:
        vals = [schema["const"]]
    elif "enum" in schema:
        vals = schema["enum"]
    else:
        vals = None
    if vals is not None:
        if kind == "null":
            return None in vals
        if kind == "boolean":
            return any(isinstance(v, bool) for v in vals)
        if kind == "object":
            return any(isinstance(v, dict) for v in vals)
        if kind == "array":
            return any(isinstance(v, list) for v in vals)
        return True
    t = schema.get("type")
    if t is None:
        return True
    types = t if isinstance(t, list) else [t]
    return kind in types or (kind == "integer" and "number" in types)


# The readings of nil, likeliest first. gptel: null arrives as nil on every transport but
# Anthropic non-streaming. llm: false always arrives as nil, null only on Claude non-streaming.
ORDER = {
    "gptel": (("null", None), ("{}", {})),
    "llm": (("false", False), ("{}", {}), ("null", None)),
}


class Decision:
    """For one argument: ``optional`` in the Elisp schema, what ``nil`` means (``value``,
    or :data:`ABSENT`), and the readings that were possible (``readings``) when more than one
    outcome was (``lossy``: the ones that now read as ``value``)."""

    __slots__ = ("optional", "value", "made_required", "lossy", "readings")

    def __init__(self, optional: bool, value: Any, made_required: bool, lossy: list[str]) -> None:
        self.optional = optional
        self.value = value
        self.made_required = made_required
        self.lossy = lossy
        self.readings: list[str] = []


def _key(v: Any) -> str:
    if v is _UNKNOWN_DEFAULT:
        return "<default>"
    return json.dumps(v, sort_keys=True)


def decide(
    schema: Any, py_required: bool, dialect: str, defs: dict[str, Any] | None = None
) -> Decision:
    """The decision for one top-level argument with JSON Schema ``schema``."""
    defs = defs or {}
    s = _resolve(schema, defs)
    nullable = accepts(s, "null", defs)
    kinds = {
        "null": nullable,
        "{}": accepts(s, "object", defs),
        "false": accepts(s, "boolean", defs),
    }
    cands = [(label, v) for label, v in ORDER.get(dialect, ORDER["gptel"]) if kinds[label]]
    if isinstance(s, dict) and "default" in s:
        absent_out: Any = s["default"]
    elif py_required:
        absent_out = None if nullable else ABSENT  # required: only null can stand in
    else:
        absent_out = _UNKNOWN_DEFAULT
    outcomes = {_key(v) for _, v in cands}
    can_be_optional = not py_required or nullable
    if can_be_optional:
        with_absent = outcomes | ({_key(absent_out)} if absent_out is not ABSENT else set())
        if len(with_absent) <= 1:
            d = Decision(True, ABSENT if not py_required else absent_out, False, [])
            d.readings = [label for label, _ in cands] + ["absent"]
            return d
        made_required = True
    else:
        made_required = False
    if not cands:
        return Decision(False, ABSENT, False, [])  # the model left a required argument out
    value = cands[0][1]
    lossy = [label for label, v in cands[1:] if _key(v) != _key(value)]
    if is_any(s):
        lossy = []  # any JSON value (PS610 says so already): nil reads as the first reading
    d = Decision(False, value, made_required and not py_required, lossy)
    d.readings = [label for label, _ in cands]
    return d


def decisions(parameters: dict[str, Any], dialect: str) -> dict[str, Decision]:
    """:func:`decide` for every top-level argument of a tool's ``parameters``."""
    defs = parameters.get("$defs") or {}
    req = set(parameters.get("required") or [])
    return {
        name: decide(s, name in req, dialect, defs)
        for name, s in (parameters.get("properties") or {}).items()
    }


def describe(value: Any) -> str:
    if value is ABSENT:
        return "a missing argument"
    return {"null": "null", "{}": "{}", "false": "false"}.get(_key(value), _key(value))


def _readings(schema: Any, dialect: str, defs: dict[str, Any]) -> list[str]:
    kinds = {"null": "null", "{}": "object", "false": "boolean"}
    return [
        label
        for label, _ in ORDER.get(dialect, ORDER["gptel"])
        if accepts(schema, kinds[label], defs)
    ]


def is_any(s: Any) -> bool:
    return s is True or s == {} or (isinstance(s, dict) and set(s) <= _ANNOTATIONS)


_ANNOTATIONS = {"description", "title", "default", "examples"}


def nested_ambiguities(parameters: dict[str, Any], dialect: str) -> list[tuple[str, list[str]]]:
    """``(path, readings)`` for every value below the top level whose ``nil`` could be two
    JSON values (read as the first; see :func:`plistspec.pyfunc.convert.repair`)."""
    defs = parameters.get("$defs") or {}
    out: list[tuple[str, list[str]]] = []
    seen: set[tuple[int, str]] = set()
    stack: list[tuple[Any, str, bool]] = [
        (s, name, True) for name, s in reversed(list((parameters.get("properties") or {}).items()))
    ]
    while stack:
        schema, path, top = stack.pop()
        s = _resolve(schema, defs)
        if not isinstance(s, dict) or (id(s), path.split("[")[0]) in seen or path.count(".") > 20:
            continue
        seen.add((id(s), path.split("[")[0]))
        if not top and not is_any(s):
            r = _readings(s, dialect, defs)
            if len(r) > 1:
                out.append((path, r))
        members = s.get("anyOf") or s.get("oneOf") or [s]
        for m in reversed(members):
            m = _resolve(m, defs)
            if not isinstance(m, dict):
                continue
            for k, sub in reversed(list((m.get("properties") or {}).items())):
                stack.append((sub, f"{path}.{k}", False))
            if isinstance(m.get("items"), dict):
                stack.append((m["items"], f"{path}[]", False))
            if isinstance(m.get("additionalProperties"), dict):
                stack.append((m["additionalProperties"], f"{path}.*", False))
    return out
