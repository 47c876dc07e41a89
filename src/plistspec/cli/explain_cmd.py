"""``plistspec explain CODE``: print the documentation of a diagnostic code."""

from __future__ import annotations

import click


@click.command("explain")
@click.argument("code", required=False)
def explain_cmd(code: str | None) -> None:
    """Explain diagnostic CODE (without CODE: list every code)."""
    from plistspec.codes import CODES, explain

    if code is None:
        for k, c in CODES.items():
            click.echo(f"{k}  {c.severity:7}  {c.title}")
        return
    try:
        click.echo(explain(code.upper()), nl=False)
    except KeyError:
        raise click.UsageError(f"unknown code {code!r}; `plistspec explain` lists them") from None
