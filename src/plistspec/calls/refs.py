"""The ``$ref``s of a tool's parameters made to point somewhere before lowering, and
its ``required`` made the one it declared.

Owns: :func:`restore_refs`. mcp.el turns an MCP tool's ``inputSchema`` into gptel
arguments and keeps only its ``properties`` and ``required``: the ``$defs`` of every
pydantic/FastMCP model argument (``{"$ref": "#/$defs/Address"}``) are lost, so gptel
sends a ``$ref`` to nothing and lowering would have to leave the tool out. The tool's
contract (what ``plistspec-gptel-mode`` read from mcp.el's connection, docs/emacs.md)
still has them: they are put back. A ``$ref`` that still points at nothing is loosened
(the node keeps its other keywords, e.g. its description, and accepts any value), with a
warning, rather than the tool left out: gptel alone sends the tool, and OpenAI,
Anthropic and Ollama accept it. mcp.el also marks arguments optional by their place, not
their name: the contract's ``required`` (the server's) is sent instead of gptel's.
"""

from __future__ import annotations

from typing import Any

from plistspec.calls.problems import pointer_of
from plistspec.core.jsonutil import resolve_pointer

__all__ = ["restore_refs", "DEFS_KEYS"]

DEFS_KEYS = ("$defs", "definitions")


def _refs(node: Any) -> list[tuple[list[Any], dict[str, Any]]]:
    """Every object holding a local ``$ref`` under ``node``, with its path."""
    out = []
    work: list[tuple[Any, list[Any]]] = [(node, [])]
    while work:
        n, path = work.pop()
        if isinstance(n, dict):
            if isinstance(n.get("$ref"), str) and n["$ref"].startswith("#"):
                out.append((path, n))
            work.extend((v, [*path, k]) for k, v in n.items())
        elif isinstance(n, list):
            work.extend((v, [*path, i]) for i, v in enumerate(n))
    return out


def restore_refs(params: Any, contract: Any) -> tuple[Any, list[list[Any]]]:
    """``params`` with the ``$defs`` of ``contract`` put back where its ``$ref``s need
    them, and each ``$ref`` that still points at nothing loosened; and a note per change,
    ``[pointer, code, severity, message]``. ``params`` itself is never changed."""
    if not isinstance(params, dict):
        return params, []
    params, notes = _required(params, contract)
    refs = _refs(params)
    dangling = [(p, n) for p, n in refs if not resolve_pointer(params, n["$ref"])[0]]
    if not dangling:
        return params, notes
    out = dict(params)
    if isinstance(contract, dict):
        for key in DEFS_KEYS:
            if key not in out and isinstance(contract.get(key), dict):
                out[key] = contract[key]
                notes.append(
                    [
                        f"/parameters/{key}",
                        "PS706",
                        "info",
                        f"the {key} of the tool's own schema put back (gptel's copy lost them)",
                    ]
                )
    still = [(p, n) for p, n in _refs(out) if not resolve_pointer(out, n["$ref"])[0]]
    for path, node in still:
        notes.append(
            [
                "/parameters" + pointer_of(path),
                "PS706",
                "warning",
                f"the $ref {node['$ref']} points at nothing: loosened to any value",
            ]
        )
    if still:
        out = _loosened(out, [p for p, _ in still])
    return out, notes


def _names(v: Any) -> list[str] | None:
    return v if isinstance(v, list) and all(isinstance(x, str) for x in v) else None


def _required(params: dict[str, Any], contract: Any) -> tuple[dict[str, Any], list[list[Any]]]:
    """``params`` with the ``required`` of ``contract`` when the two have the same
    properties and require others: mcp.el marks an argument optional by its place, not
    its name (the first as many as ``required`` has are taken as required), so gptel's
    copy of a server's schema that lists its properties in another order (alphabetically,
    as Go servers do) requires the wrong ones."""
    if not isinstance(contract, dict):
        return params, []
    mine, theirs = _names(contract.get("required", [])), _names(params.get("required", []))
    props, cprops = params.get("properties"), contract.get("properties")
    if mine is None or theirs is None or mine == theirs:
        return params, []
    if not isinstance(props, dict) or not isinstance(cprops, dict) or list(props) != list(cprops):
        return params, []
    out = dict(params)
    out["required"] = list(mine)
    if not mine:
        del out["required"]
    note = "required as the tool's own schema declares it (gptel's copy required others)"
    return out, [["/parameters/required", "PS706", "info", note]]


def _loosened(params: dict[str, Any], paths: list[list[Any]]) -> dict[str, Any]:
    """A copy of ``params`` (copied along each path only) whose node at each path has no
    ``$ref``."""
    out = dict(params)
    for path in paths:
        if not path:
            out.pop("$ref", None)
            continue
        cur: Any = out
        for k in path[:-1]:
            nxt = cur[k]
            nxt = dict(nxt) if isinstance(nxt, dict) else list(nxt)
            cur[k] = nxt
            cur = nxt
        cur[path[-1]] = {k: v for k, v in cur[path[-1]].items() if k != "$ref"}
    return out
