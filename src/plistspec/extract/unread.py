"""Tools made in a way the static reader cannot follow: one PS104 *info* per form.

Owns: :func:`unread_constructors`. :func:`plistspec.extract.find.find_tools` reads a
constructor call written as such (and ``(apply #'gptel-make-tool ...)`` of a list it can
compute); every other use of a constructor makes a tool plistspec never sees, and a
file whose only tools are made so would pass ``check`` in silence (Flymake's ``[0 0]``).
Reported, once per form:

* a constructor chosen at run time: ``(apply (if anon #'gptel--make-tool
  #'gptel-make-tool) slots)`` (kmontag/macher);
* ``(apply #'gptel-make-tool ARGS)`` whose list is not written in the file and not a
  spec plist the file hands it (those are read where they are written);
* a constructor handed to another function: ``(funcall #'llm-make-tool ...)``,
  ``(mapcar (apply-partially #'apply #'gptel-make-tool) specs)``, ``(defalias
  'my-make #'gptel-make-tool)``;
* a constructor call inside a backquoted template (a user macro that makes tools; the
  file's pure pass-through wrappers are read at their calls instead).

Not reported: the constructor named where nothing is made (``declare-function``,
``autoload``, ``fboundp``, ``advice-add``...), in plain quoted data, in strings or
comments. Nothing is evaluated.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.elisp.datum import Datum, List, Symbol, Vector
from plistspec.extract.forms import TOOL_HEADS, WRAPPER_HEADS, ToolForm, function_name
from plistspec.extract.wrappers import WRAPPER_DEFINERS, WRAPPER_MACROS

__all__ = ["unread_constructors"]

_NEEDLES = ("make-tool", "make-llm-tool")
# forms that name a function without calling it
_HARMLESS = frozenset(
    """declare-function autoload fboundp functionp advice-add advice-remove
    advice-member-p put get function-put function-get symbol-function
    indirect-function find-function describe-function eq eql equal memq member
    cl-defmethod require provide""".split()
)
_CALLERS = frozenset(("apply", "funcall", "apply-partially"))
_DEFINERS = frozenset((*WRAPPER_DEFINERS, *WRAPPER_MACROS))


def _ref(d: Datum) -> str | None:
    """The constructor ``#'C`` / ``'C`` names, if it is one."""
    name = function_name(d)
    return name if name in TOOL_HEADS else None


def unread_constructors(
    datums: list[Datum],
    text: str,
    tools: list[ToolForm],
    diags: list[Diagnostic],
    wrappers: dict | None = None,
) -> list[Diagnostic]:
    """PS104 for each form of ``datums`` that makes a tool :func:`find_tools` did not
    read (``tools``) nor report (``diags``). ``wrappers``: the file's pass-through
    wrappers (their definitions are not reported)."""
    if not datums:
        return []
    lo, hi = datums[0].start, datums[-1].end
    if lo < 0 or not any(text.find(n, lo, hi) >= 0 for n in _NEEDLES):
        return []
    read = {(t.start, t.end) for t in tools}
    has_specs = any(t.head == "spec" for t in tools)
    said = sorted((d.start, d.end) for d in diags if d.start >= 0)
    out: list[Diagnostic] = []
    reported: set[int] = set()
    # (datum, ancestors' lists innermost last, in backquote, in quote)
    # (datum, its ancestors' lists as a linked chain (list, outer chain) or None, ...)
    stack: list[tuple[Datum, Any, bool, bool]] = [
        (d, None, False, False) for d in reversed(datums) if isinstance(d, (List, Vector))
    ]
    while stack:
        d, up, bq, quoted = stack.pop()
        if isinstance(d, Vector):
            stack.extend(
                (x, up, bq, quoted) for x in reversed(d.items) if isinstance(x, (List, Vector))
            )
            continue
        assert isinstance(d, List)
        items = d.items
        h = items[0]
        head = h.name if isinstance(h, Symbol) and d.tail is None else None
        if head in _DEFINERS and len(items) > 1 and isinstance(items[1], Symbol):
            name = items[1].name
            if name in WRAPPER_HEADS or (wrappers and name in wrappers):
                continue  # a pass-through wrapper: its calls are read
        ref = _ref(d)
        if ref is not None and not quoted:
            hit = _where_made(d, up)
            if hit is not None and id(hit[0]) not in reported:
                form, why = hit
                if not _covered(form, read, said, has_specs):
                    reported.add(id(form))
                    head_end = form.items[min(1, len(form.items) - 1)].end
                    out.append(_info(form, why, ref, head_end))
            continue
        if head in TOOL_HEADS and bq and not quoted:
            if id(d) not in reported:
                reported.add(id(d))
                why = "it is written in a backquoted template, so the tool is made where the template is used"
                out.append(_info(d, why, head, h.end))
        inner_bq, inner_q = bq, quoted
        if head == "`" and len(items) == 2:
            inner_bq, inner_q = True, False
        elif head in (",", ",@") and len(items) == 2:
            inner_bq, inner_q = False, False
        elif head == "quote" and len(items) == 2:
            inner_q = True
        nxt = (d, up)
        kids = [x for x in items if isinstance(x, (List, Vector))]
        if isinstance(d.tail, (List, Vector)):
            kids.append(d.tail)
        stack.extend((x, nxt, inner_bq, inner_q) for x in reversed(kids))
    return out


def _where_made(ref: List, up: Any) -> tuple[List, str] | None:
    """The form that makes a tool with the constructor reference ``ref`` (``#'C``) and
    why it cannot be read, or None when nothing is made there."""
    if up is None:
        return None
    parent = up[0]
    ph = parent.items[0]
    pname = ph.name if isinstance(ph, Symbol) else None
    if pname in _HARMLESS:
        return None
    if pname in ("defalias", "fset") and parent.items[-1] is ref:
        return (
            parent,
            "the constructor is given another name, and tools made by that name are not read",
        )
    if pname in _CALLERS and len(parent.items) > 1 and parent.items[1] is ref:
        if pname == "apply":
            last = parent.items[-1]
            shown = last.name if isinstance(last, Symbol) else "a list"
            return parent, f"apply hands it `{shown}`, a list built at run time"
        return parent, f"it is called through {pname}"
    # chosen at run time, or handed to a function: the nearest apply/funcall around it
    chain = up
    while chain is not None:
        anc, chain = chain
        ah = anc.items[0]
        if isinstance(ah, Symbol) and ah.name in _CALLERS:
            return anc, "the constructor is chosen at run time"
    return parent, f"the constructor is handed to {pname or 'a form'}"


def _covered(
    form: List, read: set[tuple[int, int]], said: list[tuple[int, int]], has_specs: bool
) -> bool:
    """Whether find_tools already read ``form`` or said something inside it."""
    if (form.start, form.end) in read:
        return True
    items = form.items
    if (
        has_specs
        and isinstance(items[0], Symbol)
        and items[0].name == "apply"
        and len(items) == 3
        and isinstance(items[2], Symbol)
    ):
        return True  # (apply #'gptel-make-tool spec) over the spec plists found
    return any(form.start <= s and e <= form.end for s, e in said)


def _info(form: List, why: str, ctor: str, end: int) -> Diagnostic:
    """PS104 from the form's opening parenthesis to ``end`` (its head, and the
    constructor's argument for ``apply``...): a whole macro would be a lot to underline."""
    return Diagnostic(
        "PS104",
        "info",
        f"a tool is made here that plistspec cannot read statically: {why} "
        f"({ctor}); this tool is not checked",
        form.start,
        end,
    )
