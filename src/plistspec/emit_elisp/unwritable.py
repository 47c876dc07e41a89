"""What ``from-json`` leaves out because no gptel/llm spec can say it.

Owns: :func:`drop_empty_names`. A property named ``""`` (MCP servers have them) cannot
be an arg: gptel and llm send an arg's ``:name ""`` as the property ``":"`` and require
``""``, which ``check`` rightly reports (PS310). ``from-json`` therefore writes the tool
without it, with a PS521 warning, so that what it writes passes ``check``; ``fmt``,
which rewrites what the user wrote, keeps it (it never changes what is sent).
"""

from __future__ import annotations

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.ir import Tool
from plistspec.emit_elisp.forms import label

__all__ = ["drop_empty_names"]


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
