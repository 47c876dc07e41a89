"""Small pieces every stage of reading tool JSON shares: JSON pointers, how a value is
described in a message, the "does not fit" signal, diagnostics.

Owns: :func:`jptr` (RFC 6901 pointers), :func:`describe`, :class:`Mismatch`, :func:`diag`.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic

__all__ = ["jptr", "describe", "Mismatch", "diag"]


def diag(code: str, severity: str, message: str) -> Diagnostic:
    return Diagnostic(code, severity, message)  # type: ignore[arg-type]


def jptr(base: str, *keys: Any) -> str:
    out = base
    for k in keys:
        out += "/" + str(k).replace("~", "~0").replace("/", "~1")
    return out


def describe(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    keys = ", ".join(f'"{k}"' for k in list(v)[:8])
    return f"an object with keys {keys}" if v else "an empty object"


class Mismatch(Exception):
    """The element does not fit a format: where (JSON pointer) and why."""

    def __init__(self, pointer: str, reason: str) -> None:
        super().__init__(reason)
        self.pointer = pointer
        self.reason = reason
