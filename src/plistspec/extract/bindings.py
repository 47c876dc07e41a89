"""The names a file defines as functions and binds as variables, for ``:function NAME``.

Owns: :class:`FileContext` (the top-level datums a tool form was found in, with the
names computed once, when a lint first asks) and :func:`file_names`. ``:function
my-greet`` (no ``#'``) evaluates the *variable* ``my-greet``: unless the file binds it
(``defvar``, ``setq``, ``let``, a function's parameter, a loop variable...), loading the
file signals ``void-variable``. Whether the file binds a name is a question of binding
positions only; nothing is evaluated. The answer errs on the side of "bound": any symbol
written where one of the binding forms below binds a variable counts, in any scope.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, List, Symbol, Vector
from plistspec.extract.forms import function_name
from plistspec.extract.wrappers import WRAPPER_MACROS

__all__ = ["FileContext", "FileNames", "file_names"]

# definers whose second item names a function the file defines
_FUNCTION_DEFINERS = frozenset(
    (
        "defun",
        "defsubst",
        "cl-defun",
        "cl-defsubst",
        "cl-defgeneric",
        "cl-defmethod",
        "define-inline",
    )
)
_MACRO_DEFINERS = frozenset(WRAPPER_MACROS)
_PLAIN_DEFUNS = frozenset(("defun", "defsubst"))
# (defalias 'NAME ...) / (fset 'NAME ...): the name is quoted
_ALIASERS = frozenset(("defalias", "fset", "defalias-maybe"))
# forms whose second item is a variable they define
_VARIABLE_DEFINERS = frozenset(
    ("defvar", "defconst", "defcustom", "defvar-local", "defparameter", "cl-defvar")
)
# forms binding variables in pairs (setq a 1 b 2)
_SETTERS = frozenset(
    ("setq", "setf", "setq-default", "setq-local", "cl-psetq", "psetq", "cl-psetf")
)
# forms whose first argument is a list of bindings (VAR or (VAR VALUE...))
_LETS = frozenset(
    (
        "let",
        "let*",
        "letrec",
        "dlet",
        "cl-letf",
        "cl-letf*",
        "if-let",
        "if-let*",
        "when-let",
        "when-let*",
        "and-let*",
        "while-let",
        "named-let",
        "cl-flet",
        "cl-labels",
        "cl-symbol-macrolet",
        "pcase-let",
        "pcase-let*",
        "-let",
        "-let*",
        "-when-let",
        "-if-let",
        "-when-let*",
        "-if-let*",
    )
)
# forms whose first argument is (VAR LIST...): VAR (a pattern) is bound
_LOOPS = frozenset(
    ("dolist", "dotimes", "pcase-dolist", "seq-doseq", "cl-dolist", "cl-dotimes", "cl-do-symbols")
)
# forms whose first argument is a pattern (or an argument list) whose every symbol is bound
_PATTERN_BINDERS = frozenset(
    (
        "seq-let",
        "cl-destructuring-bind",
        "condition-case",
        "lambda",
        "cl-function",
        "cl-multiple-value-bind",
        "map-let",
        "pcase-setq",
    )
)
# functions and macros whose arguments list comes third: (defun NAME ARGS ...)
_ARGLISTS = _FUNCTION_DEFINERS | _MACRO_DEFINERS
# dash's anaphoric macros bind these without writing them
_ANAPHORIC = ("it", "it-index", "acc", "other")


class FileNames:
    """``functions``: the names the file defines as functions (``defun``, ``defalias``...);
    ``macros``: as macros; ``variables``: every name it binds as a variable anywhere;
    ``returns``: the last body form of each function defined once by ``defun``/``defsubst``
    (what a call of it returns)."""

    __slots__ = ("functions", "macros", "variables", "returns")

    def __init__(
        self,
        functions: frozenset[str],
        macros: frozenset[str],
        variables: frozenset[str],
        returns: dict[str, Datum] | None = None,
    ) -> None:
        self.functions = functions
        self.macros = macros
        self.variables = variables
        self.returns = returns or {}


def _symbols(d: Datum, out: set[str]) -> None:
    """Every symbol name in ``d`` (iterative), the names a pattern may bind."""
    stack = [d]
    while stack:
        x = stack.pop()
        if isinstance(x, Symbol):
            out.add(x.name)
        elif isinstance(x, (List, Vector)):
            stack.extend(x.items)
            if isinstance(x, List) and x.tail is not None:
                stack.append(x.tail)


def file_names(datums: list[Datum]) -> FileNames:
    """The functions, macros and variables ``datums`` define or bind (iterative; quoted
    data is not looked into)."""
    functions: set[str] = set()
    macros: set[str] = set()
    returns: dict[str, list[Datum]] = {}
    variables: set[str] = set(_ANAPHORIC)
    stack: list[Datum] = [d for d in datums if isinstance(d, List)]
    while stack:
        d = stack.pop()
        if not isinstance(d, List):
            continue
        items = d.items
        h = items[0] if items else None
        head = h.name if isinstance(h, Symbol) else None
        if head in ("quote", "function") and len(items) == 2:
            inner = items[1]
            if head == "function" and isinstance(inner, List):
                stack.append(inner)  # #'(lambda (x) ...) binds x
            continue
        n = len(items)
        if head in _ARGLISTS and n >= 3 and isinstance(items[1], Symbol):
            (macros if head in _MACRO_DEFINERS else functions).add(items[1].name)
            _symbols(items[2], variables)
            if head in _PLAIN_DEFUNS and n >= 4:
                returns.setdefault(items[1].name, []).append(items[-1])
        elif head in _ALIASERS and n >= 2:
            name = function_name(items[1])
            if name is not None:
                functions.add(name)
        elif head in _VARIABLE_DEFINERS and n >= 2 and isinstance(items[1], Symbol):
            variables.add(items[1].name)
        elif head in _SETTERS:
            variables.update(x.name for x in items[1::2] if isinstance(x, Symbol))
        elif head in ("set", "set-default") and n >= 2:
            name = function_name(items[1])
            if name is not None:
                variables.add(name)
        elif head in _LETS and n >= 2:
            bindings = items[1]
            if head == "named-let" and n >= 3:
                bindings = items[2]
            if isinstance(bindings, List):
                _let_names(bindings, variables)
        elif head in _LOOPS and n >= 2:
            spec = items[1]  # (VAR LIST...): only VAR (a pattern for pcase-dolist) binds
            if isinstance(spec, List) and spec.items:
                _symbols(spec.items[0], variables)
        elif head in _PATTERN_BINDERS and n >= 2:
            _symbols(items[1], variables)
        elif head in ("pcase", "pcase-exhaustive", "cl-typecase") and n >= 3:
            for clause in items[2:]:  # each clause's pattern binds its symbols
                if isinstance(clause, List) and clause.items:
                    _symbols(clause.items[0], variables)
        elif head in ("cl-loop", "loop"):
            for a, b in zip(items[1:], items[2:], strict=False):
                if isinstance(a, Symbol) and a.name in ("for", "as", "with", "into"):
                    _symbols(b, variables)
        stack.extend(x for x in items if isinstance(x, List))
        if isinstance(d.tail, List):
            stack.append(d.tail)
    once = {k: v[0] for k, v in returns.items() if len(v) == 1}
    return FileNames(frozenset(functions), frozenset(macros), frozenset(variables), once)


def _let_names(bindings: List, out: set[str]) -> None:
    """The names a let-like binding list binds: ``VAR``, ``(VAR ...)``, a pattern
    ``((a b) ...)`` (every symbol of it), or one binding ``(VAR VALUE)`` of ``when-let``."""
    items = bindings.items
    if len(items) == 2 and isinstance(items[0], Symbol) and not isinstance(items[1], Symbol):
        out.add(items[0].name)  # (when-let (x (f)) ...): one binding
    for b in items:
        if isinstance(b, Symbol):
            out.add(b.name)
        elif isinstance(b, List) and b.items:
            _symbols(b.items[0], out)


class FileContext:
    """The top-level datums a tool form was found in (``whole``: the whole file's, not
    one streamed batch's), and their :func:`file_names`, computed at the first ask."""

    __slots__ = ("datums", "whole", "_names")

    def __init__(self, datums: list[Datum], whole: bool = True) -> None:
        self.datums = datums
        self.whole = whole
        self._names: FileNames | None = None

    @property
    def names(self) -> FileNames:
        if self._names is None:
            self._names = file_names(self.datums)
        return self._names
