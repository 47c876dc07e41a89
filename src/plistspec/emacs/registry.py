"""The tools registered in a running Emacs → the IR.

Owns: turning what ``plistspec-serve-registry`` reports into IR tools and diagnostics.
Emacs prints each tool as the constructor call that makes it (``prin1`` of
``(gptel-make-tool :name … :args '(…) :function #'SYMBOL …)``, text properties
stripped as ``json-serialize`` ignores them; gptel's tools from ``gptel--known-tools``,
llm's from a variable the user names); that text goes through plistspec's own reader,
extractor and lowerer, exactly as a ``.el`` file does, so the same emitters give the
same JSON. ``:function`` is recorded as the symbol (``#'name``) when it is one; a
closure has no readable text, so ``metadata.function`` is null,
``metadata.emacs.function`` says ``"closure"`` and a writer of Elisp writes the stub.

Each name is reported once, at the definition gptel itself uses for it (the first
category holding it, as ``gptel-get-tool`` searches; in plistspec's own Emacs the last
definition, unless the real gptel resolves it otherwise): the others are ``PS801``. A
tool holding a string JSON cannot carry (a raw byte) is skipped with ``PS807``; gptel
not loaded, or an llm variable that is not bound, is ``PS808``.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.ir import Tool

__all__ = [
    "tools_from_registry",
    "read_registry",
    "filter_entries",
    "registry_diagnostics",
    "source_payload",
]


def source_payload(
    llm_variable: str | None = None,
    categories: tuple[str, ...] = (),
    names: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The ``source`` member of a request for gptel's registry (only ``categories``
    and ``names`` when given) plus the llm tools of ``llm_variable``."""
    return {"llm_variable": llm_variable, "categories": list(categories), "tools": list(names)}


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


def registry_diagnostics(
    reply: dict[str, Any], where: str, llm_variable: str | None = None
) -> list[Diagnostic]:
    """What a registry ``reply`` says beyond its tools: skipped and shadowed tools, and
    sources missing in that Emacs. ``where`` names the Emacs (``emacs:SERVER``)."""
    diags: list[Diagnostic] = []
    if reply.get("gptel") is False:
        diags.append(
            Diagnostic(
                "PS808",
                "warning",
                "gptel is not loaded in that Emacs (no gptel--known-tools): none of its "
                "tools can be read; load it there with (require 'gptel)",
                path=where,
            )
        )
    if llm_variable and reply.get("llm_variable_bound") is False:
        diags.append(
            Diagnostic(
                "PS808",
                "warning",
                f"the llm tools variable {llm_variable} is not bound in that Emacs",
                path=where,
            )
        )
    for s in reply.get("skipped") or []:
        diags.append(
            Diagnostic(
                "PS807",
                "warning",
                f"tool {s.get('name')!r} skipped: {s.get('message')}; the other tools are kept",
                path=f"emacs:{s.get('name')}",
            )
        )
    for s in reply.get("shadowed") or []:
        if "category" in s:
            message = (
                f"tool {s.get('name')!r} is registered more than once (category "
                f"{s.get('category')!r} too); serving the one gptel uses, as "
                f"(gptel-get-tool {s.get('name')!r}) finds it: category "
                f"{s.get('served_category')!r}"
            )
        else:
            message = (
                f"tool {s.get('name')!r} is defined {s.get('count')} times; serving "
                f"definition {s.get('served')}, the one Emacs calls"
            )
        diags.append(Diagnostic("PS801", "warning", message, path=f"emacs:{s.get('name')}"))
    return diags


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
                # Emacs printed nil for it: a writer writes the stub, not nil
                slots = meta.get("slots")
                if isinstance(slots, list):
                    meta["slots"] = [
                        s
                        for s in slots
                        if not (isinstance(s, dict) and s.get("key") == ":function")
                    ]
                meta["function_dropped"] = True
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
    reply = client.request(
        {"op": "registry", "source": source_payload(llm_variable, categories, names)}
    )
    entries = list(reply.get("tools") or [])
    tools, diags = tools_from_registry(entries, origin)
    where = f"emacs:{getattr(client, 'socket_file', '')}"
    return tools, entries, registry_diagnostics(reply, where, llm_variable) + diags
