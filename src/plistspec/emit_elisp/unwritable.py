"""What ``from-json`` leaves out because no gptel/llm spec can say it.

Owns: :func:`drop_empty_names` and :func:`drop_tuple_items`. A property named ``""`` (MCP servers have them) cannot
be an arg: gptel and llm send an arg's ``:name ""`` as the property ``":"`` and require
``""``, which ``check`` rightly reports (PS310). ``from-json`` therefore writes the tool
without it, with a PS521 warning, so that what it writes passes ``check``; ``fmt``,
which rewrites what the user wrote, keeps it (it never changes what is sent).

A draft-4 tuple, ``"items": [S, S]`` (older servers publish coordinate pairs so), is a
vector in an llm arg, and llm fails on it (``wrong-type-argument listp``) when it sends
the tool: ``from-json -d llm`` writes the arg without ``:items``, with a PS520 warning
(gptel sends the vector as JSON's array: kept there).
"""

from __future__ import annotations

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.ir import Tool
from plistspec.core.jsontext import brief
from plistspec.emit_elisp.forms import label

__all__ = ["drop_empty_names", "drop_tuple_items"]


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


def drop_tuple_items(tools: list[Tool], dialect: str) -> tuple[list[Tool], list[Diagnostic]]:
    """For llm, ``tools`` without the ``items`` arrays of their top-level properties
    (copies of the tools that had one), and a warning per property changed."""
    if dialect != "llm":
        return tools, []
    out: list[Tool] = []
    diags: list[Diagnostic] = []
    for tool in tools:
        params = tool.get("parameters") if isinstance(tool, dict) else None
        props = params.get("properties") if isinstance(params, dict) else None
        bad = (
            [
                k
                for k, v in props.items()
                if isinstance(v, dict) and isinstance(v.get("items"), list)
            ]
            if isinstance(props, dict)
            else []
        )
        if not bad:
            out.append(tool)
            continue
        new = dict(props)
        for k in bad:
            new[k] = {x: v for x, v in props[k].items() if x != "items"}
            diags.append(
                Diagnostic(
                    "PS520",
                    "warning",
                    f"tool {label(tool)}: property {k!r}: dropped :items {brief(props[k]['items'])} "
                    "(a draft-4 tuple: llm takes one schema and fails on a vector)",
                )
            )
        out.append({**tool, "parameters": {**params, "properties": new}})  # type: ignore[typeddict-item]
    return out, diags
