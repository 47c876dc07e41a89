"""Options several commands share, declared once so their names, defaults and help agree.

Owns: the command line's one vocabulary -- ``-t/--target`` (the provider or target, in
every command), ``--output-format gnu|json|github|sarif`` (how diagnostics are printed, in
every command that prints them), ``-o/--output``, ``--stdin-filename`` -- and the hidden,
deprecated spellings of earlier releases (:func:`deprecated_option`): each still works
for one release and prints one line on standard error saying what replaces it -- and the
did-you-means of every command (:class:`Command`: a wrong choice, a misspelt option).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import click

from plistspec.core.formats import REPORT_FORMATS

__all__ = [
    "Choice",
    "Command",
    "closest_options",
    "output_option",
    "stdin_filename_option",
    "output_format_option",
    "target_option",
    "deprecated_option",
]


class Choice(click.Choice):
    """A choice whose error says the closest choices (``-t gemeni``: ``Did you mean
    'gemini'?``), as a misspelt command or option does."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as e:
            from plistspec.cli.commands import did_you_mean

            hint = did_you_mean(str(value), [str(c) for c in self.choices])
            if not hint:
                raise
            raise click.BadParameter(e.message + hint, ctx=ctx, param=param) from None


class Command(click.Command):
    """A plistspec command: every choice says its closest choices when given a wrong one
    (:class:`Choice`), and a misspelt option is matched to the closest spelling by edit
    distance (:func:`closest_options`): a deprecated one stands for what replaces it
    (``check --fromat``: ``--output-format``), and no hidden spelling is ever suggested."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for p in self.params:
            t = p.type
            if type(t) is click.Choice:
                p.type = Choice(t.choices, case_sensitive=t.case_sensitive)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as e:
            spellings = []
            for p in self.get_params(ctx):
                for o in (*p.opts, *getattr(p, "secondary_opts", ())):
                    if not getattr(p, "hidden", False):
                        spellings.append((o, o))
                    elif getattr(p, "replaced_by", None):
                        spellings.append((o, p.replaced_by))  # type: ignore[attr-defined]
            close = closest_options(e.option_name, spellings)
            if close or e.possibilities:
                hidden = {o for p in self.params if getattr(p, "hidden", False) for o in p.opts}
                others = [o for o in e.possibilities or () if o not in hidden]
                e.possibilities = close or others  # type: ignore[misc]
            raise


def closest_options(typed: str, spellings: Sequence[tuple[str, str]]) -> list[str]:
    """What to suggest for the unknown option ``typed``: of ``spellings`` (each a
    spelling and the option it stands for), those closest to ``typed`` by edit distance
    (a swap of two letters counts one; a long option's last word alone counts too:
    ``--formt`` is one edit from ``--output-format``), within a third of its length."""
    word = typed.lstrip("-")
    limit = max(1, len(word) // 3)
    best: dict[str, int] = {}
    for spelling, meant in spellings:
        if not spelling.startswith("--"):
            continue
        core = spelling[2:]
        d = _distance(word, core)
        if "-" in core:
            d = min(d, _distance(word, core.rsplit("-", 1)[1]))
        if d <= limit and d < best.get(meant, limit + 1):
            best[meant] = d
    if not best:
        return []
    least = min(best.values())
    return sorted(m for m, d in best.items() if d == least)


def _distance(a: str, b: str) -> int:
    """Edit distance of ``a`` and ``b`` (insert, delete, replace, swap two neighbours)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[len(b)]


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
        type=Choice(REPORT_FORMATS),
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
        type=Choice(tuple(choices)),
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

        decorated = click.option(old, param, hidden=True, default=None, **kwargs)(wrapper)
        decorated.__click_params__[-1].replaced_by = new  # what a misspelling suggests
        return decorated

    return decorator
