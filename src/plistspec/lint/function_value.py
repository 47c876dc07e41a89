"""``:function`` lints: a value that is not a function (PS338).

Owns: PS338. A constructor call evaluates its arguments when the file is loaded, so
``:function my-greet`` (no ``#'``) is the *variable* ``my-greet``: unless something binds
it, loading the file signals ``void-variable`` and no tool is made. ``:function
(format "Hello %s" who)`` is evaluated at load time too (``void-variable who``, or a
string when ``who`` is bound), and a string, a number, a vector or a keyword is never a
function: gptel 0.9.9.5 and llm 0.31.1 ``apply`` the tool's function when the model
calls it, which then signals ``invalid-function`` (gptel answers the model with that
error). Reported:

* a bare symbol the file does not bind as a variable (:mod:`plistspec.extract.bindings`;
  dash's anaphoric ``it``/``acc`` count as bound), with a fix to ``#'NAME`` when the
  file defines a function of that name (``defun``, ``cl-defun``, ``defalias``...);
* a string (fix to ``#'NAME`` when it names a function of the file), a number, a
  vector, a keyword;
* a call of a function known to return something else (:data:`NOT_FUNCTIONS`:
  ``format``, ``concat``, arithmetic, the tool constructors...), also as the last form
  of ``let``/``progn`` or a branch of ``if``, or of a function of the file whose last
  body form is such a value (``:function (my-greet)``: fix ``#'my-greet`` when the call
  has no arguments).

Not judged (no finding): ``#'f``, ``'f``, ``(lambda ...)``, ``apply-partially`` and any
call of another function (it may return a closure). Only where Emacs evaluates the slot:
in a quoted spec plist (``'(:name "x" :function my-fn)`` handed to ``apply``) the symbol
``my-fn`` is already the function.
"""

from __future__ import annotations

import re

from plistspec.elisp.datum import Datum, Float, Integer, List, String, Symbol, Vector
from plistspec.extract import Slot, ToolForm
from plistspec.extract.forms import TOOL_HEADS
from plistspec.lint._util import Sink, brief

__all__ = ["function_value", "NOT_FUNCTIONS"]

# Functions whose value is never a function: strings, numbers, lists, tools, buffers.
NOT_FUNCTIONS = frozenset(
    """format format-message concat string substring string-join string-trim
    string-trim-left string-trim-right mapconcat symbol-name number-to-string
    prin1-to-string upcase downcase capitalize expand-file-name file-name-nondirectory
    file-name-directory file-name-as-directory file-name-concat buffer-string
    buffer-substring buffer-substring-no-properties shell-command-to-string read-string
    completing-read json-encode json-serialize message propertize string-replace
    replace-regexp-in-string + - * / % 1+ 1- length list vector cons make-string
    current-time-string""".split()
) | frozenset(TOOL_HEADS)

_EVALUATES_LAST = frozenset(("let", "let*", "progn", "save-excursion", "with-temp-buffer"))


def _not_function(d: Datum) -> tuple[Datum, str] | None:
    """``(datum, what it is)`` when ``d`` surely evaluates to something that is not a
    function (bare symbols aside: see :func:`function_value`); iterative over
    ``let``/``progn``/``if``."""
    stack = [d]
    while stack:
        x = stack.pop()
        if isinstance(x, String):
            return x, "a string"
        if isinstance(x, (Integer, Float)):
            return x, "a number"
        if isinstance(x, Vector):
            return x, "a vector"
        if isinstance(x, Symbol) and x.name.startswith(":") and len(x.name) > 1:
            return x, "a keyword"
        if not (isinstance(x, List) and x.tail is None and isinstance(x.items[0], Symbol)):
            continue
        head = x.items[0].name
        if head in NOT_FUNCTIONS:
            if head in TOOL_HEADS:
                return x, f"a tool ({head}'s value), not a function"
            return x, f"{head}'s value, not a function"
        if head in _EVALUATES_LAST and len(x.items) >= 3:
            stack.append(x.items[-1])
        elif head == "if" and len(x.items) >= 3:
            stack.append(x.items[2])
            if len(x.items) >= 4:
                stack.append(x.items[-1])
    return None


