"""Options several commands share, declared once so their names, defaults and help agree.

Owns: ``-o/--output``, ``--stdin-filename`` and ``--diagnostics-format``.
"""

from __future__ import annotations

import click

__all__ = ["output_option", "stdin_filename_option", "diagnostics_format_option"]

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

diagnostics_format_option = click.option(
    "--diagnostics-format", type=click.Choice(["gnu", "json"]), default="gnu", show_default=True
)
