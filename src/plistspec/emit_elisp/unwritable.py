"""What ``from-json`` leaves out because no gptel/llm spec can say it.

Owns: :func:`drop_empty_names`, :func:`drop_tuple_items` and :func:`first_member`.

A property named ``""`` (MCP servers have them) cannot be an arg: gptel and llm send an
arg's ``:name ""`` as the property ``":"`` and require ``""``, which ``check`` rightly reports (PS310). ``from-json`` therefore writes the tool
without it, with a PS521 warning, so that what it writes passes ``check``; ``fmt``,
which rewrites what the user wrote, keeps it (it never changes what is sent).

A draft-4 tuple, ``"items": [S, S]`` (older servers publish coordinate pairs so), is a
vector in an llm arg, and llm fails on it (``wrong-type-argument listp``) when it sends
the tool: ``from-json -d llm`` writes the arg without ``:items``, with a PS520 warning
(gptel sends the vector as JSON's array: kept there).

A union llm cannot say (``anyOf``/``oneOf`` of several types, as ``from-json -t gemini``
writes a type list ``["boolean", "string"]``, or sentry's ``anyOf [string, array]``) left
an llm arg without ``:type``, which llm sends as ``"type": "nil"`` and every provider
refuses: ``from-json -d llm`` writes its first member instead, as it writes the first
member of a type list, with a PS520 warning naming the members left out.

An arg with no type at all (``{}`` or ``true``, any JSON value: desktop-commander's ``edit_block``)
is sent by llm as ``"type": "nil"`` too: ``from-json -d llm`` types it as Gemini's
lowering does (``object`` with properties, ``array`` with items, else ``string`` with
"any JSON value, written as text" in its description), with a PS520 warning.

An integer outside the signed 64-bit range (a ``maximum`` of 2^64 - 1) is read by Emacs as
a bignum, which Emacs 28's ``json-serialize`` refuses (``args-out-of-range``): every
request that sends it fails there (gptel's do; llm leaves bounds and defaults out). ``from-json`` leaves out a bound, ``default`` or
``examples`` that holds one (no bound is lost that a 64-bit value could reach), with a
PS528 warning; one in ``enum``/``const`` is kept, and the warning says Emacs 28 fails on it.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.ir import Tool
from plistspec.core.jsontext import brief
from plistspec.core.jsonutil import add_note, subschemas
from plistspec.emit_elisp.forms import label
from plistspec.emit_elisp.llm_types import composed_type

__all__ = [
    "drop_empty_names",
    "drop_huge_integers",
    "drop_tuple_items",
    "first_member",
    "typed_any",
]


def drop_empty_names(tools: list[Tool]) -> tuple[list[Tool], list[Diagnostic]]:
    """``tools`` without their top-level ``""`` properties (copies of the tools that had
    one; the others as they are), and a warning per tool changed."""
    out: list[Tool] = []
    diags: list[Diagnostic] = []
    for tool in tools:
        params = tool.get("parameters") if isinstance(tool, dict) else None
        props = params.get("properties") if isinstance(params, dict) else None
        if not (isinstance(props, dict) and "" in props):
            out.append(tool)
            continue
        params = dict(params)
        params["properties"] = {k: v for k, v in props.items() if k != ""}
        req = params.get("required")
        if isinstance(req, list) and "" in req:
            params["required"] = [r for r in req if r != ""]
        out.append({**tool, "parameters": params})  # type: ignore[typeddict-item]
        diags.append(
            Diagnostic(
                "PS521",
                "warning",
                f'tool {label(tool)}: property "" left out: gptel and llm would send an empty '
                ':name as the property ":" (and require "")',
            )
        )
    return out, diags


def _each_arg(
    tools: list[Tool], rewrite: Any, true_is_any: bool = False
) -> tuple[list[Tool], list[Diagnostic]]:
    """``tools`` with each top-level arg schema that ``rewrite`` (schema -> ``(new
    schema, why)`` or None) changes replaced (copies of the tools changed), and a PS520
    warning per arg. ``true_is_any``: the schema ``true`` is given as ``{}`` (any value)."""
    out: list[Tool] = []
    diags: list[Diagnostic] = []
    for tool in tools:
        params = tool.get("parameters") if isinstance(tool, dict) else None
        props = params.get("properties") if isinstance(params, dict) else None
        new = None
        for k, v in props.items() if isinstance(props, dict) else ():
            if v is True and true_is_any:
                v = {}
            got = rewrite(v) if isinstance(v, dict) else None
            if got is None:
                continue
            if new is None:
                new = dict(props)
            new[k] = got[0]
            diags.append(
                Diagnostic("PS520", "warning", f"tool {label(tool)}: property {k!r}: {got[1]}")
            )
        out.append(tool if new is None else {**tool, "parameters": {**params, "properties": new}})  # type: ignore[typeddict-item]
    return out, diags


def _untupled(schema: dict) -> tuple[dict, str] | None:
    items = schema.get("items")
    if not isinstance(items, list):
        return None
    why = f"dropped :items {brief(items)} (a draft-4 tuple: llm takes one schema and fails on a vector)"
    return {k: v for k, v in schema.items() if k != "items"}, why


def drop_tuple_items(tools: list[Tool], dialect: str) -> tuple[list[Tool], list[Diagnostic]]:
    """For llm, ``tools`` without the ``items`` arrays of their top-level properties
    (copies of the tools that had one), and a warning per property changed."""
    return _each_arg(tools, _untupled) if dialect == "llm" else (tools, [])


_COMBINATORS = ("anyOf", "oneOf", "allOf")


def _is_null(s: object) -> bool:
    return isinstance(s, dict) and s.get("type") == "null"


def _first(schema: dict) -> tuple[dict, list] | None:
    """``(schema written as its first non-null member, the other members)`` for an arg
    with no ``type`` whose union llm cannot say (a ``null`` member kept beside it: the
    writer makes the arg optional for it); None otherwise."""
    if "type" in schema or composed_type(schema) is not None:
        return None
    for key in ("anyOf", "oneOf"):
        alts = schema.get(key)
        if not isinstance(alts, list):
            continue
        nulls = [a for a in alts if _is_null(a)]
        rest = [a for a in alts if not _is_null(a)]
        if not rest or not all(isinstance(a, dict) for a in rest):
            return None
        first, others = rest[0], rest[1:]
        if "type" not in first and (agreed := composed_type(first)) is not None:
            first = {k: v for k, v in first.items() if k not in _COMBINATORS}
            first["type"] = agreed[0]  # a union of one type inside the union (notion's)
            if agreed[1] is not None:
                first["enum"] = agreed[1]
        elif "type" not in first and ("anyOf" in first or "oneOf" in first):
            inner = _first(first)  # a union inside the union (sentry's nullable one)
            if inner is None:
                return None
            first, others = inner[0], inner[1] + others
        if not others or not isinstance(first.get("type"), str):
            return None  # one member (and null): the writer's nullable union
        out = {k: v for k, v in schema.items() if k != key}
        if nulls:
            out[key] = [first, *nulls]
        else:
            for k, v in first.items():
                out.setdefault(k, v)
        return out, others
    return None


def _first_member(schema: dict) -> tuple[dict, str] | None:
    got = _first(schema)
    if got is None:
        return None
    return got[
        0
    ], f"llm cannot express a union; written as its first member (left out: {brief(got[1])})"


def first_member(tools: list[Tool], dialect: str) -> tuple[list[Tool], list[Diagnostic]]:
    """For llm, ``tools`` whose top-level args with a union llm cannot say are written as
    the union's first member (copies of the tools changed), and a warning per arg."""
    return _each_arg(tools, _first_member) if dialect == "llm" else (tools, [])


