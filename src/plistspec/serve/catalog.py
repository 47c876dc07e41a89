"""What ``plistspec serve`` lists: IR tools → MCP ``Tool`` entries, and back from a name.

Owns: the served catalogue. Entries are made by the provider emitter
(``plistspec.emit_json.emit(tools, "mcp")``, exactly what ``to-json -t mcp`` prints),
after the optional lowering stage for one client (``-t TARGET``), plus what the
spec says about the tool that MCP can express:

* ``:confirm t`` → ``annotations: {"destructiveHint": true, "readOnlyHint": false}``
  (and the call needs confirmation, see :mod:`.server`);
* ``:category``, ``:include`` and ``:async`` have no MCP annotation: they are reported
  in ``_meta`` as ``plistspec/category``, ``plistspec/include`` and ``plistspec/async``
  (``:include`` is about gptel's chat buffer; ``:async`` only changes how plistspec
  waits for the result).

Duplicates: a name defined more than once is served once, at the definition that a call
runs (``served_index``: which occurrence, as Emacs reports it; by default the last, since
a later ``gptel-make-tool`` replaces an earlier one); the others are ``PS801``.

Schemas: each ``inputSchema`` is checked once, when the tool is listed, for what makes
``jsonschema`` raise rather than report (an unknown ``type`` such as ``":string"``, a
``pattern`` that is not a regular expression); such a schema is ``PS809`` and calls to
that tool run unvalidated (as gptel runs them) instead of failing inside ``jsonschema``.

Names: an MCP client such as Claude Code or Cursor hands each tool name on to the model
API behind it, so it accepts only what that API does (``served_names`` in
``grammars/providers/rules.json`` names the rule: ``[a-zA-Z0-9_-]{1,64}``). With
``map_names`` a name outside it is mapped the way ``--lower`` maps names
(:func:`plistspec.lowering.names.map_names`: refused characters become ``_``, a name too
long or already taken gets a hash of the original, so a tool keeps its served name, and
a client its permissions for it, whatever other tools come and go); calls are routed back
to the Emacs name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.jsontypes import JSON_TYPES
from plistspec.core.jsonutil import SCHEMA_LIST, SCHEMA_MAP, SCHEMA_ONE

__all__ = ["ServedTool", "build_catalog", "client_names", "schema_problem"]


@dataclass
class ServedTool:
    """One tool as served: its MCP entry and what calling it needs."""

    name: str  # the MCP name
    emacs_name: str  # the name registered in Emacs
    entry: dict[str, Any]  # the MCP Tool JSON
    dialect: str | None
    confirm: bool = False
    is_async: bool = False
    source_path: str | None = None
    fingerprint: str | None = None  # of the definition in Emacs (None: not there)
    load_error: str | None = None  # its file failed to load before defining it
    schema_problem: str | None = None  # why jsonschema cannot use its inputSchema
    validator: Any = field(default=None, repr=False)

    def validate(self, arguments: dict[str, Any]) -> str | None:
        """What the model is told when ``arguments`` do not fit (every problem, by JSON
        pointer: the one message of :mod:`plistspec.calls`, as plistspec-gptel-mode gives
        it), or None when they fit (also when the schema cannot be used: see
        ``schema_problem``). A null for an optional argument is "not given", as gptel
        treats it; Emacs still receives the null as sent."""
        if self.schema_problem is not None:
            return None
        from plistspec.calls import Checker, message

        if self.validator is None:
            self.validator = Checker(self.entry.get("inputSchema") or {"type": "object"})
        problems = self.validator.problems(arguments)
        if self.validator.broken is not None:  # jsonschema cannot use this schema after all
            self.schema_problem = self.validator.broken
            return None
        return message(self.name, problems) if problems else None


def client_names(names: list[str]) -> tuple[list[str], str]:
    """``names`` (distinct) as MCP clients accept them, and the rule's pattern. A name
    the rule accepts is kept; the others are mapped as ``--lower`` maps names."""
    from plistspec.lowering.names import map_names
    from plistspec.lowering.rules import rules, table

    r = rules(table()["served_names"]["rule"])
    # an empty name has no character to keep: it is mapped as "_" would be
    mapped = map_names([n or "_" for n in names], r)
    return [str(m) for m in mapped], r["name"]["pattern"]


def schema_problem(schema: Any) -> str | None:
    """Why ``jsonschema`` cannot validate with ``schema``, or None when it can.

    A walk of the schema (iterative, linear) for what makes validation raise instead of
    report: a ``type`` that is not a JSON Schema type, a ``pattern`` (or a
    ``patternProperties`` key) that is not a regular expression. Whatever else a call
    trips over is caught when it is validated (:meth:`ServedTool.validate`)."""
    import re

    if not isinstance(schema, dict):
        return f"it is not a JSON object ({json.dumps(schema)[:80]})"
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, list):
            stack.extend((v, f"{where}/{i}") for i, v in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        if "type" in node:
            t = node["type"]
            for x in t if isinstance(t, list) else [t]:
                if not isinstance(x, str) or x not in JSON_TYPES:
                    return f"at {where or '/'}: {json.dumps(x)} is not a JSON Schema type"
        patterns = [node["pattern"]] if "pattern" in node else []
        if isinstance(node.get("patternProperties"), dict):
            patterns.extend(node["patternProperties"])
        for p in patterns:
            try:
                re.compile(p)
            except (re.error, TypeError) as e:
                return f"at {where or '/'}: {json.dumps(p)} is not a regular expression ({e})"
        for k in SCHEMA_MAP:
            if isinstance(node.get(k), dict):
                stack.extend((v, f"{where}/{k}/{n}") for n, v in node[k].items())
        for k in SCHEMA_ONE + SCHEMA_LIST:
            if k in node:
                stack.append((node[k], f"{where}/{k}"))
    return None


def _at(meta: dict[str, Any]) -> dict[str, Any]:
    """Where a tool was defined, as :class:`Diagnostic` fields: its file and, for a tool
    read from Elisp, the line and column of its form (``FILE:LINE:COL``)."""
    src = meta.get("source") or {}
    at: dict[str, Any] = {"path": src.get("path")}
    for k in ("line", "column", "end_line", "end_column"):
        if isinstance(src.get(k), int):
            at[k] = src[k]
    return at


def _truthy(v: Any) -> bool:
    return v is not None and v is not False and v != "nil"


def build_catalog(
    tools: list[dict[str, Any]],
    lower_target: str | None = None,
    map_names: bool = True,
    served_index: dict[str, int] | None = None,
    fingerprints: dict[str, str] | None = None,
    load_errors: dict[str, str] | None = None,
) -> tuple[list[ServedTool], list[Diagnostic]]:
    """The served tools of IR ``tools``: each name once, in the order of its first
    definition, at the definition ``served_index`` names (0-based occurrence; default
    the last). ``fingerprints`` and ``load_errors`` are by Emacs name."""
    from plistspec.emit_json import emit

    diags: list[Diagnostic] = []
    served_index = served_index or {}
    fingerprints = fingerprints or {}
    load_errors = load_errors or {}
    # the lowering may rename tools for its client: calls still go to the Emacs names
    emacs_names = [str(t.get("name")) for t in tools]
    if lower_target:
        from plistspec.lowering import lower_tools  # type: ignore[attr-defined]

        lowered, more = lower_tools(tools, lower_target)
        diags.extend(more)
        if len(lowered) == len(tools):
            tools = lowered
        else:  # not one tool for one: calls could not be routed back
            diags.append(
                Diagnostic(
                    "PS806",
                    "warning",
                    f"-t {lower_target} changed the number of tools; serving them unlowered",
                )
            )
    entries, more = emit(tools, "mcp")
    diags.extend(more)
    # which occurrence of each Emacs name is served
    positions: dict[str, list[int]] = {}
    for i, n in enumerate(emacs_names):
        positions.setdefault(n, []).append(i)
    chosen: dict[str, int] = {}
    for n, where in positions.items():
        k = served_index.get(n, len(where) - 1)
        chosen[n] = where[k if 0 <= k < len(where) else -1]
    order = [positions[n][0] for n in positions]  # first definition of each name
    client: dict[str, str] = {}
    rule = ""
    if map_names:
        served_names = [str(tools[chosen[n]].get("name")) for n in positions]
        mapped, rule = client_names(served_names)
        client = dict(zip(positions, mapped, strict=True))
    served: list[ServedTool] = []
    for first in order:
        emacs_name = emacs_names[first]
        i = chosen[emacs_name]
        tool, entry = tools[i], (entries or [])[i]
        meta = tool.get("metadata") or {}
        if len(positions[emacs_name]) > 1:
            n = len(positions[emacs_name])
            k = positions[emacs_name].index(i) + 1
            diags.append(
                Diagnostic(
                    "PS801",
                    "warning",
                    f"tool {emacs_name!r} is defined {n} times; serving definition {k}, the "
                    "one Emacs calls (a later definition replaces an earlier one)",
                    **_at(meta),
                )
            )
        served_name = str(tool.get("name"))
        name = client[emacs_name] if map_names else served_name
        if name != served_name:
            diags.append(
                Diagnostic(
                    "PS802",
                    "info",
                    f"tool {emacs_name!r} is served as {name!r} (MCP clients accept only "
                    f"names matching {rule})",
                    **_at(meta),
                )
            )
        entry = dict(entry)
        entry["name"] = name
        if "description" in entry and not isinstance(entry["description"], str):
            # gptel sends a missing description as {}; MCP needs a string or nothing
            diags.append(
                Diagnostic(
                    "PS805",
                    "warning",
                    f"tool {emacs_name!r}: its description is not a string "
                    f"({json.dumps(entry['description'])}); served without one",
                    **_at(meta),
                )
            )
            del entry["description"]
        confirm = _truthy(meta.get("confirm"))
        if confirm:
            ann = dict(entry.get("annotations") or {})
            ann.setdefault("destructiveHint", True)
            ann.setdefault("readOnlyHint", False)
            entry["annotations"] = ann
        extra = {}
        if meta.get("category") is not None:
            extra["plistspec/category"] = meta["category"]
        if meta.get("include") is not None:
            extra["plistspec/include"] = meta["include"]
        if meta.get("async"):
            extra["plistspec/async"] = True
        if emacs_name != name:
            extra["plistspec/emacs-name"] = emacs_name
        if extra:
            entry["_meta"] = extra
        problem = schema_problem(entry.get("inputSchema", {"type": "object"}))
        if problem is not None:
            diags.append(
                Diagnostic(
                    "PS809",
                    "warning",
                    f"tool {emacs_name!r}: its inputSchema cannot be used to validate "
                    f"arguments ({problem}); calls to it run unvalidated, as gptel runs them",
                    **_at(meta),
                )
            )
        served.append(
            ServedTool(
                name=name,
                emacs_name=emacs_name,
                entry=entry,
                dialect=meta.get("dialect"),
                confirm=confirm,
                is_async=bool(meta.get("async")),
                source_path=(meta.get("source") or {}).get("path"),
                fingerprint=fingerprints.get(emacs_name),
                load_error=load_errors.get(emacs_name),
                schema_problem=problem,
            )
        )
    return served, diags