def _own_call(d: Datum, form: ToolForm) -> str | None:
    """The name of the file's own function ``d`` calls (``(my-greet ...)``), else None."""
    if form.file is None or not (isinstance(d, List) and d.tail is None):
        return None
    h = d.items[0]
    if isinstance(h, Symbol) and h.name in form.file.names.returns:
        return h.name
    return None


def _calls_own(d: Datum, form: ToolForm) -> tuple[Datum, str] | None:
    """``(datum, what)`` when ``d`` calls a function of the file whose last body form is
    surely not a function (``(defun my-greet (who) (format ...))``)."""
    name = _own_call(d, form)
    if name is None:
        return None
    last = form.file.names.returns[name]  # type: ignore[union-attr]
    found = _not_function(last)
    if found is None:
        return None
    what = f"the value of {name} (defined in this file), {found[1]}"
    arity = (form.functions or {}).get(name)
    n = len(d.items) - 1
    if arity is not None and (n < arity[0] or (arity[1] is not None and n > arity[1])):
        what += f"; and called with {n} argument{'s' * (n != 1)}, loading the file signals wrong-number-of-arguments"
    return d, what


def _binds(form: ToolForm, name: str) -> tuple[bool, bool, bool]:
    """``(bound as a variable, defined as a function, defined as a macro)`` in the file
    of ``form``. Without the whole file's datums (a streamed batch, a form made by hand)
    a name written anywhere else in the text counts as bound."""
    ctx = form.file
    if ctx is not None:
        names = ctx.names
        bound = name in names.variables
        fun, mac = name in names.functions, name in names.macros
        if ctx.whole:
            return bound, fun, mac
    else:
        bound = fun = mac = False
    pattern = r"(?<![\w\-+*/<>=!?$%&~^:.\\])" + re.escape(name) + r"(?![\w\-+*/<>=!?$%&~^:.])"
    if len(re.findall(pattern, form.text)) > 1:
        bound = True
    return bound, fun, mac


def function_value(sink: Sink, form: ToolForm, slots: dict[str, Slot], dialect: str) -> None:
    """PS338 when ``:function``'s value is surely not a function."""
    fn = slots.get(":function")
    if fn is None or not fn.evaluated:
        return
    d = fn.form
    lib = "gptel" if dialect == "gptel" else "llm"
    if isinstance(d, Symbol) and not d.name.startswith(":"):
        name = d.name
        if name in ("nil", "t") or name.startswith("."):  # let-alist's .KEY is bound
            return
        bound, fun, mac = _binds(form, name)
        if bound:
            return
        message = (
            f"`:function {name}` evaluates the variable {name}, which this file never binds: "
            f"loading the file signals (void-variable {name}) and no tool is made"
        )
        fix = None
        if fun:
            message += f"; {name} is a function defined in this file: write #'{name}"
            fix = sink.replace(d, f"#'{name}", name)
        elif mac:
            message += f"; {name} is a macro, which {lib} cannot call: write a function"
        else:
            message += f" (unless it is bound elsewhere to a function); for the function {name} write #'{name}"
        sink.add("PS338", "error", message, d, fix)
        return
    found = _not_function(d)
    if found is None:
        found = _calls_own(d, form)
    if found is None:
        return
    where, what = found
    shown = brief(d, sink.text)
    message = (
        f":function {shown} is {what}: {lib} calls the tool's function with apply, "
        "which signals invalid-function"
    )
    if isinstance(d, List):
        message += " (and the form is evaluated once, when the file is loaded: write "
        message += "(lambda (ARGS...) ...) to run it at each call)"
    fix = None
    own = _own_call(d, form)
    if own is not None and len(d.items) == 1:  # (my-greet): the function itself was meant
        message += f"; to hand gptel/llm the function {own}, write #'{own}"
        fix = sink.replace(d, f"#'{own}")
    if isinstance(d, String) and form.file is not None and d.value in form.file.names.functions:
        message += f"; {d.value} is a function defined in this file: write #'{d.value}"
        fix = sink.replace(d, f"#'{d.value}")
    sink.add("PS338", "error", message, where if where is d else d, fix)
