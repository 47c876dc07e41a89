"""The tools registered in a running Emacs → the IR.

Owns: turning what ``plistspec-serve-registry`` reports into IR tools. Emacs prints
each tool as the constructor call that makes it (``prin1`` of ``(gptel-make-tool :name
… :args '(…) :function #'SYMBOL …)``, gptel's tools from ``gptel--known-tools``, llm's
from a variable the user names); that text goes through plistspec's own reader,
extractor and lowerer, exactly as a ``.el`` file does, so the same emitters give the
same JSON. ``:function`` is recorded as the symbol (``#'name``) when it is one; a
closure has no readable text, so ``metadata.function`` is null and
``metadata.emacs.function`` says ``"closure"``.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.ir import Tool

__all__ = ["tools_from_registry", "read_registry", "filter_entries"]


def filter_entries(
    entries: list[dict[str, Any]],
    categories: tuple[str, ...] = (),
    names: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """``entries`` whose category is one of ``categories`` and name one of ``names``
    (an empty tuple lets everything through)."""
    out = []
    for e in entries:
        if categories and e.get("category") not in categories:
            continue
        if names and e.get("name") not in names:
            continue
        out.append(e)
    return out


def tools_from_registry(
    entries: list[dict[str, Any]], origin: str = "emacs"
) -> tuple[list[Tool], list[Diagnostic]]:
    """IR tools (and diagnostics) of registry ``entries`` (``plistspec-serve-registry``)."""
    from plistspec.pipeline.tools import read_tools

    tools: list[Tool] = []
    diags: list[Diagnostic] = []
    for e in entries:
        path = f"{origin}:{e.get('name')}"
        found, more = read_tools(str(e.get("form", "")), path)
        diags.extend(more)
        for tool in found:
            meta = tool.setdefault("metadata", {})
            kind = e.get("function_kind")
            meta["emacs"] = {"function": kind, "origin": origin}
            if kind == "closure" or kind == "none":
                meta["function"] = None
        tools.extend(found)
    return tools, diags


def read_registry(
    client: Any,
    llm_variable: str | None = None,
    categories: tuple[str, ...] = (),
    names: tuple[str, ...] = (),
    origin: str = "emacs",
) -> tuple[list[Tool], list[dict[str, Any]], list[Diagnostic]]:
    """``(tools, entries, diagnostics)`` of the Emacs behind ``client`` (an
    :class:`~plistspec.emacs.client.EmacsClient`): gptel's registry plus ``llm_variable``."""
    client.ensure_loaded()
    reply = client.request({"op": "registry", "source": {"llm_variable": llm_variable}})
    entries = filter_entries(list(reply.get("tools") or []), categories, names)
    tools, diags = tools_from_registry(entries, origin)
    return tools, entries, diags
