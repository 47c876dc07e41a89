"""``plistspec check``."""

from __future__ import annotations

import click


@click.command("check")
def check_cmd() -> None:
    """(not yet built)"""
    raise click.UsageError("check is not built yet")
