"""Pass-through wrappers of the same file: functions and macros that only hand their
arguments to a tool constructor.

Owns: :func:`file_wrappers` (which names of the file are such wrappers, and the leading
pairs they add) and :func:`has_unquote`.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, List, String, Symbol, Vector
from plistspec.extract.forms import (
    DEFTOOL_HEAD,
    TOOL_HEADS,
    WRAPPER_HEADS,
    NotStatic,
    function_name,
    head_name,
)
from plistspec.extract.static_eval import static_eval

__all__ = ["file_wrappers", "has_unquote"]


WRAPPER_DEFINERS = ("defun", "cl-defun", "defsubst", "cl-defsubst")
WRAPPER_MACROS = ("defmacro", "cl-defmacro")


def file_wrappers(
    datums: list[Datum],
) -> dict[str, tuple[str, tuple[tuple[Symbol, Datum], ...]]]:
    """The functions and macros of the file that only hand their arguments to a tool constructor.

    Maps each name to ``(dialect, leading pairs)``. Recognised, and nothing else:
    ``(defun W (&rest ARGS) [DOC] [(declare ...)] (apply #'T [:k v ...] ARGS))`` (also
    ``cl-defun``, ``defsubst``) and ``(defmacro W (&rest ARGS) [DOC] [(declare ...)]
    `(T [:k v ...] ,@ARGS))`` (also ``cl-defmacro``, ``&body``), where ``T`` is a tool
    constructor (:data:`TOOL_HEADS`), a public wrapper without positional arguments
    (:data:`WRAPPER_HEADS`) or another such wrapper of the file, and every ``v`` is static
    without any variable. A call ``(W :name ...)`` then means ``(T :k v ... :name ...)``:
    the leading pairs come first, so they win over the same keys of the call. A name
    defined more than once in the file, or already a known head, is not a wrapper.
    """
    found: dict[str, list[tuple[str, tuple[tuple[Symbol, Datum], ...]] | None]] = {}
    stack: list[Datum] = list(datums)
    while stack:
        d = stack.pop()
        if not isinstance(d, List):
            continue
        head = head_name(d)
        if head in ("quote", "function", "`"):
            continue
        if (
            (head in WRAPPER_DEFINERS or head in WRAPPER_MACROS)
            and len(d.items) >= 2
            and isinstance(d.items[1], Symbol)
        ):
            found.setdefault(d.items[1].name, []).append(_wrapper_def(d))
        stack.extend(d.items)
        if d.tail is not None:
            stack.append(d.tail)
    pending = {
        name: v[0]
        for name, v in found.items()
        if len(v) == 1
        and v[0] is not None
        and name not in TOOL_HEADS
        and name not in WRAPPER_HEADS
        and name not in (DEFTOOL_HEAD, "apply")
    }
    out: dict[str, tuple[str, tuple[tuple[Symbol, Datum], ...]]] = {}
    # resolve chains (a wrapper of a wrapper) until nothing changes; cycles stay out
    changed = True
    while changed:
        changed = False
        for name, (target, lead) in list(pending.items()):
            if target in TOOL_HEADS:
                out[name] = (TOOL_HEADS[target], lead)
            elif target in WRAPPER_HEADS and WRAPPER_HEADS[target][1] == 0:
                out[name] = (WRAPPER_HEADS[target][0], lead)
            elif target in out:
                out[name] = (out[target][0], out[target][1] + lead)
            else:
                continue
            del pending[name]
            changed = True
    return out


def _wrapper_def(d: List) -> tuple[str, tuple[tuple[Symbol, Datum], ...]] | None:
    """``(target, leading pairs)`` if the definition ``d`` is a pure pass-through."""
    items = d.items
    macro = items[0].name in WRAPPER_MACROS  # type: ignore[union-attr]
    if len(items) < 4 or not isinstance(items[2], List) or items[2].tail is not None:
        return None
    params = items[2].items
    rest_words = ("&rest", "&body") if macro else ("&rest",)
    if not (
        len(params) == 2
        and isinstance(params[0], Symbol)
        and params[0].name in rest_words
        and isinstance(params[1], Symbol)
        and not params[1].name.startswith(("&", ":"))
        and params[1].name not in ("nil", "t")
    ):
        return None
    arg = params[1].name
    body = list(items[3:])
    if len(body) > 1 and isinstance(body[0], String):
        body = body[1:]
    while len(body) > 1 and head_name(body[0]) == "declare":
        body = body[1:]
    if len(body) != 1:
        return None
    form = body[0]
    if macro:
        if head_name(form) != "`" or len(form.items) != 2:  # type: ignore[union-attr]
            return None
        call = form.items[1]  # type: ignore[union-attr]
        if not isinstance(call, List) or call.tail is not None or len(call.items) < 2:
            return None
        target = call.items[0].name if isinstance(call.items[0], Symbol) else None
        last = call.items[-1]
        if head_name(last) != ",@" or len(last.items) != 2:  # type: ignore[union-attr]
            return None
        spread = last.items[1]  # type: ignore[union-attr]
        lead = call.items[1:-1]
    else:
        if head_name(form) != "apply" or len(form.items) < 3:  # type: ignore[union-attr]
            return None
        target = function_name(form.items[1])  # type: ignore[union-attr]
        spread = form.items[-1]  # type: ignore[union-attr]
        lead = form.items[2:-1]  # type: ignore[union-attr]
    if target is None or not (isinstance(spread, Symbol) and spread.name == arg):
        return None
    if len(lead) % 2:
        return None
    pairs: list[tuple[Symbol, Datum]] = []
    for i in range(0, len(lead), 2):
        k, v = lead[i], lead[i + 1]
        if not (isinstance(k, Symbol) and k.name.startswith(":")):
            return None
        if has_unquote(v) or isinstance(static_eval(v), NotStatic):
            return None
        pairs.append((k, v))
    return target, tuple(pairs)


def has_unquote(d: Datum) -> bool:
    stack = [d]
    while stack:
        x = stack.pop()
        if isinstance(x, Vector):
            stack.extend(x.items)
        elif isinstance(x, List):
            if head_name(x) in (",", ",@"):
                return True
            stack.extend(x.items)
            if x.tail is not None:
                stack.append(x.tail)
    return False
