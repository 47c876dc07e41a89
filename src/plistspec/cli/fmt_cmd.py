"""``plistspec fmt``."""

from __future__ import annotations

import click


@click.command("fmt")
def fmt_cmd() -> None:
    """(not yet built)"""
    raise click.UsageError("fmt is not built yet")
