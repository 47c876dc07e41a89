"""``:function`` lints: the arguments the function takes against those gptel/llm pass.

Owns: PS337. gptel 0.9.9.5 and llm 0.31.1 call a tool's function with exactly one value
per element of ``:args`` (``nil`` for an argument the model left out), and an ``:async``
tool's with the callback first, then those values (``gptel--handle-tool-use``,
``llm-provider-utils-execute-tool-uses``, semantics.md). A function that takes another
number of arguments fails with ``wrong-number-of-arguments``: under gptel a sync tool's
result is then that error, an async one never calls back; under llm the call fails.
Known exactly for a literal ``(lambda ARGS ...)`` (also ``#'(lambda ...)``) and for
``#'NAME`` / ``'NAME`` when the file itself defines NAME (:mod:`plistspec.extract.functions`);
anything else (a variable, ``apply-partially``, a function defined elsewhere) is not judged.
"""

from __future__ import annotations

from plistspec.elisp.datum import Datum, List, String, Symbol, Vector, is_nil, quoted
from plistspec.extract import Slot, ToolForm
from plistspec.extract.forms import function_name
from plistspec.extract.functions import Arity, arity
from plistspec.lint._util import Sink
from plistspec.lint.args import CALLBACK_NAMES

__all__ = ["function_arity"]


def _lambda(d: Datum) -> List | None:
    """The ``(lambda ARGS ...)`` list of ``(lambda ...)``, ``#'(lambda ...)`` or
    ``'(lambda ...)`` (a list Emacs calls as an interpreted function)."""
    for inner in (d, quoted(d, "function"), quoted(d, "quote")):
        if (
            isinstance(inner, List)
            and inner.tail is None
            and len(inner.items) >= 2
            and isinstance(inner.items[0], Symbol)
            and inner.items[0].name == "lambda"
        ):
            return inner
    return None


def _takes(a: Arity) -> str:
    lo, hi = a
    if hi is None:
        return f"at least {lo} argument{'s' * (lo != 1)}"
    if lo == hi:
        return f"{lo} argument{'s' * (lo != 1)}" if lo else "no arguments"
    return f"{lo} to {hi} arguments"


def _count(args: Slot | None) -> int | None:
    """How many values gptel/llm pass for ``:args`` (None: not known statically)."""
    if args is None:
        return 0
    v = args.value
    if v is None:
        return None
    if is_nil(v):
        return 0
    if isinstance(v, Vector):
        return len(v.items)
    if isinstance(v, List) and v.tail is None:
        return len(v.items)
    return None


def _lists_callback(args: Datum | None) -> bool:
    """True when an arg of ``args`` is named as a callback (what PS336 reports)."""
    items = args.items if isinstance(args, (List, Vector)) else []
    for arg in items:
        if isinstance(arg, List):
            for k, v in zip(arg.items[::2], arg.items[1::2], strict=False):
                if (
                    isinstance(k, Symbol)
                    and k.name == ":name"
                    and isinstance(v, String)
                    and v.value.lower() in CALLBACK_NAMES
                ):
                    return True
    return False


def function_arity(sink: Sink, form: ToolForm, slots: dict[str, Slot], dialect: str) -> None:
    """PS337 when ``:function`` takes another number of arguments than it is called with."""
    fn = slots.get(":function")
    if fn is None:
        return
    lam = _lambda(fn.form)
    where: Datum
    if lam is not None:
        got = arity(lam.items[1])
        where = lam.items[1] if sink.written(lam.items[1]) else fn.form
        what = ":function's lambda"
    else:
        name = function_name(fn.form)
        got = (form.functions or {}).get(name) if name else None
        where = fn.form
        what = f":function {name} (defined in this file)"
    if got is None:
        return
    n = _count(slots.get(":args"))
    if n is None:
        return
    is_async = False
    if ":async" in slots:
        flag = slots[":async"].value
        if flag is None:
            return  # not known statically
        is_async = not is_nil(flag)  # any non-nil value: Emacs's truth
    if is_async and _lists_callback(slots[":args"].value if ":args" in slots else None):
        return  # PS336 says it: the callback is in :args, and deleting it fixes both
    want = n + is_async
    lo, hi = got
    if lo <= want and (hi is None or want <= hi):
        return
    lib = "gptel" if dialect == "gptel" else "llm"
    values = f"{n} value{'s' * (n != 1)}, one per arg of :args"
    if is_async and (lo == n or hi == n):
        message = (
            f":async tool whose :function takes no callback: {lib} calls it with the callback "
            f"first, then {values} ({want} in all), but {what} takes {_takes(got)}: the call "
            "fails with wrong-number-of-arguments (add the callback as its first parameter)"
        )
    else:
        message = (
            f"{what} takes {_takes(got)}, but {lib} calls it with "
            + (f"the callback and {values} ({want} in all)" if is_async else values)
            + ": the call fails with wrong-number-of-arguments"
        )
    sink.add("PS337", "error", message, where)