# What the writer types itself, or what says more than one type can (left as it is).
_TYPED_WITHOUT_TYPE = ("anyOf", "oneOf", "allOf", "$ref", "not")


def _json_type(v: object) -> str | None:
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    return {float: "number", str: "string"}.get(type(v))


def _typed(schema: dict) -> tuple[dict, str] | None:
    if "type" in schema or any(k in schema for k in _TYPED_WITHOUT_TYPE):
        return None
    out = dict(schema)
    values = (
        schema["enum"] if "enum" in schema else [schema["const"]] if "const" in schema else None
    )
    if values is not None:
        kinds = {_json_type(v) for v in values} if isinstance(values, list) else {None}
        if kinds == {"integer", "number"}:
            kinds = {"number"}
        if len(kinds) != 1 or None in kinds:
            return None  # values of several types (or none): llm has no one :type for them
        out["type"] = kinds.pop()
        what = f"{out['type']} (its values are)"
    elif "properties" in schema:
        out["type"], what = "object", "object (it has properties)"
    elif "items" in schema:
        out["type"], what = "array", "array (it has items)"
    else:
        out["type"], what = "string", "string (it had none: any value)"
        add_note(out, "any JSON value, written as text")
    return (
        out,
        f'no type, which llm sends as "type": "nil" (every provider refuses it): typed {what}',
    )


