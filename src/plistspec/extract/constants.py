"""Constants of the same file: variables whose value is known statically.

Owns: :func:`file_constants` (which ``defconst``/``defvar`` of the file a slot may read,
and why the others may not) and :class:`Env`, what a slot's evaluation is given.
"""

from __future__ import annotations

from collections.abc import Iterable

from plistspec.elisp.datum import Datum, List, Symbol, Vector
from plistspec.extract.forms import DEFTOOL_HEAD, TOOL_HEADS, WRAPPER_HEADS, NotStatic
from plistspec.extract.static_eval import FUNCTIONS, static_eval

__all__ = ["file_constants", "Env"]

_DEFINERS = ("defconst", "defvar")
_BINDING = " binding list"  # the "head" of a list that is not a call

#: call heads whose arguments may name a constant without disqualifying it: the pure
#: functions of the evaluator, the tool constructors and ``apply`` of one
_READERS = frozenset(("apply", DEFTOOL_HEAD, *TOOL_HEADS, *WRAPPER_HEADS))


class Env:
    """The constants a slot may read, and why the other variables of the file may not."""

    __slots__ = ("values", "refused")

    def __init__(self, found: dict[str, Datum], refused: dict[str, str] | None = None) -> None:
        self.values = found
        self.refused = refused if refused is not None else getattr(found, "refused", {})

    def explain(self, ns: NotStatic) -> NotStatic:
        d = ns.datum
        if isinstance(d, Symbol) and d.name in self.refused:
            return NotStatic(f"the variable `{d.name}' ({self.refused[d.name]})", d)
        return ns


class _Constants(dict):
    """``name -> value`` with a ``refused`` map (name -> why it is not used)."""

    refused: dict[str, str]


def file_constants(datums: list[Datum], readers: Iterable[str] = ()) -> dict[str, Datum]:
    """The variables of the file whose value is known statically, by name.

    A variable qualifies when the file gives it a value exactly once, with
    ``(defconst NAME VALUE ...)`` or ``(defvar NAME VALUE ...)`` where VALUE is static
    (it may read constants defined before it), and every other mention of NAME in
    evaluated code is an argument of a pure function the evaluator knows, of a tool
    constructor or of ``apply``: so nothing in the file assigns, binds, or mutates it
    (``setq``, ``let``, ``push``, ``plist-put``, a lambda list... all disqualify).
    ``readers`` names more such heads (the file's own wrappers, :func:`file_wrappers`).
    Quoted data does not count as a mention. ``defvar`` keeps a value set before the
    file is loaded; the file's own value is the one assumed. The result also has a
    ``refused`` attribute mapping the other defined names to why they are not used.
    """
    reading = _READERS.union(readers)
    defs: dict[str, list[tuple[int, Datum]]] = {}
    bad: dict[str, str] = {}
    containers = (List, Vector)

    def mention(name: str, parent: str, index: int) -> None:
        """A symbol read in evaluated code, at ``index`` of a call of ``parent``."""
        if parent in _DEFINERS and index == 1:
            return
        if index == 0 or not (parent in FUNCTIONS or parent in reading or parent in (",", ",@")):
            if index == 0 or parent == _BINDING:
                why = "it is bound or called elsewhere in this file"
            else:
                why = f"`{parent}' uses it elsewhere in this file"
            bad.setdefault(name, why)

    # (datum, in_quote); symbols are looked at where their list is, atoms never pushed
    stack: list[tuple[Datum, bool]] = [
        (d, False) for d in reversed(datums) if isinstance(d, containers)
    ]
    while stack:
        d, in_quote = stack.pop()
        items = d.items
        if not isinstance(d, List):  # a vector
            if in_quote:
                stack.extend((x, True) for x in reversed(items) if isinstance(x, containers))
            continue
        h = items[0]
        head = h.name if isinstance(h, Symbol) and d.tail is None else None
        if in_quote:
            if head in (",", ",@") and len(items) == 2:
                x = items[1]
                if isinstance(x, Symbol):
                    mention(x.name, head, 1)
                elif isinstance(x, containers):
                    stack.append((x, False))
                continue
            if d.tail is not None and isinstance(d.tail, containers):
                stack.append((d.tail, True))
            stack.extend((x, True) for x in reversed(items) if isinstance(x, containers))
            continue
        if head in ("quote", "function") and len(items) == 2:
            if head == "quote" and isinstance(items[1], containers):
                stack.append((items[1], True))
            continue
        if head == "`" and len(items) == 2:
            if isinstance(items[1], containers):
                stack.append((items[1], True))
            continue
        if head in _DEFINERS and len(items) >= 2 and isinstance(items[1], Symbol):
            if len(items) >= 3:
                defs.setdefault(items[1].name, []).append((d.start, items[2]))
        # a list without a function at its head (a binding list, a lambda list...) is
        # not a call: a name in it is bound, not read
        call = head if head is not None else _BINDING
        t = d.tail
        if t is not None:
            if isinstance(t, Symbol):
                mention(t.name, call, len(items))
            elif isinstance(t, containers):
                stack.append((t, False))
        for i in range(len(items) - 1, -1, -1):
            x = items[i]
            if isinstance(x, Symbol):
                mention(x.name, call, i)
            elif isinstance(x, containers):
                stack.append((x, False))
    out = _Constants()
    out.refused = {}
    order = sorted((v[0][0], name, v[0][1]) for name, v in defs.items() if len(v) == 1)
    for name, v in defs.items():
        if len(v) > 1:
            out.refused[name] = "it is defined more than once in this file"
    for _, name, form in order:
        if name in bad:
            out.refused[name] = bad[name]
            continue
        value = static_eval(form, out)
        if isinstance(value, NotStatic):
            out.refused[name] = "its value is not static: " + value.reason
            continue
        out[name] = value
    return out
