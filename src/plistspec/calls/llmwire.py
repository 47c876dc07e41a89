"""The run-time tool sets of ``plistspec-llm-mode``: what differs from gptel's.

Owns: the ``llm-`` backends of a ``lower`` request (:func:`family`) and the judgement of
a call of a tool lowered for one (:func:`declared_call`).

``plistspec-llm-mode`` (elisp/plistspec-llm.el) does not send what llm makes of a tool:
llm drops most of each argument's keywords, writes ``"type": "nil"`` and cannot write
mcp.el's string types. It sends the tool as its author declared it (every keyword of the
``:args`` plists, an argument without ``:optional`` required, no other argument), in the
envelope of the provider's wire family, with the backend ``llm-FAMILY`` (``llm-openai``,
``llm-openai-responses``, ``llm-anthropic``, ``llm-gemini``, ``llm-ollama``). Such a set
is lowered as gptel's is; its tools are then *declared* contracts, and a call of one is
refused iff, mapped back from the lowered schema the model saw, it does not fit the
declared schema: a constraint lowering moved into a description (Gemini's integer
``enum``, a ``minimum``...) is still enforced, and the model is told the problems of
its call against what the tool declared. Emacs turns llm's ``function_declarations``
wrapper and the rest of its wire around the answer.
"""

from __future__ import annotations

from typing import Any

from plistspec.calls.mapback import apply_edits, edits
from plistspec.calls.problems import Problem

__all__ = ["PREFIX", "family", "declared_call"]

PREFIX = "llm-"


def family(backend: Any) -> tuple[Any, bool]:
    """``(backend kind as gptel names it, declared?)`` of a ``lower`` request's backend."""
    if isinstance(backend, str) and backend.startswith(PREFIX):
        return backend[len(PREFIX) :], True
    return backend, False


def declared_call(
    original: Any, schemas: tuple[Any, Any], args: Any, emacs: bool, first: list[Problem]
) -> tuple[list[tuple], list[Problem]]:
    """``(edits, problems)`` of a call ``args`` of a declared tool: the edits that map it
    back from the lowered schema (the one the model saw) to the declared one, and what the
    mapped-back call breaks in the declared one (nothing: it runs). ``original`` is the
    declared schema's :class:`~plistspec.calls.validate.Checker`, ``schemas`` the
    parameters schemas ``(declared, lowered)``, ``first`` the problems of ``args`` as sent."""
    try:
        changes = edits(schemas[0], schemas[1], args, nil=emacs)
        back = apply_edits(args, changes)
    except (KeyError, IndexError, TypeError):  # a shape edits cannot follow
        changes, back = [], args
    if not changes:
        return [], first
    return changes, original.problems(back, nil=emacs)
