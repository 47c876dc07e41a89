"""The run-time tool sets of ``plistspec-llm-mode``: what differs from gptel's.

Owns: the ``llm-`` backends of a ``lower`` request (:func:`family`); a call of a tool
lowered for one is judged by :func:`plistspec.calls.judge.judge` like gptel's.

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

__all__ = ["PREFIX", "family"]

PREFIX = "llm-"


def family(backend: Any) -> tuple[Any, bool]:
    """``(backend kind as gptel names it, declared?)`` of a ``lower`` request's backend."""
    if isinstance(backend, str) and backend.startswith(PREFIX):
        return backend[len(PREFIX) :], True
    return backend, False
