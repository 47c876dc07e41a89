"""``plistspec to-json``."""

from __future__ import annotations

import click


@click.command("to-json")
def to_json_cmd() -> None:
    """(not yet built)"""
    raise click.UsageError("to-json is not built yet")
