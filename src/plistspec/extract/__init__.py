"""Find tool definitions in a tree of datums and read their slots statically.

Owns: which forms define tools (``gptel-make-tool``, ``llm-make-tool``, ``make-llm-tool``,
``llm-tool-collection-deftool``, public helpers that hand their plist unchanged to
``gptel-make-tool`` (:data:`WRAPPER_HEADS`), functions and macros of the same file that do
nothing but pass their arguments on to a tool constructor (:func:`file_wrappers`), and spec
plists handed to ``(apply #'gptel-make-tool SPEC)``), at any depth (``setq``,
``use-package``, ``let``...), and the static evaluator
that turns a slot's source form into the value Emacs would compute for it, without
running anything: literals, ``'x``, backquote without (or with static) unquotes,
``(list ...)``, ``(vector ...)``, ``(cons ...)``, ``(append ...)``, ``concat`` /
``format`` / ``string-join`` / ``mapconcat #'identity`` over literal strings, and
constants of the same file (:func:`file_constants`: a ``defconst``/``defvar`` whose
value is itself static, defined once and never assigned, bound or mutated elsewhere in
the file). What needs real evaluation (another variable, another function, an unquote
of one) gives a ``PS101`` warning at its span; that tool is skipped and the others go
on. Tool forms nested inside another tool's slots (a tool built in a ``:function``)
are found too.

Nothing in an input file is ever executed.

The package: :mod:`.forms` (the values produced: ToolForm, Slot, NotStatic, the known
heads), :mod:`.find` (the walk that finds tool forms and builds them), :mod:`.static_eval`
(the evaluator), :mod:`.wrappers` (the file's pass-through wrappers) and
:mod:`.constants` (the file's constants). This module re-exports the public names.

Layer 3 (sources) of docs/architecture.md: may import :mod:`plistspec.core` and
:mod:`plistspec.elisp`. Public: the names of ``__all__`` below.
"""

from __future__ import annotations

from plistspec.extract.constants import file_constants
from plistspec.extract.find import find_tools
from plistspec.extract.forms import (
    DEFTOOL_HEAD,
    TOOL_HEADS,
    WRAPPER_HEADS,
    NotStatic,
    Slot,
    ToolForm,
)
from plistspec.extract.static_eval import static_eval
from plistspec.extract.wrappers import file_wrappers

__all__ = [
    "Slot",
    "ToolForm",
    "find_tools",
    "static_eval",
    "file_constants",
    "file_wrappers",
    "NotStatic",
    "TOOL_HEADS",
    "WRAPPER_HEADS",
    "DEFTOOL_HEAD",
]
