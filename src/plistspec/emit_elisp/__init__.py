"""IR → Emacs Lisp text: ``gptel-make-tool`` / ``llm-make-tool`` forms in the canonical layout.

Owns: the canonical layout of a tool form and of a whole ``.el`` file of tools
(:func:`to_elisp`, :func:`tool_form_text`, :func:`tool_form`). All escaping is done by
:mod:`plistspec.elisp.printer`; this module only decides what to write and where.

Layout (``emacs-conventions.md`` §3): ``(gptel-make-tool`` then one ``:key value`` per
line indented one space, in the order ``:name``, ``:function``, ``:description``,
``:args``, then the other slots as the IR lists them. gptel args are written
``:args (list '( :name "a" ...) ...)``, llm args ``:args '(( :name "a" ...) ...)``;
the space after ``(`` marks a data list and every key of a multi-line plist is aligned
under the first. A top-level arg plist has one key per line; a nested plist or vector is
written on one line when it fits in :data:`FILL` columns and (for plists) holds no
non-empty plist, otherwise one key (element) per line. Beyond :data:`MAX_INDENT` columns
everything is written on one line, so the output stays linear in the input.

JSON → Elisp values (gptel): string, number, ``true`` → ``t``, ``false`` →
``:json-false``, ``null`` → ``:null``, array → vector, object → plist with keyword keys
(the key ``""`` is the symbol ``##``; ``":x"`` is ``::x``, gptel strips one colon), and
``{}`` → ``nil``: gptel serializes ``nil`` as ``{}`` everywhere, so this is the value that
round-trips exactly (``[]`` is ``[]``). ``:type`` values are bare symbols when they are
plain names, otherwise strings (gptel sends both the same way). A property is
``:optional t`` exactly when its name is not in ``required`` (matched by name).

llm (``--dialect llm``): only ``type description enum items properties`` are written at
the arg level (llm drops the rest; one warning per dropped key), ``:type`` is a symbol
(a type array keeps its first non-null member, with a warning). Inside ``:items`` and
``:properties`` llm converts values itself: ``false`` → ``:false``, ``null`` → ``nil``;
inside vectors values reach ``json-serialize`` unconverted, so ``null`` → ``:null`` and
``:type`` is a string there. ``{}`` cannot be written where llm converts (its ``nil``
means ``null``): reported.

``:function``: when the IR carries the source (``metadata.slots``, else
``metadata.function``) it is written back as it is, continuation lines re-indented by
the change of column (never inside a string): the IR of ``to-json``/``fmt`` comes from
the user's own file. IR read from JSON never gets here unchecked: ``from-json`` reads,
checks and reprints every slot text first (:mod:`plistspec.fromjson.ir_meta`). Otherwise
(tools from JSON) a stub that loads and byte-compiles cleanly and, when called, signals
``user-error`` "Tool NAME is not implemented yet: write its :function": a lambda over
the tool's arguments (``_`` + the property names, see :mod:`.stub`) so the user sees the
calling convention. MCP ``title`` and ``annotations`` are written as ``;; MCP title:``
/ ``;; MCP annotations:`` comment lines (JSON, through
:func:`plistspec.elisp.comment.comment_text`) above the form; annotations that do not
say ``readOnlyHint: true`` or ``destructiveHint: false`` give ``:confirm t`` in gptel
(MCP's defaults). MCP ``outputSchema`` has no place: a warning. Under llm, a nullable
union (``[T, "null"]``, ``anyOf`` with ``{"type": "null"}``) is written as T plus
``:optional t``.

File frame (``emacs-conventions.md`` §3.1): ``;;; NAME.el --- SUMMARY  -*- lexical-binding:
t; -*-`` (plus ``coding: utf-8`` when the text is not ASCII), a Commentary (how to load
the file and turn the tools on), ``(require 'gptel)`` / ``(require 'llm)``, the forms
(for llm inside ``(defvar FEATURE-tools (list ...))``, since llm keeps no registry),
``(provide 'FEATURE)`` and ``;;; NAME.el ends here``. The ``require`` is deliberate:
neither ``gptel-make-tool`` nor ``llm-make-tool`` is autoloaded, so without it loading
the file before the library signals ``void-function``, and the byte compiler warns about
an unknown function; with it, a machine without the library gets the plain "Cannot open
load file: gptel".

Modules: :mod:`.layout` (values), :mod:`.forms` (one tool form), :mod:`.relayout` (fmt), :mod:`.stub` (the stub
``:function``), :mod:`.reindent` (a slot text moved to another column), :mod:`.file` (the
file frame).

Layer 5 (emitters) of docs/architecture.md: may import replay, lowering, the sources,
:mod:`plistspec.elisp` and :mod:`plistspec.core`; independent of
:mod:`plistspec.emit_json`. Public: the names of ``__all__`` below,
:mod:`.relayout` (``fmt``'s layout of a tool form from its own source: only blanks
change) and :mod:`.comments` (where comments start, which ``check --fix`` keeps clear of).
"""

from __future__ import annotations

from plistspec.emit_elisp.file import feature_name, feature_problem, to_elisp
from plistspec.emit_elisp.forms import tool_form, tool_form_text
from plistspec.emit_elisp.layout import FILL, MAX_INDENT
from plistspec.emit_elisp.reindent import reindent

__all__ = [
    "to_elisp",
    "feature_name",
    "feature_problem",
    "tool_form_text",
    "tool_form",
    "reindent",
    "FILL",
    "MAX_INDENT",
]
