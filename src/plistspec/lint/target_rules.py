"""Provider lints for the targets judged by the rules table alone (``check --target
gemini-jsonschema | anthropic-strict | mcp-2025-06-18 | mcp-2025-11-25 | mcp-2026-07-28``).

Owns: :func:`lint_by_rules`: the JSON gptel/llm would send (through the target's wire
format) checked with :func:`plistspec.lowering.validate.schema_violations`, the same
checks ``--lower`` holds its own output to, each violation placed at the datum it came
from (:func:`plistspec.replay.sourcemap.follow`). Strict targets are judged as strict.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.extract import ToolForm

__all__ = ["lint_by_rules"]


def lint_by_rules(form: ToolForm, tool: Any, target: str) -> list[Diagnostic]:
    from plistspec.emit_json import parameters_sent
    from plistspec.lint._util import Sink
    from plistspec.lint.target_tool import tool_description, tool_name
    from plistspec.lowering.rules import rules
    from plistspec.lowering.validate import schema_violations
    from plistspec.replay.sourcemap import follow

    r = rules(target)
    sink = Sink(form.text)
    tool_name(sink, form, target)
    tool_description(sink, form, r["wire"])
    params = parameters_sent(tool, r["wire"])
    if not isinstance(params, dict):
        return sink.diags
    strict = r.strict_flag is not None
    for p, msg in schema_violations(params, r, strict=strict, wire=True):
        code = "PS403" if "refuses the keyword" in msg else "PS405"
        where = follow(form, "/parameters" + p, tool)
        sink.add(
            code, "error", f"{target} would reject the JSON {form.dialect} sends: {msg}", where
        )
    return sink.diags
