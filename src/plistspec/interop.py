"""Interoperation with ``sexpdata``: plistspec datums as sexpdata values.

Owns: the one place plistspec uses ``sexpdata`` at run time. ``sexpdata`` is on the
project's design card, but it cannot be the reader (it misreads ``#'f``, ``?a``,
backquote, ``\\x41``, backslash-newline, ``1.``, ``#x1F`` and dotted pairs, and recurses
per nesting level), so plistspec reads with its own reader and offers this conversion
for code that already speaks sexpdata. Install with ``pip install plistspec[sexpdata]``.

The mapping: symbols → ``sexpdata.Symbol`` (``nil`` → ``[]``, ``t`` → ``True``, as
``sexpdata.loads`` gives them), strings → ``str``, numbers → ``int``/``float``, lists →
Python lists (a dotted list as ``[a, Symbol("."), b]``), vectors → ``sexpdata.Brackets``,
``(quote x)`` → ``sexpdata.Quoted(x)``. Iterative: any depth.
"""

from __future__ import annotations

from typing import Any

from plistspec.elisp.datum import Datum, Float, Integer, List, String, Symbol, Vector

__all__ = ["to_sexpdata"]


def to_sexpdata(d: Datum) -> Any:
    """``d`` as the value ``sexpdata.loads`` gives for the same (well-read) text."""
    import sexpdata

    # Post-order with an explicit stack: ("build", node, n) pops n converted children.
    out: list[Any] = []
    work: list[tuple[str, Datum]] = [("visit", d)]
    while work:
        op, node = work.pop()
        if op == "visit":
            if isinstance(node, Symbol):
                if node.name == "nil":
                    out.append([])
                elif node.name == "t":
                    out.append(True)
                else:
                    out.append(sexpdata.Symbol(node.name))
            elif isinstance(node, (String, Integer, Float)):
                out.append(node.value)
            elif isinstance(node, List):
                if (
                    node.tail is None
                    and len(node.items) == 2
                    and isinstance(node.items[0], Symbol)
                    and node.items[0].name == "quote"
                ):
                    work.append(("quote", node))
                    work.append(("visit", node.items[1]))
                    continue
                work.append(("list", node))
                if node.tail is not None:
                    work.append(("visit", node.tail))
                work.extend(("visit", x) for x in reversed(node.items))
            elif isinstance(node, Vector):
                work.append(("vector", node))
                work.extend(("visit", x) for x in reversed(node.items))
            else:  # pragma: no cover - every datum kind is handled above
                raise TypeError(f"not a datum: {node!r}")
        elif op == "quote":
            out.append(sexpdata.Quoted(out.pop()))
        elif op == "vector":
            n = len(node.items)
            items = out[len(out) - n :] if n else []
            del out[len(out) - n :]
            out.append(sexpdata.Brackets(items))
        else:  # list
            n = len(node.items) + (node.tail is not None)
            items = out[len(out) - n :]
            del out[len(out) - n :]
            if node.tail is not None:
                items[-1:-1] = [sexpdata.Symbol(".")]
            out.append(items)
    return out[0]
