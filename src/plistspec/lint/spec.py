"""Spec lints (PS3xx): the entry point that lints one tool form, read from its datums.

Owns: :func:`lint_spec`, which runs the spec lints on a tool form in a fixed order --
the tool's own slots (:mod:`plistspec.lint.slots`), the arguments its ``:function``
takes (:mod:`plistspec.lint.function`) and whether it is a function at all
(:mod:`plistspec.lint.function_value`), then ``:args``
(:mod:`plistspec.lint.args`), each arg followed by the walk over its schema
(:mod:`plistspec.lint.schema`, which calls the key, ``:type``, shape and
library-surprise lints of :mod:`~plistspec.lint.keys`,
:mod:`~plistspec.lint.schema_type`, :mod:`~plistspec.lint.shapes` and
:mod:`~plistspec.lint.surprises`).

Every check needs only the source form and the library whose rules apply (gptel or
llm). Errors the libraries themselves would raise are :mod:`plistspec.replay`'s (PS2xx);
these lints add what the libraries accept silently but a user would not expect
(semantics.md §10). Each diagnostic points at the exact datum responsible (a key
symbol, a value) and carries a fix where the fix is obvious. The walk over nested
schemas is iterative.
"""

from __future__ import annotations

from plistspec.core.diagnostics import Diagnostic
from plistspec.extract import ToolForm
from plistspec.lint._util import Sink, flag
from plistspec.lint.args import args_slot
from plistspec.lint.function import function_arity
from plistspec.lint.function_value import function_value
from plistspec.lint.slots import GPTEL_SLOTS, LLM_SLOTS, TOOL_NAME_RE, tool_slots

__all__ = ["lint_spec", "TOOL_NAME_RE", "GPTEL_SLOTS", "LLM_SLOTS"]


def lint_spec(form: ToolForm, dialect: str | None = None) -> list[Diagnostic]:
    """PS3xx diagnostics of one tool form under ``dialect`` (default: the form's own)."""
    dialect = dialect or form.dialect
    sink = Sink(form.text)
    slots = tool_slots(sink, form, dialect)
    function_value(sink, form, slots, dialect)
    function_arity(sink, form, slots, dialect)
    args = slots.get(":args")
    if args is not None and args.value is not None:
        is_async = ":async" in slots and flag(slots[":async"].value) is True  # type: ignore[arg-type]
        args_slot(sink, args.value, dialect, is_async)
    return sink.diags
