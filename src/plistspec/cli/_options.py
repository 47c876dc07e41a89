"""Options several commands share, declared once so their names, defaults and help agree.

Owns: the command line's one vocabulary -- ``-t/--target`` (the provider or target, in
every command), ``--output-format gnu|json|github|sarif`` (how diagnostics are printed, in
every command that prints them), ``-o/--output``, ``--stdin-filename`` -- and the hidden,
deprecated spellings of earlier releases (:func:`deprecated_option`): each still works
for one release and prints one line on standard error saying what replaces it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import click

from plistspec.core.formats import REPORT_FORMATS

__all__ = [
    "Command",
    "output_option",
    "stdin_filename_option",
    "output_format_option",
    "target_option",
    "deprecated_option",
]


class Command(click.Command):
    """A command whose did-you-mean for a misspelt option never suggests a hidden,
    deprecated spelling (``--formt``: ``--output-format``, not ``--format``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as e:
            if e.possibilities:
                hidden = {o for p in self.params if getattr(p, "hidden", False) for o in p.opts}
                e.possibilities = [o for o in e.possibilities if o not in hidden]  # type: ignore[misc]
            raise


output_option = click.option(
    "-o",
    "--output",
    "out",
    default=None,
    metavar="OUT",
    help="Write here (atomically) instead of stdout.",
)

stdin_filename_option = click.option(
    "--stdin-filename", default=None, metavar="NAME", help="Name standard input (-) in messages."
)

OUTPUT_FORMAT_HELP = (
    "How diagnostics are printed: gnu (FILE:LINE:COL: severity: message [CODE]), json (one "
    "array of objects), github (GitHub Actions annotations), sarif (SARIF 2.1.0)."
)


def output_format_option(help: str = OUTPUT_FORMAT_HELP) -> Callable:
    """``--output-format gnu|json|github|sarif`` (default gnu), as ``output_format``."""
    return click.option(
        "--output-format",
        "output_format",
        type=click.Choice(REPORT_FORMATS),
        default="gnu",
        show_default=True,
        help=help,
    )


def target_option(choices: Sequence[str], help: str, default: str | None = None) -> Callable:
    """``-t/--target TARGET``, as ``target``."""
    return click.option(
        "-t",
        "--target",
        "target",
        type=click.Choice(tuple(choices)),
        default=default,
        show_default=default is not None,
        help=help,
    )


def note_deprecated(old: str, new: str) -> None:
    """The one-line note a deprecated spelling prints on standard error."""
    click.echo(f"plistspec: warning: {old} is deprecated, use {new}", err=True)


def deprecated_option(old: str, new: str, dest: str, **kwargs: Any) -> Callable:
    """A hidden option ``old`` (one spelling: ``-f`` or ``--format``) standing for the
    option whose value is the parameter ``dest`` (spelt ``new`` in the note).

    Given, it prints ``plistspec: warning: OLD is deprecated, use NEW`` on standard error and
    its value becomes ``dest``'s, unless ``dest``'s own option was given too (the new
    spelling wins). ``kwargs`` (``type``, ``metavar``...) are click's. Decorate the command
    function with it like any option."""
    param = "deprecated_" + old.lstrip("-").replace("-", "_")

    def decorator(f: Callable) -> Callable:
        @functools.wraps(f)
        def wrapper(*args: Any, **kw: Any) -> Any:
            value = kw.pop(param, None)
            if value is not None:
                note_deprecated(old, new)
                ctx = click.get_current_context()
                source = ctx.get_parameter_source(dest)
                if source is None or source in (
                    click.core.ParameterSource.DEFAULT,
                    click.core.ParameterSource.DEFAULT_MAP,
                ):
                    kw[dest] = value
            return f(*args, **kw)

        return click.option(
            old,
            param,
            hidden=True,
            default=None,
            **kwargs,
        )(wrapper)

    return decorator
