"""Every diagnostic code plistspec emits, documented in one place.

Owns: the table of codes. Each entry gives the default severity, a one-line title and a
short explanation with an example (ruff style). Codes are stable: never reuse or renumber
one; retire it instead. Ranges:

* ``PS0xx`` reading Emacs Lisp text (:mod:`plistspec.elisp.reader`)
* ``PS1xx`` finding tool forms and reading them statically (:mod:`plistspec.extract`)
* ``PS2xx`` what gptel / llm themselves would refuse (:mod:`plistspec.lower`)
* ``PS3xx`` spec lints: mistakes and surprises in a tool spec (:mod:`plistspec.lint`)
* ``PS4xx`` provider lints for ``check --target`` (:mod:`plistspec.lint`)
* ``PS5xx`` reading provider JSON (:mod:`plistspec.providers.detect`) and writing Elisp
* ``PS6xx`` Python functions (:mod:`plistspec.pyfunc`) and the ``call`` bridge
* ``PS9xx`` usage and input/output errors of the command line
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Code", "CODES", "explain"]


class Code(NamedTuple):
    severity: str
    title: str
    explanation: str


CODES: dict[str, Code] = {
    # --- PS0xx: reader -------------------------------------------------------------
    "PS001": Code(
        "error",
        "Emacs Lisp syntax error",
        "The text cannot be read by Emacs's `read` (unterminated string or list, stray `)`, "
        'misplaced `.`, invalid escape, invalid UTF-8...). Example: `(:name "a` never closes.',
    ),
    "PS002": Code(
        "error",
        "syntax a tool file does not need",
        "`#s(...)`, `#1=`, `#[...]`, `#@` and similar reader syntax is refused, never misread.",
    ),
    # --- PS1xx: extract ------------------------------------------------------------
    "PS101": Code(
        "warning",
        "cannot be read statically",
        "A slot plistspec needs (`:name`, `:description`, `:args`...) is computed by code it does "
        "not run: a variable, a call of another function, an unquote of one. plistspec never "
        "evaluates Elisp, so the tool is skipped and the others go on. Example: "
        "`:args my-args` (write the list literally, or `(list '(...))`).",
    ),
    "PS102": Code(
        "warning",
        "expected a keyword",
        "Tool constructors take `:key value` pairs; a non-keyword where a key should be stops "
        "static reading of the rest of the form. Example: `(gptel-make-tool \"name\" ...)` "
        "(write `:name \"name\"`).",
    ),
    "PS103": Code(
        "info",
        "runtime-only slot needs evaluation",
        "A slot that never reaches the JSON (`:category`, `:confirm`, `:include`, `:async`) is "
        "computed at run time; the tool is still compiled. Example: `:confirm my-confirm-p`.",
    ),
    # --- PS2xx: lower --------------------------------------------------------------
    # --- PS3xx: spec lints ---------------------------------------------------------
    # --- PS4xx: provider lints -----------------------------------------------------
    # --- PS5xx: JSON input / Elisp output ------------------------------------------
    # --- PS6xx: Python -------------------------------------------------------------
    # --- PS9xx: command line -------------------------------------------------------
    "PS901": Code("error", "cannot read input file", "The file does not exist or is not readable."),
    "PS902": Code("error", "cannot write output", "The output file could not be written."),
}


def explain(code: str) -> str:
    """The documentation of one code, as `plistspec explain CODE` prints it."""
    c = CODES.get(code)
    if c is None:
        raise KeyError(code)
    return f"{code} ({c.severity}): {c.title}\n\n{c.explanation}\n"
