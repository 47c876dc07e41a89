"""Lints: what a tool spec gets wrong beyond what gptel/llm refuse outright.

Owns: the entry point :func:`lint`, which runs the spec lints (PS3xx,
:mod:`plistspec.lint.spec`) on one tool form and, with a ``target``, the provider lints
(PS4xx, :mod:`plistspec.lint.targets`) on the JSON the real emitter produces for that
provider. Diagnostics carry character offsets into the form's text (no lines yet: the
caller locates them).

The spec lints, one module per family: :mod:`~plistspec.lint.spec` (the entry point
:func:`~plistspec.lint.spec.lint_spec`), :mod:`~plistspec.lint.slots` (the tool's own
slots), :mod:`~plistspec.lint.args` (``:args`` and arg names),
:mod:`~plistspec.lint.schema` (the walk over each arg's schema plists),
:mod:`~plistspec.lint.keys` (unknown, misspelt, duplicate and missing keys),
:mod:`~plistspec.lint.schema_type` (``:type``), :mod:`~plistspec.lint.shapes`
(``:enum``, ``:items``, ``:properties``, ``:required``) and
:mod:`~plistspec.lint.surprises` (what gptel/llm silently send differently,
semantics.md §10).

Where a finding points (the anchoring rule, the same for every lint):

* a problem with a **key** (unknown or misspelt ``:description:``, ``:required t`` on an
  arg, ``:optional`` in a nested schema, a duplicate key, a keyword the target rejects
  or drops): the key symbol (``:required t`` spans key and value);
* a problem with a **value** (``:type float``, ``:enum ("a")``, ``:required nil``,
  ``:optional :json-false``, a bad tool name, ``:additionalProperties t``): the value as
  written (``'read_file``, quote included, for a tool slot);
* something **missing** from a plist (an arg's ``:name``/``:type``/``:description``, a
  nested schema's ``:type``, ``additionalProperties`` for OpenAI strict) or a problem
  with a whole arg: that plist's opening parenthesis, spanning up to its first key;
  missing tool slots (``:name``, ``:description``, ``:function``): ``(gptel-make-tool``;
* an element: the element (``"b"`` in ``:required ["a" "b"]``, ``1`` in a Gemini enum).

When gptel or llm itself fails on a value (lower's PS2xx) and a lint explains the same
mistake around it (``:enum [a b]`` around lower's ``a``), :mod:`plistspec.checking.checker`
keeps the lint, at the lint's datum, as an error naming the library's failure.

Layer 6 of docs/architecture.md: may import the emitters, replay, lowering, the
sources, :mod:`plistspec.elisp` and :mod:`plistspec.core`; independent of
:mod:`plistspec.pipeline`. Public: the names of ``__all__`` below.
"""

from __future__ import annotations

from typing import Any

from plistspec.core.diagnostics import Diagnostic
from plistspec.core.formats import TARGETS
from plistspec.extract import ToolForm

__all__ = ["lint", "TARGETS"]


def lint(
    form: ToolForm,
    tool: Any = None,
    target: str | None = None,
    *,
    dialect: str | None = None,
) -> list[Diagnostic]:
    """Spec lints of ``form`` and, with ``target``, provider lints.

    ``tool`` is the IR of the form as :func:`plistspec.replay.lower` built it (None when it
    could not be built: the provider lints then work from the form alone). ``dialect``
    overrides the form's own library (``gptel`` or ``llm``).
    """
    from plistspec.lint.spec import lint_spec

    dialect = dialect or form.dialect
    diags = lint_spec(form, dialect)
    if target is not None:
        from plistspec.lint.targets import lint_target

        more = lint_target(form, tool, target, dialect)
        if more and diags:
            # The provider lint says the same as a generic one, more precisely: keep one.
            spans = {(d.start, d.end) for d in more}
            codes = {(d.start, d.end, d.code) for d in more}
            diags = [
                d
                for d in diags
                if not (d.code in _REPLACED and (d.start, d.end, _REPLACED[d.code]) in codes)
                and not (d.code in _NAME_CODES and (d.start, d.end) in spans)
            ]
        if diags and (target in _OWN_NAME_RULES or target.startswith(("mcp-", "gemini-"))):
            # their own name rules replace PS307
            diags = [d for d in diags if d.code not in _NAME_CODES]
        diags.extend(more)
    return diags


# the generic tool-name lints (a provider's own name rule says it more precisely)
_NAME_CODES = frozenset(("PS307", "PS339"))
# spec lint -> the provider lint that says the same at the same span
_REPLACED = {"PS307": "PS401", "PS339": "PS401", "PS318": "PS411", "PS306": "PS402"}
_OWN_NAME_RULES = frozenset(("ollama", "mcp", "gemini"))
