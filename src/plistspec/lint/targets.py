"""Provider lints (PS4xx): what one provider would reject or ignore in the JSON gptel or
llm sends it for a tool form (``plistspec check --target T``).

Owns: the entry point :func:`lint_target`. The rules of
``providers.md`` §1-§3 are applied to **the JSON the real emitter produces**
(:func:`plistspec.emit_json.parameters_sent` on the lowered tool, for the target's wire format), so
the lints cannot drift from what gptel/llm send: gptel's ``additionalProperties: false``
on object args, its Gemini filter, llm's dropped arg keys... are all already in (or out
of) that JSON. Generic mistakes are the spec lints' (PS3xx).

The provider lints, one module per concern:

* :mod:`~plistspec.lint.target_tool`: the tool's name and description, read from the
  form's slots (PS401, PS402);
* :mod:`~plistspec.replay.sourcemap`: which plist each JSON schema node came from, so
  every finding points at the datum responsible (the key symbol, the value, or, for
  what is missing, the plist's opening parenthesis up to its first key);
* :mod:`~plistspec.lint.target_schema`: the per-provider rules for one schema node
  (PS403-PS411), called by the walk here, which is iterative;
* :mod:`~plistspec.lint.target_rules`: the targets judged by the rules table alone;
* :mod:`~plistspec.lint.target_data`: the tables behind them, read from
  ``grammars/providers/rules.json``.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.elisp.datum import List, Vector
from plistspec.emit_json import parameters_sent
from plistspec.extract import ToolForm
from plistspec.lint._util import Sink, is_plist
from plistspec.lint.target_data import NAME_RULES
from plistspec.lint.target_schema import SCHEMA_RULE_TARGETS, check_node
from plistspec.lint.target_tool import tool_description, tool_name
from plistspec.replay.sourcemap import Node, arg_map

__all__ = ["lint_target", "NAME_RULES"]


def lint_target(form: ToolForm, tool: Any, target: str, dialect: str) -> list[Diagnostic]:
    """PS4xx diagnostics: what ``target`` would reject or ignore in this tool's JSON.

    ``tool`` is the IR lowered from ``form`` (None when the library itself fails on the
    spec: then only the tool-level rules run, the failure being reported already).
    """
    if target in _BY_RULES:
        from plistspec.lint.target_rules import lint_by_rules

        return lint_by_rules(form, tool, target)
    sink = Sink(form.text)
    tool_name(sink, form, target)
    tool_description(sink, form, target)
    if target not in SCHEMA_RULE_TARGETS:
        return sink.diags  # no schema rule for this target: nothing to emit and walk
    params = parameters_sent(tool, target)
    args = form.slot(":args")
    if not isinstance(params, dict) or args is None or args.value is None:
        return sink.diags
    value = args.value
    elements = [a for a in value.items if is_plist(a)] if isinstance(value, (List, Vector)) else []
    llm_rules = ((tool or {}).get("metadata") or {}).get("dialect", dialect) == "llm"
    root = Node(params, None, args.key, "root")
    root.children = arg_map(elements, llm_rules)
    work = [root]
    while work:
        node = work.pop()
        check_node(sink, node, target, llm_rules, work)
    return sink.diags


_BY_RULES = frozenset(
    ("gemini-jsonschema", "anthropic-strict", "mcp-2025-06-18", "mcp-2025-11-25", "mcp-2026-07-28")
)
