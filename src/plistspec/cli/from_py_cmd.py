"""``plistspec from-py`` and ``plistspec call``."""

from __future__ import annotations

import click


@click.command("from-py")
def from_py_cmd() -> None:
    """(not yet built)"""
    raise click.UsageError("from-py is not built yet")


@click.command("call")
def call_cmd() -> None:
    """(not yet built)"""
    raise click.UsageError("call is not built yet")
