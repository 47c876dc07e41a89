"""Find tool definitions in a tree of datums and read their slots statically.

Owns: which forms define tools (``gptel-make-tool``, ``llm-make-tool``, ``make-llm-tool``,
``llm-tool-collection-deftool``, and spec plists handed to ``(apply #'gptel-make-tool
SPEC)``), at any depth (``setq``, ``use-package``, ``let``...), and the static evaluator
that turns a slot's source form into the value Emacs would compute for it, without
running anything: literals, ``'x``, backquote without (or with static) unquotes,
``(list ...)``, ``(vector ...)``, ``(cons ...)``, ``(append ...)``, and ``concat`` /
``format`` over literal strings. What needs real evaluation (a variable, another
function, an unquote of one) gives a ``PS101`` warning at its span; that tool is
skipped and the others go on.

Nothing in an input file is ever executed.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, Symbol

__all__ = ["Slot", "ToolForm", "find_tools"]


class Slot:
    """One ``:key value`` pair of a tool form.

    ``form`` is the value as written (a datum of the source); ``value`` is its static
    evaluation (a datum standing for the runtime value: ``'(a b)`` gives the list
    ``(a b)``), or None when it cannot be computed statically (or is never computed:
    ``:function`` is kept as source only).
    """

    __slots__ = ("key", "form", "value")

    def __init__(self, key: Symbol, form: Datum, value: Datum | None) -> None:
        self.key = key
        self.form = form
        self.value = value

    def __repr__(self) -> str:
        return f"Slot({self.key.name}, {self.value!r})"


class ToolForm:
    """A tool definition found in the source.

    ``head`` names the defining form, ``dialect`` the library whose rules apply
    (``"gptel"`` or ``"llm"``), ``start``/``end`` the span of the whole form, ``slots``
    every keyword/value pair in order (repeated keys kept: the libraries use the first),
    ``text`` the whole source text (to slice ``form`` spans from), and ``dangling`` the
    key of an odd trailing keyword without a value, if any.
    """

    __slots__ = ("head", "dialect", "start", "end", "slots", "text", "dangling")

    def __init__(
        self,
        head: str,
        dialect: str,
        start: int,
        end: int,
        slots: list[Slot],
        text: str,
        dangling: Symbol | None = None,
    ) -> None:
        self.head = head
        self.dialect = dialect
        self.start = start
        self.end = end
        self.slots = slots
        self.text = text
        self.dangling = dangling

    def slot(self, key: str) -> Slot | None:
        """The first slot named ``key`` (e.g. ``":args"``), as Emacs's plist lookup finds it."""
        for s in self.slots:
            if s.key.name == key:
                return s
        return None

    def source(self, d: Datum) -> str:
        """The source text of a datum of this form."""
        return self.text[d.start : d.end]

    def __repr__(self) -> str:
        return f"ToolForm({self.head}, {self.slots!r})"


def find_tools(datums: list[Datum], text: str):  # -> tuple[list[ToolForm], list[Diagnostic]]
    raise NotImplementedError
