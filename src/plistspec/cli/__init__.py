"""The command line: the only place that reads files, prints and exits.

Owns: the ``plistspec`` click group and the wiring of its commands. Each command lives in
its own small module here, imported only when that command runs (a lazy group), and each
imports the heavy parts of the library only inside its function, so ``plistspec --help``
and ``plistspec to-json`` start about as fast as ``import click``.

Exit codes: 0 success, 1 the input had errors (nothing written), 2 usage errors.
"""

from __future__ import annotations

from importlib import import_module

import click

__all__ = ["main"]

# command name -> (module, attribute); modules are imported on first use.
COMMANDS: dict[str, tuple[str, str]] = {
    "to-json": ("plistspec.cli.to_json_cmd", "to_json_cmd"),
    "from-json": ("plistspec.cli.from_json_cmd", "from_json_cmd"),
    "from-py": ("plistspec.cli.from_py_cmd", "from_py_cmd"),
    "call": ("plistspec.cli.from_py_cmd", "call_cmd"),
    "worker": ("plistspec.cli.from_py_cmd", "worker_cmd"),
    "check": ("plistspec.cli.check_cmd", "check_cmd"),
    "fmt": ("plistspec.cli.fmt_cmd", "fmt_cmd"),
    "explain": ("plistspec.cli.explain_cmd", "explain_cmd"),
}


class LazyGroup(click.Group):
    """A group that imports a command's module only when the command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None:
            return None
        return getattr(import_module(spec[0]), spec[1])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="plistspec")
def main() -> None:
    """Compile LLM tool specs between Emacs Lisp (gptel, llm) and provider / MCP JSON.

    `plistspec COMMAND --help` describes each command; `plistspec explain CODE` a diagnostic.
    """
