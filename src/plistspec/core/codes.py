"""Every diagnostic code plistspec emits, documented in one place.

Owns: :data:`CODES` (code → :class:`Code`: default severity, one-line title, explanation)
and :func:`explain`. The table is data, ``grammars/codes.json`` (one object per code, in
numeric order; its ``$comment`` says the ranges); its examples are
``grammars/code-examples.toml`` (:mod:`plistspec.core.code_examples`). Codes are stable:
never reuse or renumber one; retire it instead. Ranges:

* ``PS0xx`` reading Emacs Lisp text (:mod:`plistspec.elisp.reader`)
* ``PS1xx`` finding tool forms and reading them statically (:mod:`plistspec.extract`)
* ``PS2xx`` what gptel / llm themselves would refuse (:mod:`plistspec.replay`)
* ``PS3xx`` spec lints: mistakes and surprises in a tool spec (:mod:`plistspec.lint`)
* ``PS4xx`` provider lints for ``check --target`` (:mod:`plistspec.lint`)
* ``PS5xx`` reading provider JSON (:mod:`plistspec.fromjson.detect`) and writing Elisp
* ``PS6xx`` Python functions (:mod:`plistspec.pyfunc`) and the ``call`` bridge
* ``PS7xx`` ``plistspec-gptel-mode`` at run time (:mod:`plistspec.calls`,
  ``elisp/plistspec-gptel.el``): what it did to a gptel request, and when it stood aside
* ``PS8xx`` ``plistspec serve`` and tools read from a running Emacs (:mod:`plistspec.serve`,
  :mod:`plistspec.emacs`)
* ``PS9xx`` usage and input/output errors of the command line

``check`` reads the table (severities for ``--select``/``--ignore``, suppressions, reports),
so it is JSON, read by the C parser (0.15 ms) when this module is first imported; every
importer imports it inside the function that needs it.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from plistspec.core.grammars import grammar_path

__all__ = ["Code", "CODES", "explain"]


class Code(NamedTuple):
    severity: str
    title: str
    explanation: str


def _load() -> dict[str, Code]:
    with open(grammar_path("codes.json"), encoding="utf-8") as f:
        table = json.load(f)["codes"]
    return {k: Code(v["severity"], v["title"], v["explanation"]) for k, v in table.items()}


CODES: dict[str, Code] = _load()


def explain(code: str) -> str:
    """The documentation of one code, as `plistspec explain CODE` prints it."""
    c = CODES.get(code)
    if c is None:
        raise KeyError(code)
    return f"{code} ({c.severity}): {c.title}\n\n{c.explanation}\n"
