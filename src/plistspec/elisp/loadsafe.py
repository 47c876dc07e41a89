"""Whether loading (or byte-compiling) a file that holds a given form can run code.

Owns: :func:`function_problem` (a ``:function`` value) and :func:`value_problem` (any
other slot value), and the allow-list they read, ``grammars/elisp-load-safety.json`` with
``grammars/elisp-functions.txt`` and ``grammars/elisp-macros.txt``.

``load`` expands every macro of a top-level form before evaluating it, lambda bodies
included, and runs compiler macros; the byte compiler does the same and more. A macro
that evaluates part of its arguments when it is expanded (``eval-when-compile``,
``let-when-compile``, ``cl-macrolet``, rx's ``(eval ...)``, ``define-ccl-program``...)
therefore runs code from the file as soon as it is loaded, though the lambda holding it
is never called. Rather than a list of such macros (there is always one more), a value is
accepted only when every form in it is *known* (the rules are the grammar file's
``$comment``):

* a literal, a symbol, quoted data, ``#'FUNCTION``;
* ``(lambda ARGS BODY...)`` with ``ARGS`` symbols and every body form known;
* a call of a special form or of a vetted macro whose arguments have the shape the
  grammar gives, each form in them known;
* a call of a function Emacs 28.2, gptel and llm define (a function is never expanded;
  every compiler macro among them is swept by the tests) with known forms as arguments;

and no symbol anywhere in it, quoted data included, names a macro that is not vetted
(``(funcall 'M ...)`` and ``(apply #'M ...)`` become ``(M ...)`` when expanded or
compiled). A call of a function Emacs does not define (the user's own) is refused: it
could be a macro in the Emacs that loads the file.

Walks are iterative (any depth) and linear in the size of the value.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from plistspec.core.grammars import grammar_path
from plistspec.elisp.datum import Float, Integer, List, String, Symbol, Vector

__all__ = ["function_problem", "value_problem", "is_inert", "NOT_A_FUNCTION"]

#: symbols that are not functions: a ``:function`` naming one is an error, not code
NOT_A_FUNCTION = frozenset({"nil", "t"})

_REST = frozenset({"body", "clauses", "handlers", "case-clauses", "pairs", "place-pairs"})


def _names(name: str) -> frozenset[str]:
    with open(grammar_path(name), encoding="utf-8") as f:
        return frozenset(
            line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")
        )


class _Rules:
    __slots__ = ("shapes", "functions", "refused", "unsafe_functions")

    def __init__(self) -> None:
        with open(grammar_path("elisp-load-safety.json"), encoding="utf-8") as f:
            data = json.load(f)
        self.shapes: dict[str, list[str]] = {**data["special_forms"], **data["macros"]}
        macros = _names("elisp-macros.txt") | frozenset(data["extra_unsafe_macros"])
        unsafe = frozenset(data["unsafe_functions"]["names"])
        self.refused = (macros - frozenset(data["macros"])) | unsafe
        self.unsafe_functions = unsafe
        self.functions = _names("elisp-functions.txt") - macros - unsafe - frozenset(self.shapes)


@lru_cache(maxsize=1)
def _rules() -> _Rules:
    return _Rules()


def _proper(d: Any) -> bool:
    return type(d) is List and d.tail is None


def _is(d: Any, head: str) -> bool:
    return (
        type(d) is List
        and d.tail is None
        and len(d.items) == 2
        and type(d.items[0]) is Symbol
        and d.items[0].name == head
    )


def is_inert(d: Any) -> bool:
    """True when evaluating ``d`` runs no code: a literal, a symbol, ``'X``, ``#'SYMBOL``."""
    if type(d) in (Symbol, String, Integer, Float, Vector):
        return True
    return _is(d, "quote") or (_is(d, "function") and type(d.items[1]) is Symbol)


def _short(d: Any) -> str:
    from plistspec.elisp.printer import print_datum

    if type(d) is Symbol:
        text = print_datum(d)
    elif type(d) is List and d.items:
        text = "(" + _short(d.items[0]) + " ...)"
    else:
        text = type(d).__name__.lower()
    return text if len(text) <= 50 else text[:47] + "..."


class _Walk:
    """One check: a stack of ``(kind, datum)`` to look at, the first problem found."""

    def __init__(self) -> None:
        self.rules = _rules()
        self.stack: list[tuple[str, Any]] = []

    def run(self) -> str | None:
        from plistspec.core.gcpause import paused

        stack = self.stack
        handlers: dict[str, Any] = {}
        with paused():  # small acyclic tuples by the thousand: no collector walks
            while stack:
                kind, d = stack.pop()
                h = handlers.get(kind)
                if h is None:
                    h = handlers[kind] = getattr(
                        self, "_" + kind.replace("-", "_").replace("*", "_star")
                    )
                why = h(d)
                if why is not None:
                    return why
        return None

    # -- data: not evaluated; only its symbols are looked at
    def _data(self, d: Any) -> str | None:
        refused = self.rules.refused
        todo = [d]
        while todo:
            x = todo.pop()
            t = type(x)
            if t is Symbol:
                if x.name in refused:
                    return _refused(x)
            elif t is List:
                todo.extend(x.items)
                if x.tail is not None:
                    todo.append(x.tail)
            elif t is Vector:
                todo.extend(x.items)
        return None

    def _symbol(self, d: Any) -> str | None:
        if type(d) is not Symbol:
            return f"{_short(d)} where a symbol belongs"
        return self._data(d)

    def _function_name(self, d: Any) -> str | None:
        if type(d) is not Symbol:
            return f"{_short(d)} where a function name belongs"
        if d.name in self.rules.refused:
            return _refused(d)
        if d.name not in self.rules.functions:
            return (
                f"`{_short(d)}' is not a function plistspec knows (of Emacs 28.2, gptel "
                "or llm): it could be a macro that runs code when it is expanded"
            )
        return None

    # -- forms
    def _form(self, d: Any) -> str | None:
        t = type(d)
        if t is Symbol or t is Vector:
            return self._data(d)
        if t is not List:
            return None  # strings, numbers: self-evaluating
        if d.tail is not None:
            return f"the dotted form {_short(d)}"
        head = d.items[0]
        args = d.items[1:]
        if type(head) is List:
            if not _is_lambda(head):
                return f"the form {_short(d)}: a list where a function belongs"
            self.stack.append(("lambda", head))
            self.stack.extend(("form", a) for a in args)
            return None
        if type(head) is not Symbol:
            return f"the form {_short(d)}: {_short(head)} is not a function"
        name = head.name
        if name == "quote":
            return self._data(d) if len(args) == 1 else f"the form {_short(d)}"
        if name == "function":
            if len(args) != 1:
                return f"the form {_short(d)}"
            if _is_lambda(args[0]):
                self.stack.append(("lambda", args[0]))
                return None
            return self._function_name(args[0])
        if name == "lambda":
            self.stack.append(("lambda", d))
            return None
        if name == "`":
            if len(args) != 1:
                return f"the form {_short(d)}"
            self.stack.append(("template", args[0]))
            return None
        shape = self.rules.shapes.get(name)
        if shape is not None:
            return self._shape(name, shape, args)
        if name in self.rules.functions:
            if name in ("funcall", "apply") and args and type(args[0]) is List:
                first = args[0]
                if _is(first, "quote") and type(first.items[1]) is Symbol:
                    why = self._function_name(first.items[1])
                    if why is not None:
                        return why
            self.stack.extend(("form", a) for a in args)
            return None
        return self._function_name(head)

    def _shape(self, name: str, shape: list[str], args: list[Any]) -> str | None:
        i = 0
        for kind in shape:
            if kind in _REST:
                self.stack.append((kind, args[i:]))
                return None
            if kind.endswith("?"):
                if i >= len(args):
                    continue
                kind = kind[:-1]
            elif i >= len(args):
                return f"({name} ...) with too few arguments"
            self.stack.append((kind, args[i]))
            i += 1
        if i < len(args):
            return f"({name} ...) with too many arguments"
        return None

    def _body(self, ds: list[Any]) -> str | None:
        self.stack.extend(("form", d) for d in ds)
        return None

    def _lambda(self, d: Any) -> str | None:
        items = d.items
        if len(items) < 2:
            return "a lambda without an argument list"
        args = items[1]
        if not (
            (type(args) is Symbol and args.name == "nil")
            or (_proper(args) and all(type(a) is Symbol for a in args.items))
        ):
            return "a lambda whose argument list is not a list of symbols"
        why = self._data(args)
        if why is not None:
            return why
        self.stack.extend(("form", b) for b in items[2:])
        return None

    def _template(self, d: Any) -> str | None:
        """A backquote template: data, but each ``,X`` / ``,@X`` is a form."""
        todo = [d]
        while todo:
            x = todo.pop()
            t = type(x)
            if t is Vector:
                todo.extend(x.items)
            elif t is Symbol:
                why = self._data(x)
                if why is not None:
                    return why
            elif t is List:
                items = x.items
                head = items[0] if items else None
                if type(head) is Symbol and head.name == "`":
                    return "a nested backquote"
                if type(head) is Symbol and head.name in (",", ",@"):
                    if x.tail is not None:
                        return f"the dotted form {_short(x)}"
                    self.stack.extend(("form", a) for a in items[1:])
                    continue
                k = 0
                while k < len(items):
                    y = items[k]
                    if type(y) is Symbol and y.name in (",", ",@", "`"):
                        if y.name == "`":
                            return "a nested backquote"
                        # (a . ,b) reads as (a \, b): what follows is a form
                        self.stack.extend(("form", z) for z in items[k + 1 :])
                        if x.tail is not None:
                            self.stack.append(("form", x.tail))
                        break
                    todo.append(y)
                    k += 1
                else:
                    if x.tail is not None:
                        todo.append(x.tail)
        return None

    def _bindings(self, d: Any) -> str | None:
        if type(d) is Symbol and d.name == "nil":
            return None
        if not _proper(d):
            return f"{_short(d)} where a list of bindings belongs"
        for b in d.items:
            if type(b) is Symbol:
                why = self._data(b)
            elif _proper(b) and 1 <= len(b.items) <= 2 and type(b.items[0]) is Symbol:
                why = self._data(b.items[0])
                self.stack.extend(("form", v) for v in b.items[1:])
            else:
                why = f"the binding {_short(b)}"
            if why is not None:
                return why
        return None

    def _if_let_star_spec(self, d: Any) -> str | None:
        if type(d) is Symbol and d.name == "nil":
            return None
        if not _proper(d):
            return f"{_short(d)} where a list of bindings belongs"
        for b in d.items:
            if type(b) is Symbol:
                why = self._data(b)
            elif _proper(b) and len(b.items) == 1:
                self.stack.append(("form", b.items[0]))
                why = None
            elif _proper(b) and len(b.items) == 2 and type(b.items[0]) is Symbol:
                why = self._data(b.items[0])
                self.stack.append(("form", b.items[1]))
            else:
                why = f"the binding {_short(b)}"
            if why is not None:
                return why
        return None

    def _if_let_spec(self, d: Any) -> str | None:
        # if-let/when-let read (SYM FORM) as one binding: both readings are checked
        if _proper(d) and len(d.items) <= 2 and d.items and type(d.items[0]) is not List:
            why = self._data(d.items[0])
            if why is not None:
                return why
            self.stack.extend(("form", v) for v in d.items[1:])
            return None
        return self._if_let_star_spec(d)

    def _loop_spec(self, d: Any) -> str | None:
        if not (_proper(d) and 1 <= len(d.items) <= 3 and type(d.items[0]) is Symbol):
            return f"{_short(d)} where (VAR FORM [RESULT]) belongs"
        self.stack.extend(("form", v) for v in d.items[1:])
        return self._data(d.items[0])

    def _forms_list(self, d: Any) -> str | None:
        if not _proper(d):
            return f"{_short(d)} where a list of forms belongs"
        self.stack.extend(("form", v) for v in d.items)
        return None

    def _place(self, d: Any) -> str | None:
        self.stack.append(("form", d))
        return None

    def _clauses(self, ds: list[Any]) -> str | None:
        for c in ds:
            if not (_proper(c) and c.items):
                return f"the clause {_short(c)}"
            self.stack.extend(("form", v) for v in c.items)
        return None

    def _handlers(self, ds: list[Any]) -> str | None:
        return self._keyed(ds)

    def _case_clauses(self, ds: list[Any]) -> str | None:
        return self._keyed(ds)

    def _keyed(self, ds: list[Any]) -> str | None:
        for c in ds:
            if not (_proper(c) and c.items):
                return f"the clause {_short(c)}"
            self.stack.append(("data", c.items[0]))
            self.stack.extend(("form", v) for v in c.items[1:])
        return None

    def _pairs(self, ds: list[Any]) -> str | None:
        if len(ds) % 2:
            return "an odd number of arguments where SYMBOL VALUE pairs belong"
        for k in range(0, len(ds), 2):
            self.stack.append(("symbol", ds[k]))
            self.stack.append(("form", ds[k + 1]))
        return None

    def _place_pairs(self, ds: list[Any]) -> str | None:
        if len(ds) % 2:
            return "an odd number of arguments where PLACE VALUE pairs belong"
        self.stack.extend(("form", d) for d in ds)
        return None


def _refused(sym: Any) -> str:
    if sym.name in _rules().unsafe_functions:
        return f"compiling a call of `{_short(sym)}' evaluates its argument"
    return (
        f"`{_short(sym)}' is a macro plistspec has not vetted: it can run code when the "
        "file is loaded or compiled"
    )


def _is_lambda(d: Any) -> bool:
    return (
        type(d) is List
        and d.tail is None
        and bool(d.items)
        and type(d.items[0]) is Symbol
        and d.items[0].name == "lambda"
    )


def function_problem(d: Any) -> str | None:
    """Why loading a file whose ``:function`` is ``d`` could run code from ``d``, or None.

    A symbol, ``'SYMBOL`` or ``#'SYMBOL`` (any symbol: it is not called when the file is
    loaded) or a lambda of known forms. ``nil``, ``t``, keywords and other values that
    are no function are the caller's business (:data:`NOT_A_FUNCTION`)."""
    if type(d) is Symbol:
        return None
    if (_is(d, "quote") or _is(d, "function")) and type(d.items[1]) is Symbol:
        return None
    w = _Walk()
    if _is_lambda(d):
        w.stack.append(("lambda", d))
    elif _is(d, "function") and _is_lambda(d.items[1]):
        w.stack.append(("lambda", d.items[1]))
    elif type(d) is List and d.items:
        return f"a {_short(d)} form is evaluated when the file is loaded"
    else:
        return "it is evaluated when the file is loaded"
    return w.run()


def value_problem(d: Any) -> str | None:
    """Why ``d`` as the value of a slot other than ``:function`` could run code, or None:
    only literals, symbols and quoted data are written there."""
    if is_inert(d):
        return None  # (quote X) and (function SYM) are not expanded: nothing in them runs
    return "only literals, symbols and quoted data are written for this slot"
