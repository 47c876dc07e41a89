"""Lints across the tool forms of one file: what two forms do to each other.

Owns: PS340 (two tools of one name, :func:`duplicate_names`) and PS341 (one args list
given to a gptel and an llm constructor, :func:`shared_args`). The per-form lints
(:func:`plistspec.lint.lint`) see one form at a time; these see every tool form of the
file (``check`` runs them after the per-form checks, on the whole file or on the
streamed batches' forms together).

What the libraries do (tests/lint/test_across_forms_real.py runs them):

- ``gptel-make-tool`` stores a tool in ``gptel--known-tools`` under its category
  (``"misc"`` when none) and name: a later tool of the same name and category replaces
  the earlier one, which is lost. The same name in two categories: ``gptel-get-tool``
  with the name returns the tool of the category met first (the newest), and a request
  with both categories' tools sends both (``gptel--parse-tools`` keeps every tool),
  which Anthropic refuses (``tools: Tool names must be unique``).
- ``llm-make-tool`` (and ``gptel--make-tool``) register nothing: two tools of one name
  in one request are sent as they are (refused as above); llm runs the first one a call
  names.
- ``gptel-make-tool`` rewrites its ``:args`` in place (``gptel--preprocess-tool-args``:
  ``:type string`` becomes ``"string"``, nested ``:items`` too), so an ``llm-make-tool``
  given the same list object, before or after, signals ``(wrong-type-argument symbolp
  "string")`` when a request is built from it. ``copy-sequence`` / ``append`` copy only
  the outer list, whose arg plists gptel rewrites just the same; ``copy-tree`` copies all.

Sharing is seen in the source only: ``:args NAME`` where NAME is the same binding (a
``defvar``/``defconst`` of the file, or the same ``let``/function parameter around both
forms), through a shallow copy or not, or both forms reading ``:args`` from one datum (a
spec list handed to ``apply`` of both constructors).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.elisp.datum import Datum, List, String, Symbol, Vector, quoted
from plistspec.extract.forms import DEFTOOL_HEAD
from plistspec.lint._util import elisp_string

__all__ = ["Entry", "ToolNames", "entries", "across_entries", "across_forms"]

# gptel's constructor that does not register the tool (every other gptel head is
# gptel-make-tool or a wrapper applying it); llm-tool-collection-deftool defines a
# variable per tool, not compared here
_UNREGISTERED = "gptel--make-tool"
# public helpers that apply gptel-make-tool and then llm-make-tool (when each is fboundp)
# to the same keyword arguments: gptel-tool-library and its eai- successor
_BOTH = frozenset(
    (
        "gptel-tool-library-make-tools",
        "gptel-tool-library-make-tools-and-register",
        "eai-tool-library-make-tools",
        "eai-tool-library-make-tools-and-register",
    )
)
# the constructors a spec is handed to with (apply #'CONSTRUCTOR SPEC)
_APPLIED = {"gptel-make-tool": "gptel", "gptel--make-tool": "gptel"}
_APPLIED.update({"llm-make-tool": "llm", "make-llm-tool": "llm"})
# calls that copy only the outer list: the arg plists inside stay shared
_SHALLOW = frozenset(("copy-sequence", "seq-copy", "copy-alist", "append", "nreverse", "reverse"))
# forms binding variables: (HEAD BINDINGS BODY...) and (HEAD NAME ARGLIST BODY...)
_LETS = frozenset(("let", "let*", "letrec", "dlet", "if-let", "if-let*", "when-let", "when-let*"))
_LOOPS = frozenset(("dolist", "dotimes", "cl-dolist", "seq-doseq"))
# forms whose clauses are alternatives: (cond CLAUSE...) and (HEAD VALUE CLAUSE...)
_CONDITIONALS = frozenset(
    ("cond", "pcase", "pcase-exhaustive", "cl-case", "cl-ecase", "cl-typecase", "cl-etypecase")
)
_DEFUNS = frozenset(("defun", "defsubst", "cl-defun", "defmacro", "cl-defmacro", "define-inline"))
# top-level forms whose body is code run on its own: a tool no registry keeps, made in one
# of them, goes to the requests that body builds (an ert test, a function), not another's
_DEFINITIONS = _DEFUNS | frozenset(("ert-deftest", "cl-defmethod", "cl-defgeneric"))


class Entry:
    """What these lints need of one tool form (a streamed file keeps these, not the forms):
    its head, library (``gptel``/``llm``), whether it goes to gptel's registry (not
    ``gptel--make-tool`` nor llm's), name and category when written as strings, the
    key of the args list object it is given (None: its own) and its span in ``text``."""

    __slots__ = (
        "head",
        "lib",
        "registers",
        "name",
        "category",
        "args",
        "args_at",
        "start",
        "end",
        "text",
        "branches",
        "both",
        "definition",
    )

    def __init__(self, form: Any, scopes: _Scopes) -> None:
        self.head = form.head
        self.lib = form.dialect
        self.registers = form.dialect == "gptel" and form.head != _UNREGISTERED
        self.name = None if form.head == DEFTOOL_HEAD else _static_string(form, ":name")
        self.category = _static_string(form, ":category") or "misc"
        self.start, self.end, self.text = form.start, form.end, form.text
        self.args: tuple | None = None
        self.args_at: tuple[int, int] = (form.start, form.end)
        s = form.slot(":args")
        self.both = form.head in _BOTH and _typed(s)
        self.definition = scopes.definition(form.start)
        var = None
        if s is not None:
            self.args_at = (s.form.start, s.form.end)
            if not s.evaluated:  # data handed to apply: the same datum is the same object
                self.args = ("datum", s.form.start, s.form.end)
            else:
                var = _variable(s.form)
        if scopes.top_level(form):
            self.branches = ()
            if var is not None:
                self.args = ("var", var.name, -1)
        elif var is None:
            self.branches = scopes.at(form.start, None)[1]
        else:
            binder, self.branches = scopes.at(var.start, var.name)
            self.args = ("var", var.name, binder)

    def exclusive(self, other: Entry) -> bool:
        """The two forms are in different branches of one conditional: one runs, not both;
        or neither is registered and they are made in two different function definitions
        (each builds its own requests: llm's own tests make a tool of one name per test)."""
        if (
            not (self.registers or other.registers)
            and -1 < other.definition != self.definition > -1
        ):
            return True
        theirs = dict(other.branches)
        return any(theirs.get(c, b) != b for c, b in self.branches)

    @property
    def line(self) -> int:
        return self.text.count("\n", 0, max(self.start, 0)) + 1

    @classmethod
    def applied(cls, call: List, lib: str, spec: Symbol, scopes: _Scopes, text: str) -> Entry:
        """``(apply #'CONSTRUCTOR SPEC)``: the spec's ``:args`` goes to ``lib``'s constructor."""
        e = cls.__new__(cls)
        e.head = f"(apply #'{call.items[1].items[1].name} ...)"  # type: ignore[attr-defined]
        e.lib, e.registers, e.name, e.category, e.both = lib, False, None, "misc", False
        e.definition = scopes.definition(call.start)
        e.start, e.end, e.text = call.start, call.end, text
        e.args_at = (spec.start, spec.end)
        binder, e.branches = scopes.at(spec.start, spec.name)
        e.args = ("spec", spec.name, binder)
        return e


def entries(forms: list[Any], datums: list[Datum], text: str = "") -> list[Entry]:
    """An :class:`Entry` for each of ``forms``, found in the top-level ``datums`` of
    ``text``, and for each ``(apply #'CONSTRUCTOR VARIABLE)`` among them, in source order."""
    scopes = _Scopes(datums)
    out = [Entry(f, scopes) for f in forms]
    if datums and _mentions(text, datums[0].start, datums[-1].end):
        out.extend(_applications(datums, scopes, text))
        out.sort(key=lambda e: e.start)
    return out


def _mentions(text: str, lo: int, hi: int) -> bool:
    """``text[lo:hi]`` (the datums' source: a streamed batch's, not the whole text's) may
    hand a spec to both libraries' constructors."""
    return (
        text.find("apply", lo, hi) >= 0
        and text.find("gptel", lo, hi) >= 0
        and text.find("make-tool", lo, hi) >= 0
        and (text.find("llm-make-tool", lo, hi) >= 0 or text.find("make-llm-tool", lo, hi) >= 0)
    )


def _applications(datums: list[Datum], scopes: _Scopes, text: str) -> list[Entry]:
    out = []
    stack = [d for d in reversed(datums) if type(d) is List]
    while stack:
        d = stack.pop()
        items = d.items
        if len(items) == 3 and type(items[0]) is Symbol and items[0].name == "apply":
            fn = quoted(items[1], "function") or quoted(items[1])
            spec = items[2]
            if type(fn) is Symbol and fn.name in _APPLIED and type(spec) is Symbol:
                out.append(Entry.applied(d, _APPLIED[fn.name], spec, scopes, text))
        stack.extend(x for x in reversed(items) if type(x) is List)
    return out


def _typed(s: Any) -> bool:
    """The ``:args`` of slot ``s`` may hold a symbol ``:type`` (gptel rewrites it; llm
    needs it): unknown values may."""
    if s is None:
        return False
    if s.value is None:
        return not (type(s.form) is Symbol and s.form.name == "nil")
    stack = [s.value]
    while stack:
        d = stack.pop()
        if type(d) in (List, Vector):
            items = d.items
            for i, x in enumerate(items[:-1]):
                if type(x) is Symbol and x.name == ":type" and type(items[i + 1]) is Symbol:
                    return True
            stack.extend(items)
    return False


def across_entries(
    found: list[Entry], names: ToolNames | None = None, path: str | None = None
) -> list[Diagnostic]:
    """PS340 and PS341 for the entries of one file's tool forms, in source order; with
    ``names``, PS340 also for a name a file checked before (``path``: this file's name)
    made, and this file's names are kept there as :attr:`ToolNames.pending`."""
    return duplicate_names(found, names, path) + shared_args(found)


class ToolNames:
    """The tool names of the files one ``check`` has checked so far (PS340 across
    files: a configuration split into files is loaded into one Emacs). ``first``: (library,
    name, registers) -> (file, line, category) of the first tool of it; ``pending``: the
    same for the file being checked, added to ``first`` by :meth:`commit` once the file
    is done (``check --fix`` checks a file several times)."""

    __slots__ = ("first", "pending")

    def __init__(self) -> None:
        self.first: dict[tuple[str, str, bool], tuple[str, int, str]] = {}
        self.pending: dict[tuple[str, str, bool], tuple[str, int, str]] = {}

    def commit(self) -> None:
        for key, where in self.pending.items():
            self.first.setdefault(key, where)
        self.pending = {}


def across_forms(forms: list[Any], datums: list[Datum]) -> list[Diagnostic]:
    """PS340 and PS341 for ``forms`` (the tool forms of one file, in source order) found
    in the top-level ``datums``."""
    return across_entries(entries(forms, datums))


def _static_string(form: Any, key: str) -> str | None:
    s = form.slot(key)
    if s is None:
        return None
    v = s.value if s.value is not None else s.form
    return v.value if type(v) is String else None


def duplicate_names(
    found: list[Entry], names: ToolNames | None = None, path: str | None = None
) -> list[Diagnostic]:
    """PS340 at each tool form whose name an earlier form of the same library already
    made (gptel or llm: they never share a request or a registry), in this file or, with
    ``names``, in a file checked before."""
    out: list[Diagnostic] = []
    seen: dict[tuple[str, str, bool], Entry] = {}
    pending: dict[tuple[str, str, bool], tuple[str, int, str]] = {}
    for e in found:
        if e.name is None:
            continue
        key = (e.lib, e.name, e.registers)
        first = seen.get(key)
        seen[key] = e
        if first is not None:
            if not e.exclusive(first):
                out.append(_duplicate(e, first.line, first.category))
            continue
        if names is None:
            continue
        pending[key] = (path or "-", e.line, e.category)
        elsewhere = names.first.get(key)
        if elsewhere is not None and elsewhere[0] != path:
            out.append(_duplicate(e, elsewhere[1], elsewhere[2], elsewhere[0]))
    if names is not None:
        names.pending = pending
    return out


def _duplicate(later: Entry, line: int, category: str, file: str | None = None) -> Diagnostic:
    where = f"first on line {line}" if file is None else f"first in {file} on line {line}"
    name = _q(later.name or "")
    if later.registers:
        if later.category == category:
            msg = (
                f"tool {name} is defined twice in category {_q(category)} ({where}): "
                "gptel's registry keeps this later one and the first is lost"
            )
        else:
            msg = (
                f"tool {name} is also defined in category {_q(category)} ({where}): "
                f"gptel-get-tool {name} returns only one of them (the newest category's), "
                "and a request with both categories' tools sends the name twice, which "
                "providers refuse (Anthropic: tool names must be unique)"
            )
    else:
        msg = (
            f"tool {name} is made twice ({where}): {later.head} registers nothing, so a "
            "request carrying both sends the name twice, which providers refuse (Anthropic: "
            f"tool names must be unique), and a call runs the first one {later.lib} finds"
        )
    return Diagnostic("PS340", "warning", msg, later.start, later.end)


def _q(s: str) -> str:
    return elisp_string(s)


# --- PS341 ------------------------------------------------------------------------------------


def shared_args(found: list[Entry]) -> list[Diagnostic]:
    """PS341 at the later of a gptel form and an llm form given the same args list."""
    owners: dict[tuple, Entry] = {}
    out: list[Diagnostic] = []
    for e in found:
        if e.both:
            out.append(_both(e))
        if e.args is None:
            continue
        other = owners.get(e.args)
        owners[e.args] = e
        if other is not None and other.lib != e.lib and not e.exclusive(other):
            out.append(_shared(e, other))
    return out


def _variable(d: Datum) -> Symbol | None:
    """The variable an ``:args`` value reads its arg plists from, when it is one
    (``my-args``, ``(copy-sequence my-args)``, ``(append my-args nil)``)."""
    if type(d) is Symbol:
        return None if d.name in ("nil", "t") or d.name.startswith(":") else d
    if type(d) is List and type(d.head) is Symbol and d.head.name in _SHALLOW and len(d) >= 2:
        return _variable(d.items[1])
    return None


def _shared(later: Entry, first: Entry) -> Diagnostic:
    if later.args is not None and later.args[0] == "spec":
        what, copy = f"this spec (its :args) is also handed to {first.head}", "SPEC"
    else:
        what, copy = f"these args are also given to {first.head}", "ARGS"
    return Diagnostic(
        "PS341",
        "warning",
        f"{what} (line {first.line}): gptel-make-tool rewrites them in place (:type string "
        'becomes "string"), so the llm tool signals (wrong-type-argument symbolp "string") '
        f"when a request is built, whichever is made first; give one of them (copy-tree {copy}) "
        "or a list of its own",
        *later.args_at,
    )


def _both(e: Entry) -> Diagnostic:
    return Diagnostic(
        "PS341",
        "warning",
        f"{e.head} gives these args to gptel-make-tool and then to llm-make-tool (when both "
        'are loaded): gptel-make-tool rewrites them in place (:type string becomes "string"), '
        'so the llm tool signals (wrong-type-argument symbolp "string") when a request is '
        "built; make the llm tool with llm-make-tool and args of its own",
        *e.args_at,
    )


class _Scopes:
    """Where a position of the file is: the start of the innermost ``let`` / loop /
    function binding a name around it (-1: none, the file's global variable), and the
    branches it is in (``(start of the if/cond/pcase..., branch)``, outermost first)."""

    __slots__ = ("datums", "_top")

    def __init__(self, datums: list[Datum]) -> None:
        self.datums = datums
        self._top: set[int] | None = None

    def top_level(self, form: Any) -> bool:
        """``form`` (a tool form) is a call at the top level: no binding or branch is around it."""
        if self._top is None:
            self._top = {id(d) for d in self.datums}
        return form.datum is not None and id(form.datum) in self._top

    def definition(self, pos: int) -> int:
        """The start of the top-level function definition (``defun``, ``ert-deftest``...)
        that ``pos`` is in, -1 when none."""
        k = bisect_right(self.datums, pos, key=_start) - 1
        d = self.datums[k] if k >= 0 else None
        if type(d) is not List or pos >= d.end or d.start == pos:
            return -1
        head = d.head
        return d.start if type(head) is Symbol and head.name in _DEFINITIONS else -1

    def at(self, pos: int, name: str | None) -> tuple[int, tuple[tuple[int, int], ...]]:
        found = -1
        branches: list[tuple[int, int]] = []
        level: list[Datum] = self.datums
        while True:
            k = bisect_right(level, pos, key=_start) - 1  # the last item starting at or before
            inner = level[k] if k >= 0 else None
            if type(inner) is not List or pos >= inner.end:
                return found, tuple(branches)
            if name is not None and _binds(inner, name, pos):
                found = inner.start
            b = _branch(inner, pos)
            if b is not None:
                branches.append((inner.start, b))
            level = inner.items


def _start(d: Datum) -> int:
    return d.start


def _branch(d: List, pos: int) -> int | None:
    """Which branch of the conditional ``d`` the code at ``pos`` is in (None: ``d`` is
    not one, or ``pos`` is in its condition)."""
    head = d.head
    if type(head) is not Symbol:
        return None
    h = head.name
    k = bisect_right(d.items, pos, key=_start) - 1
    if h in ("if", "if-let", "if-let*"):
        return None if k < 2 else min(k, 3) - 2  # then: 0, else: 1
    if h in _CONDITIONALS:
        first = 1 if h == "cond" else 2
        return k if k >= first else None
    return None


def _binds(d: List, name: str, pos: int) -> bool:
    """``d`` binds ``name`` for the code at ``pos`` (in its body)."""
    head = d.head
    if type(head) is not Symbol or len(d) < 3:
        return False
    h = head.name
    if h in _LETS or h in _LOOPS:
        spec = d.items[1]
        if pos < spec.end:
            return False
        if h in _LOOPS:
            return type(spec) is List and _names(spec.items[:1], name)
        items = spec.items if type(spec) is List else []
        return any(
            (type(b) is Symbol and b.name == name)
            or (type(b) is List and type(b.head) is Symbol and b.head.name == name)
            for b in items
        )
    if h in _DEFUNS and len(d) >= 4:
        return pos >= d.items[2].end and _names([d.items[2]], name)
    if h in ("lambda", "cl-function"):
        return pos >= d.items[1].end and _names([d.items[1]], name)
    return False


def _names(items: list[Datum], name: str) -> bool:
    for it in items:
        if type(it) is Symbol and it.name == name:
            return True
        if type(it) is List and _names(it.items, name):
            return True
    return False
