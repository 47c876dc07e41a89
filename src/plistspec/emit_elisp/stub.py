"""The stub ``:function`` written for a tool that came without an implementation.

Owns: :func:`stub` and the parameter names it uses. The stub is a lambda over the tool's
arguments (so the user sees the calling convention) that signals ``user-error`` "Tool
NAME is not implemented yet: write its :function" when called.

Parameter names: gptel and llm pass arguments by position, so the names are free. Each is
the property name with a ``_`` in front when the name is a plain symbol (``city`` →
``_city``, ``file_path`` → ``_file_path``), else ``_argN``; duplicates get ``-2``, ``-3``... The ``_`` keeps a property
called ``load-path``, ``obarray``, ``nil``, ``t`` or any other global variable's name from
binding (shadowing) that global inside the lambda, and tells the byte compiler the
argument is unused, so the file byte-compiles without a warning.
"""

from __future__ import annotations

import re
from typing import Any

from plistspec.elisp.printer import print_string, print_symbol

__all__ = ["stub", "param_names"]

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")  # file_path and file-path alike


def param_names(props: list[str]) -> list[str]:
    """Safe, unique, deterministic lambda parameter names for ``props`` (in order)."""
    out: list[str] = []
    seen: set[str] = {"_callback"}
    for i, name in enumerate(props, 1):
        sym = "_" + name if isinstance(name, str) and _PLAIN.match(name) else f"_arg{i}"
        base, n = sym, 1
        while sym in seen:
            n += 1
            sym = f"{base}-{n}"
        seen.add(sym)
        out.append(sym)
    return out


def stub(name: Any, props: list[str], is_async: bool, col: int) -> str:
    """The stub lambda's text, its ``(`` at column ``col`` (continuation lines indented)."""
    params = (["_callback"] if is_async else []) + param_names(props)
    body = " " * (col + 2)
    name_text = print_string(name) if isinstance(name, str) else '"(unnamed)"'
    return (
        f"(lambda ({' '.join(print_symbol(p) for p in params)})\n"
        + body
        + '(user-error "Tool %s is not implemented yet: write its :function" '
        + name_text
        + "))"
    )
