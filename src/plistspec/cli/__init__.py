"""The command line: the only place that reads files, prints and exits.

Owns: the ``plistspec`` click group and the wiring of its commands. Each command lives in
its own small module here and imports the heavy parts of the library only when it runs,
so ``plistspec --help`` and ``plistspec to-json`` start about as fast as ``import click``.

Exit codes: 0 success, 1 the input had errors (nothing written), 2 usage errors.
"""

from __future__ import annotations

import click

from plistspec.cli.check_cmd import check_cmd
from plistspec.cli.explain_cmd import explain_cmd
from plistspec.cli.fmt_cmd import fmt_cmd
from plistspec.cli.from_json_cmd import from_json_cmd
from plistspec.cli.from_py_cmd import call_cmd, from_py_cmd
from plistspec.cli.to_json_cmd import to_json_cmd

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="plistspec")
def main() -> None:
    """Compile LLM tool specs between Emacs Lisp (gptel, llm) and provider / MCP JSON."""


main.add_command(to_json_cmd)
main.add_command(from_json_cmd)
main.add_command(from_py_cmd)
main.add_command(call_cmd)
main.add_command(check_cmd)
main.add_command(fmt_cmd)
main.add_command(explain_cmd)