def typed_any(tools: list[Tool], dialect: str) -> tuple[list[Tool], list[Diagnostic]]:
    """For llm, ``tools`` whose top-level args without a type get one (copies of the
    tools changed), and a warning per arg."""
    return _each_arg(tools, _typed, true_is_any=True) if dialect == "llm" else (tools, [])


_INT64 = (-(2**63), 2**63 - 1)
# keywords whose value may go: a bound past 64 bits bounds nothing a 64-bit integer
# reaches, and default/examples only inform the model
_DROPPABLE = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "default",
    "examples",
    "multipleOf",
)


def _huge(v: object) -> bool:
    """Whether ``v`` is, or holds, an integer outside the signed 64-bit range."""
    stack = [v]
    while stack:
        x = stack.pop()
        if type(x) is int and not (_INT64[0] <= x <= _INT64[1]):
            return True
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return False


def _without_huge(schema: Any, found: list[str]) -> Any:
    """``schema`` without the droppable keywords holding a huge integer (copies of the
    nodes on the way to a change, the rest shared); each place found is added to
    ``found`` (``path: keyword``). Iterative: a schema may nest 10 000 levels."""
    if not _huge(schema):
        return schema  # the usual case: one pass, nothing copied
    # every schema node (:func:`subschemas` finds them), after its parent: (node, the
    # parent's index, the path parts from the parent) and its JSON pointer
    nodes: list[tuple[Any, int, tuple[Any, ...]]] = [(schema, -1, ())]
    paths = [""]
    drops: dict[int, list[str]] = {}
    k = 0
    while k < len(nodes):
        node, path = nodes[k][0], paths[k]
        if isinstance(node, dict):
            for key, v in node.items():  # in the schema's own order
                if (key in _DROPPABLE or key in ("enum", "const")) and _huge(v):
                    kept = key in ("enum", "const")
                    found.append(f"{path or '/'}: {key}" + (" (kept)" if kept else ""))
                    if not kept:
                        drops.setdefault(k, []).append(key)
            for parts, container, at in subschemas(node):
                nodes.append((container[at], k, parts))
                paths.append(path + "".join(f"/{p}" for p in parts))
        k += 1
    if not drops:
        return schema
    dirty = set()
    for k in drops:
        while k >= 0 and k not in dirty:
            dirty.add(k)
            k = nodes[k][1]
    copies: dict[int, dict] = {}
    for k in sorted(dirty):  # parents before children
        node, parent, parts = nodes[k]
        copy = dict(node)
        for gone in drops.get(k, ()):
            del copy[gone]
        copies[k] = copy
        if parent < 0:
            continue
        into = copies[parent]
        if len(parts) == 2:  # a member of properties / anyOf ...: that container copied once
            key = parts[0]
            if into[key] is nodes[parent][0][key]:
                into[key] = list(into[key]) if isinstance(into[key], list) else dict(into[key])
            into = into[key]
        into[parts[-1]] = copy
    return copies[0]


def drop_huge_integers(tools: list[Tool]) -> tuple[list[Tool], list[Diagnostic]]:
    """``tools`` without the bounds, defaults and examples that hold an integer outside
    the signed 64-bit range (copies of the tools changed), and a PS528 warning per tool."""
    out: list[Tool] = []
    diags: list[Diagnostic] = []
    for tool in tools:
        params = tool.get("parameters") if isinstance(tool, dict) else None
        found: list[str] = []
        new = _without_huge(params, found) if isinstance(params, dict) else params
        out.append(tool if new is params else {**tool, "parameters": new})  # type: ignore[typeddict-item]
        if found:
            dropped = [f for f in found if not f.endswith(" (kept)")]
            kept = [f[: -len(" (kept)")] for f in found if f.endswith(" (kept)")]
            what = "; ".join(
                part
                for part in (
                    dropped and f"left out: {', '.join(dropped)}",
                    kept
                    and f"kept (part of the contract; Emacs 28 fails on it): {', '.join(kept)}",
                )
                if part
            )
            diags.append(
                Diagnostic(
                    "PS528",
                    "warning",
                    f"tool {label(tool)}: an integer outside the signed 64-bit range, which "
                    "Emacs 28's json-serialize refuses (every request that sends it fails "
                    f"there: gptel's do); {what}",
                )
            )
    return out, diags
