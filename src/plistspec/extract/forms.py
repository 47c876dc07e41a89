"""The values extraction produces: tool forms, their slots, and why a form is not static.

Owns: :class:`Slot`, :class:`ToolForm`, :class:`NotStatic`, the table of heads that
define tools (:data:`TOOL_HEADS`, :data:`WRAPPER_HEADS`, :data:`DEFTOOL_HEAD`) and the two
small helpers every extraction module uses to look at a call (:func:`head_name`,
:func:`function_name`).
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, List, Symbol, quoted

__all__ = [
    "Slot",
    "ToolForm",
    "NotStatic",
    "TOOL_HEADS",
    "WRAPPER_HEADS",
    "DEFTOOL_HEAD",
    "head_name",
    "function_name",
]


class Slot:
    """One ``:key value`` pair of a tool form.

    ``form`` is the value as written (a datum of the source); ``value`` is its static
    evaluation (a datum standing for the runtime value: ``'(a b)`` gives the list
    ``(a b)``), or None when it cannot be computed statically (or is never computed:
    ``:function`` is kept as source only). ``via`` names the same-file constants the
    value was read through (``:args my-args`` after ``(defconst my-args '(...))``), in
    the order met; empty when the value is written in the form itself. ``evaluated``:
    ``form`` is source Emacs evaluates (a constructor call's argument), not data already
    evaluated (quoted spec plists, the list handed to ``apply``): ``:function my-fn`` is
    the variable ``my-fn`` in the first case, the function ``my-fn`` in the second.
    """

    __slots__ = ("key", "form", "value", "via", "evaluated")

    def __init__(
        self,
        key: Symbol,
        form: Datum,
        value: Datum | None,
        via: tuple[str, ...] = (),
        evaluated: bool = True,
    ) -> None:
        self.key = key
        self.form = form
        self.value = value
        self.via = via
        self.evaluated = evaluated

    def __repr__(self) -> str:
        return f"Slot({self.key.name}, {self.value!r})"


class ToolForm:
    """A tool definition found in the source.

    ``head`` names the defining form, ``dialect`` the library whose rules apply
    (``"gptel"`` or ``"llm"``), ``start``/``end`` the span of the whole form, ``slots``
    every keyword/value pair in order (repeated keys kept: the libraries use the first),
    ``text`` the whole source text (to slice ``form`` spans from), and ``dangling`` the
    key of an odd trailing keyword without a value, if any. ``datum``: the list the form
    was read from when it is a call (its span is the form's), else None. ``functions``:
    the arity of each function the file defines (:func:`plistspec.extract.functions.file_functions`),
    for a ``:function #'NAME``; None when the file defines none. ``file``: the
    :class:`~plistspec.extract.bindings.FileContext` of the datums the form was found in
    (None when it was made otherwise).
    """

    __slots__ = (
        "head",
        "dialect",
        "start",
        "end",
        "slots",
        "text",
        "dangling",
        "datum",
        "functions",
        "file",
    )

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
        self.datum: Datum | None = None
        self.functions: dict[str, tuple[int, int | None]] | None = None
        self.file = None

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


# --------------------------------------------------------------------------------------
# Which forms define tools

TOOL_HEADS = {
    "gptel-make-tool": "gptel",
    # gptel's internal constructor (used by gptel's own tests and some packages): the same
    # struct and the same args preprocessing, only not registered
    "gptel--make-tool": "gptel",
    "llm-make-tool": "llm",
    "make-llm-tool": "llm",
}
DEFTOOL_HEAD = "llm-tool-collection-deftool"

# Public helpers that pass their keyword arguments unchanged to ``(apply #'gptel-make-tool
# ARGS)`` (and to ``llm-make-tool``): head -> (dialect, positional arguments before the
# plist). gptel-tool-library (and its eai- successor) registers into the list variable
# named by its first argument; gptelt-make-tool also registers the tool with an MCP server.
WRAPPER_HEADS = {
    "gptel-tool-library-make-tools": ("gptel", 0),
    "gptel-tool-library-make-tools-and-register": ("gptel", 1),
    "eai-tool-library-make-tools": ("gptel", 0),
    "eai-tool-library-make-tools-and-register": ("gptel", 1),
    "gptelt-make-tool": ("gptel", 0),
}


class NotStatic:
    """Why a form cannot be evaluated statically, and where."""

    __slots__ = ("reason", "datum")

    def __init__(self, reason: str, datum: Datum) -> None:
        self.reason = reason
        self.datum = datum


def head_name(d: Datum) -> str | None:
    if isinstance(d, List) and d.tail is None and d.items and isinstance(d.items[0], Symbol):
        return d.items[0].name
    return None


def function_name(d: Datum) -> str | None:
    """``#'f`` or ``'f`` → ``"f"``."""
    inner = quoted(d, "function")
    if inner is None:
        inner = quoted(d, "quote")
    if isinstance(inner, Symbol):
        return inner.name
    return None
