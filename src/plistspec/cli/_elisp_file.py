"""Options of the commands that write a whole Elisp file of tools (``from-json``, ``from-py``).

Owns: ``--feature`` and ``--variable``, declared once, each checked to be a plain symbol name
(a usage error otherwise), so what they name is written as exactly one harmless symbol.
"""

from __future__ import annotations

import re

import click

__all__ = ["feature_option", "variable_option"]

_SYMBOL = re.compile(r"[A-Za-z][A-Za-z0-9_/+*<>=!$%&~.-]*\Z")


def _symbol(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not _SYMBOL.match(value):
        raise click.BadParameter(
            f"{value!r} is not a plain Emacs Lisp symbol name (a letter, then letters, digits "
            "and -_/+*<>=!$%&~.)"
        )
    if value is not None and param.name == "variable" and not re.search(r"[-*/:$]", value):
        raise click.BadParameter(
            f"{value!r} has no prefix: a global variable's name needs one (my-tools, not "
            "tools), or the byte compiler warns"
        )
    return value


feature_option = click.option(
    "--feature",
    default=None,
    metavar="SYMBOL",
    callback=_symbol,
    help="The feature the file provides (default: the -o file name without .el, else tools).",
)

variable_option = click.option(
    "--variable",
    default=None,
    metavar="SYMBOL",
    callback=_symbol,
    help="The variable holding the list of tools (default for llm files: FEATURE-tools, "
    "or FEATURE when it ends in -tools); given with gptel, gptel files get one too.",
)
