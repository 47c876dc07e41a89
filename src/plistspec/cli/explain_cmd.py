"""``plistspec explain CODE``: print the documentation of a diagnostic code, with a wrong
and a right example (as ``ruff rule`` does) and whether ``check --fix`` fixes it."""

from __future__ import annotations

import click


@click.command("explain")
@click.argument("code", required=False)
def explain_cmd(code: str | None) -> None:
    """Explain diagnostic CODE (without CODE: list every code; a prefix such as PS30
    lists the codes it begins)."""
    from plistspec.core.codes import CODES, explain

    if code is None:
        for k, c in CODES.items():
            click.echo(f"{k}  {c.severity:7}  {c.title}")
        return
    key = code.strip().upper()
    family = _family(key, CODES)
    if family:  # a prefix (PS30, 30): the codes it begins
        for k in family:
            click.echo(f"{k}  {CODES[k].severity:7}  {CODES[k].title}")
        return
    try:
        text = explain(key)
    except KeyError:
        raise click.UsageError(
            f"unknown code {code!r}.{_did_you_mean(key, CODES)} `plistspec explain` lists them"
        ) from None
    from plistspec.checking.fixes import SAFETY
    from plistspec.core.code_examples import render_example

    fix = SAFETY.get(key)
    if fix == "safe":
        text += "\nFix: safe (`check --fix` applies it).\n"
    elif fix == "unsafe":
        text += "\nFix: unsafe (it changes what gptel/llm send: `check --fix --unsafe-fixes`).\n"
    example = render_example(key)
    if example:
        text += "\n" + example
    click.echo(text, nl=False)


def _family(key: str, codes) -> list[str]:
    """The codes ``key`` is a proper prefix of (``PS30`` or ``30``: PS300...PS309)."""
    digits = key.removeprefix("PS")
    if not digits.isdigit() or f"PS{digits}" in codes:
        return []
    return [k for k in codes if k.startswith(f"PS{digits}") and len(k) > len(digits) + 2]


def _did_you_mean(key: str, codes) -> str:
    """`` Did you mean 'PS333'?`` for ``333``, ``ps333``, ``PS3333``, ``PS33`` (a missing
    prefix, a digit too many or too few), or ``""``."""
    import difflib

    digits = key.removeprefix("PS")
    if f"PS{digits}" in codes:
        return f" Did you mean 'PS{digits}'?"
    close = difflib.get_close_matches(f"PS{digits}", list(codes), n=3, cutoff=0.75)
    if not close:
        return ""
    if len(close) == 1:
        return f" Did you mean {close[0]!r}?"
    return f" Did you mean one of {', '.join(close)}?"
