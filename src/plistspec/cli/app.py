"""The ``plistspec`` click group: the wiring of every command, and the last line of defence.

Owns: :data:`main` (the group), its lazy loading of each command's module, and the
handling of a standard output that cannot be written. Each command lives in its own small
module here, imported only when that command runs (a lazy group), and each imports the
heavy parts of the library only inside its function, so ``plistspec --help`` and
``plistspec to-json`` start about as fast as ``import click``.

Exit codes: 0 success, 1 the input had errors (nothing written), 2 usage errors.

The group's :meth:`LazyGroup.main` is the one place that handles a standard output that
cannot be written (``> /dev/full``, a closed stdout ``>&-``, a closed pipe) for every
command: one line on standard error, exit 1, no traceback. Messages on standard error
and text on standard output never fail to encode (a lone surrogate is escaped).
"""

from __future__ import annotations

from importlib import import_module

import click

from plistspec.cli.commands import COMMANDS, PUBLIC_COMMANDS, did_you_mean
from plistspec.cli.streams import (
    STDOUT_ERRNOS,
    StdoutFailed,
    flush_stdout,
    guard_std_streams,
    internal_error,
    report_stdout_failure,
)

__all__ = ["main", "LazyGroup"]


class LazyGroup(click.Group):
    """A group that imports a command's module only when the command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        return getattr(import_module(spec[0]), spec[1])

    def resolve_command(self, ctx: click.Context, args: list[str]):  # type: ignore[override]
        """A misspelt command is a usage error with a did-you-mean (``tojson`` → to-json),
        as a misspelt option is."""
        name = click.utils.make_str(args[0])
        if name not in COMMANDS and not name.startswith("-"):
            ctx.fail(f"No such command {name!r}.{did_you_mean(name, PUBLIC_COMMANDS)}")
        return super().resolve_command(ctx, args)

    def main(self, *args, **kwargs):  # type: ignore[override]
        """Run the command; a failing standard output is one message and exit 1."""
        guard_std_streams()
        try:
            try:
                return super().main(*args, **kwargs)
            finally:
                flush_stdout()
        except StdoutFailed as e:
            report_stdout_failure(e.__cause__)
        except OSError as e:
            if e.filename is None and e.errno in STDOUT_ERRNOS:
                report_stdout_failure(e)
            internal_error(e)
        except Exception as e:  # noqa: BLE001 - the last line of defence: never a traceback
            internal_error(e)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="plistspec")
def main() -> None:
    """Compile LLM tool specs between Emacs Lisp (gptel, llm) and provider / MCP JSON.

    `plistspec COMMAND --help` describes each command; `plistspec explain CODE` a diagnostic.
    """
