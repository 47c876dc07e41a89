"""MCP ``tools/list`` entries from IR tools.

Owns: the MCP ``Tool`` shape ``{"name", "title"?, "description", "inputSchema",
"outputSchema"?, "annotations"?}``. MCP has no gptel backend and no llm provider, so
``inputSchema`` is the IR's ``parameters`` as they are (for Elisp tools: the schema the
library builds, without gptel's per-backend additions; zero-arg:
``{"type": "object", "properties": {}}``). ``title``, ``outputSchema`` and
``annotations`` come from the metadata when a JSON input carried them.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.jsoncopy import copier

__all__ = ["tool_entry"]


def tool_entry(tool: dict[str, Any], *, owned: bool = False) -> dict[str, Any]:
    """The MCP entry of ``tool`` (sharing nothing mutable with it unless ``owned``)."""
    copy_json = copier(owned)
    meta = tool.get("metadata") or {}
    out: dict[str, Any] = {"name": tool.get("name")}
    if "title" in meta:
        out["title"] = meta["title"]
    if tool.get("description") is not None:
        out["description"] = tool.get("description")
    out["inputSchema"] = copy_json(tool.get("parameters") or {"type": "object", "properties": {}})
    if "output_schema" in meta:
        out["outputSchema"] = copy_json(meta["output_schema"])
    if "annotations" in meta:
        out["annotations"] = copy_json(meta["annotations"])
    return out
