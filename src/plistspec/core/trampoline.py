"""Recursion without the call stack: write a recursive walk as a generator.

Owns: :func:`run`, the driver. A walk written as a generator asks for a child's result
with ``value = yield child_generator``; the driver keeps the pending generators on a
list, so depth is bounded by memory, never by Python's recursion limit (inputs may nest
100 000 deep).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

__all__ = ["run"]


def run(gen: Generator) -> Any:
    """Drive ``gen`` and every generator it yields; return the outermost one's result."""
    stack = [gen]
    value: Any = None
    while stack:
        try:
            child = stack[-1].send(value)
        except StopIteration as stop:
            stack.pop()
            value = stop.value
            continue
        stack.append(child)
        value = None
    return value
