"""The lowering jobs the command line runs, as pure functions (the CLI only prints/exits).

Owns: ``to-json --lower`` (:func:`read_for_lowering`: Elisp, or tool JSON when the file
name ends in ``.json``; :func:`lower_inputs`: lower every tool, starting for Elisp from
what gptel/llm send the target (:func:`plistspec.emit_json.target.sent_tools`), place
each rewrite in its file, emit the target's JSON, or nothing when an error remains) and ``from-json
--target`` (:func:`lower_for_elisp`: lower for the target, and :func:`verify_elisp`:
read the written Elisp back, emit what gptel/llm would send the target, and check it
against the target's rules, so a rewrite that Elisp cannot carry is an error, not a 400).
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic, locate

__all__ = ["read_for_lowering", "lower_inputs", "lower_for_elisp", "verify_elisp"]


def read_for_lowering(
    text: str, name: str, dialect: str | None, places: list[tuple[str, str]] | None = None
) -> tuple[list[dict[str, Any]], list[Diagnostic], bool]:
    """``(tools, diagnostics, is_elisp)`` for one input of ``to-json --lower``; for JSON,
    ``places`` gets where each tool is in it (:func:`plistspec.fromjson.rawjson.raw_tools`)."""
    if not name.endswith(".json"):
        from plistspec.pipeline.tools import read_tools

        tools, diags = read_tools(text, name, dialect)
        return list(tools), list(diags), True
    from plistspec.core.jsontext import JsonError, load_json
    from plistspec.fromjson.rawjson import raw_tools

    try:  # as from-json reads it: any depth, the error at its place
        value, _ = load_json(text)
    except JsonError as e:
        code, message = e.diagnostic()
        bad = Diagnostic(code, "error", message, e.pos, e.pos + 1)
        return [], locate([bad], text, name), False
    tools, diags = raw_tools(value, places)
    from plistspec.core.jsonpos import place_named

    place_named(diags, text)
    for d in diags:
        d.path = d.path or name
    locate(diags, text, name)
    return tools, diags, False


def lower_inputs(
    inputs: list[tuple[str, str, list[dict[str, Any]], bool]],
    target: str,
    places: dict[str, list[tuple[str, str]]] | None = None,
) -> tuple[Any, list[Diagnostic]]:
    """``inputs`` is ``(name, text, tools, is_elisp)`` per file. The target's JSON (None
    when an error remains) and one diagnostic per rewrite, placed in its file (for JSON
    input, through ``places``: per file name, where each tool is, as
    :func:`read_for_lowering` gave them)."""
    from plistspec.emit_json.target import sent_tools, to_target_json
    from plistspec.lowering import diagnostics_of
    from plistspec.lowering.tools import lower_tools_detailed
    from plistspec.pipeline.place import place, place_json

    diags: list[Diagnostic] = []
    started = []
    for name, text, tools, is_elisp in inputs:
        if is_elisp:  # lowering starts from what gptel/llm send the target
            tools, more = sent_tools(tools, target)
            diags.extend(locate(more, text, name))
        started.append((name, text, tools, is_elisp))
    inputs = started
    all_tools = [t for _n, _t, tools, _e in inputs for t in tools]
    lowered, records = lower_tools_detailed(all_tools, target)
    offset = 0
    for name, text, tools, is_elisp in inputs:
        mine = [
            r._replace(tool=r.tool - offset)
            for r in records
            if offset <= r.tool < offset + len(tools)
        ]
        ds = diagnostics_of(mine, target)
        if is_elisp:
            place(ds, mine, tools, text)
            locate(ds, text, name)
        else:
            if places and name in places and text:
                place_json(ds, mine, places[name], text)
            for d in ds:
                d.path = name
            locate(ds, text, name)
        diags.extend(ds)
        offset += len(tools)
    if any(d.is_error for d in diags):
        return None, diags
    return to_target_json(lowered, target, owned=True), diags  # (made here, used once)


def lower_for_elisp(
    tools: list[dict[str, Any]], target: str
) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """``tools`` lowered for ``target`` before they are written as Elisp. For a strict
    target, said once (PS439): gptel and llm send no ``strict``, so the tools written in
    strict mode's shape reach the provider non-strict."""
    from plistspec.lowering import lower_tools
    from plistspec.lowering.rules import rules

    out, diags = lower_tools(tools, target)
    if rules(target).strict_flag is not None and tools:
        diags.append(
            Diagnostic(
                "PS439",
                "info",
                f"{target}: the tools are written in strict mode's shape, but gptel and llm "
                "never send `strict: true`: the provider receives them non-strict",
                0,
                0,
            )
        )
    return out, diags


def verify_elisp(elisp: str, target: str, dialect: str) -> list[Diagnostic]:
    """Errors for what gptel/llm would send ``target`` from ``elisp`` that it would reject."""
    from plistspec.emit_json import parameters_sent
    from plistspec.lowering.rules import rules
    from plistspec.lowering.validate import schema_violations
    from plistspec.pipeline.tools import read_tools

    r = rules(target)
    tools, diags = read_tools(elisp, "<written>", dialect)
    out = [d for d in diags if d.is_error]
    for tool in tools:
        params = parameters_sent(tool, r["wire"])
        if params is None:
            continue
        for p, msg in schema_violations(params, r, strict=False, wire=True):
            out.append(
                Diagnostic(
                    "PS428",
                    "error",
                    f"{target}: tool {tool.get('name')!r}: the JSON {dialect} would send breaks "
                    f"a rule, {p or '/'}: {msg}",
                )
            )
    return out
