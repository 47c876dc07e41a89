"""The functions a file defines, by their argument lists: how many arguments each takes.

Owns: :func:`file_functions` and :func:`arity`. A ``:function #'my-tool`` is only as right
as ``my-tool``'s argument list: gptel and llm call it with one value per element of
``:args`` (after the callback, for ``:async`` tools), and a function that takes another
number fails with ``wrong-number-of-arguments``. When the file defines the function
(``defun``, ``defsubst``, ``cl-defun`` with a plain argument list), its arity is known
statically; nothing is evaluated.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, List, Symbol, Vector, is_nil

__all__ = ["file_functions", "arity", "Arity"]

# (fewest arguments, most arguments or None for &rest)
Arity = tuple[int, "int | None"]

_DEFINERS = frozenset(("defun", "defsubst", "cl-defun", "cl-defsubst"))


def arity(arglist: Datum) -> Arity | None:
    """The arity of a lambda list (``(a b &optional c &rest d)``), or None when it is not
    a plain one (a ``&key`` or destructuring list of ``cl-defun``, a dotted list...)."""
    if is_nil(arglist):
        return 0, 0
    if not isinstance(arglist, List) or arglist.tail is not None:
        return None
    required = optional = 0
    state = "required"
    for x in arglist.items:
        if not isinstance(x, Symbol):
            return None
        name = x.name
        if name == "&optional":
            if state != "required":
                return None
            state = "optional"
        elif name == "&rest":
            if state == "rest":
                return None
            state = "rest"
        elif name.startswith("&"):
            return None  # &key, &aux, &body...: cl-lib's lists
        elif state == "required":
            required += 1
        elif state == "optional":
            optional += 1
        else:
            return required, None
    if state == "rest":
        return None  # &rest without its variable: Emacs refuses the list
    return required, required + optional


def file_functions(datums: list[Datum]) -> dict[str, Arity]:
    """The arity of each function the file defines exactly once with a plain argument
    list (outside quoted data), by name. Iterative."""
    found: dict[str, list[Arity | None]] = {}
    stack: list[Datum] = [d for d in datums if isinstance(d, (List, Vector))]
    while stack:
        d = stack.pop()
        if isinstance(d, Vector):
            continue  # a vector is data: it defines nothing
        items = d.items
        head = items[0] if items else None
        name = head.name if isinstance(head, Symbol) and d.tail is None else None
        if name in ("quote", "function"):
            continue
        if name in _DEFINERS and len(items) >= 3 and isinstance(items[1], Symbol):
            found.setdefault(items[1].name, []).append(arity(items[2]))
        stack.extend(x for x in items if isinstance(x, List))
        if isinstance(d.tail, List):
            stack.append(d.tail)
    return {n: a[0] for n, a in found.items() if len(a) == 1 and a[0] is not None}
