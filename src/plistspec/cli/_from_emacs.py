"""``--from-emacs [SERVER-NAME]`` of ``to-json``, ``check`` and ``from-json``.

Owns: the option pair (``--from-emacs``, ``--llm-variable``) and turning a running
Emacs into inputs: each registered tool is printed by Emacs as the constructor call
that makes it and named ``emacs:TOOL-NAME`` (:mod:`plistspec.emacs.registry`), so the
commands treat it as they treat a file. An Emacs that cannot be reached is a ``PS804``
error and exit 1.
"""

from __future__ import annotations

import sys

import click

__all__ = ["from_emacs_options", "registry_entries", "registry_tools"]


def from_emacs_options(f):
    f = click.option(
        "--llm-variable",
        default=None,
        metavar="SYMBOL",
        help="With --from-emacs: also read the llm tools held in this variable.",
    )(f)
    return click.option(
        "--from-emacs",
        "from_emacs",
        is_flag=False,
        flag_value="server",
        default=None,
        metavar="[SERVER-NAME]",
        help="Read the tools registered in a running Emacs (gptel's registry) through "
        "its server socket (a server name or a socket path).",
    )(f)


def registry_entries(server: str, llm_variable: str | None) -> list[dict]:
    """What ``plistspec-serve-registry`` reports (each with its ``form`` text)."""
    from plistspec.emacs.client import EmacsClient, EmacsError, socket_path

    client = EmacsClient(socket_path(server), timeout=30.0)
    try:
        client.ensure_loaded()
        reply = client.request({"op": "registry", "source": {"llm_variable": llm_variable}})
    except EmacsError as e:
        click.echo(f"emacs:{server}: error: {e} [PS804]", err=True)
        sys.exit(1)
    return list(reply.get("tools") or [])


def registry_tools(server: str, llm_variable: str | None):
    """``(tools, diagnostics)``: the IR of every tool registered in that Emacs."""
    from plistspec.emacs.registry import tools_from_registry

    return tools_from_registry(registry_entries(server, llm_variable), "emacs")
