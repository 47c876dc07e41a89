"""``plistspec from-json``."""

from __future__ import annotations

import click


@click.command("from-json")
def from_json_cmd() -> None:
    """(not yet built)"""
    raise click.UsageError("from-json is not built yet")
