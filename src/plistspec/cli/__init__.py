"""The command line: the only place that reads files, prints and exits.

Owns: the ``plistspec`` program's entry (:func:`run`) and the table of its commands.
The click group itself is :mod:`plistspec.cli.app` (``plistspec.cli.main`` is that group,
imported on first use); each command lives in its own small module here, imported only
when that command runs.

:func:`run` sends ``plistspec check --server`` straight to its request loop
(:mod:`plistspec.cli.check_server`) without importing click or any other command: an
editor starts that process and waits for its first answer (``plistspec-gptel-mode``'s
first request, Flymake's first check), so what it imports is time the user waits.
Everything else goes through the click group.

Exit codes: 0 success, 1 the input had errors (nothing written), 2 usage errors.

Layer 10, the top, of docs/architecture.md: may import everything (the library API
:mod:`plistspec.api` included); nothing imports it.
"""

from __future__ import annotations

import sys
from typing import Any

from plistspec.cli.commands import COMMANDS, PUBLIC_COMMANDS, did_you_mean

__all__ = ["COMMANDS", "PUBLIC_COMMANDS", "did_you_mean", "main", "run"]


def run() -> None:
    """The ``plistspec`` program (its console script, and ``python -m plistspec``)."""
    if sys.argv[1:] == ["check", "--server"]:
        from plistspec.cli.check_server import main_server

        main_server()
        return
    from plistspec.cli.app import main as group

    group()


def __getattr__(name: str) -> Any:
    """``main``: the click group, imported with click on first use."""
    if name == "main":
        from plistspec.cli.app import main

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
