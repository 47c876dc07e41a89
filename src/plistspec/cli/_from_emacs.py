"""``--from-emacs [SERVER-NAME]`` of ``to-json``, ``check`` and ``from-json``.

Owns: the option pair (``--from-emacs``, ``--llm-variable``) and turning a running
Emacs into inputs: each registered tool is printed by Emacs as the constructor call
that makes it and named ``emacs:TOOL-NAME`` (:mod:`plistspec.emacs.registry`), so the
commands treat it as they treat a file. An Emacs that cannot be reached (or whose socket
is not trusted) is a ``PS804`` error and exit 1; what the registry says besides its tools
(a tool skipped for a raw byte, a name registered twice, gptel not loaded there) is
printed as warnings (``PS807``, ``PS801``, ``PS808``). ``from-json`` writes a closure's
``:function`` as the stub, and says so (``PS810``).
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


def _registry(server: str, llm_variable: str | None) -> dict:
    from plistspec.emacs.client import EmacsClient, EmacsError, socket_path
    from plistspec.emacs.registry import registry_diagnostics, source_payload

    client = EmacsClient(socket_path(server), timeout=30.0)
    try:
        reply = client.request({"op": "registry", "source": source_payload(llm_variable)})
    except EmacsError as e:
        click.echo(f"emacs:{server}: error: {e} [PS804]", err=True)
        sys.exit(1)
    finally:
        client.close()
    for d in registry_diagnostics(reply, f"emacs:{server}", llm_variable):
        click.echo(d.render(), err=True)
    return reply


def registry_entries(server: str, llm_variable: str | None) -> list[dict]:
    """What ``plistspec-serve-registry`` reports (each with its ``form`` text)."""
    return list(_registry(server, llm_variable).get("tools") or [])


def registry_tools(server: str, llm_variable: str | None):
    """``(tools, diagnostics)``: the IR of every tool registered in that Emacs."""
    from plistspec.core.diagnostics import Diagnostic
    from plistspec.emacs.registry import tools_from_registry

    tools, diags = tools_from_registry(registry_entries(server, llm_variable), "emacs")
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.info_name == "from-json":  # it writes Elisp: say the stubs
        for t in tools:
            meta = t.get("metadata") or {}
            if (meta.get("emacs") or {}).get("function") == "closure":
                diags.append(
                    Diagnostic(
                        "PS810",
                        "warning",
                        f"tool {t.get('name')!r}: its :function in Emacs is a closure, which "
                        "has no text to write back: a stub was written instead (define it "
                        "with defun and name it #'SYMBOL to keep it)",
                        path=f"emacs:{t.get('name')}",
                    )
                )
    return tools, diags
