"""``plistspec serve``: Emacs tools for every MCP client.

Owns: the command's options, start-up messages and exit codes. ``mcp`` (and uvicorn for
``--http``) is imported only here, when the command runs. The server itself lives in
:mod:`plistspec.serve`; diagnostics go to standard error, never to the protocol stream.
"""

from __future__ import annotations

import sys

import click

from plistspec.cli._options import (
    Command,
    deprecated_option,
    output_format_option,
    stdin_filename_option,
)
from plistspec.core.formats import LOWER_TARGETS


@click.command("serve", cls=Command)
@click.argument("files", nargs=-1, metavar="[FILE.el]...")
@click.option(
    "--emacs",
    "emacs_server",
    is_flag=False,
    flag_value="server",
    default=None,
    metavar="[SERVER-NAME]",
    help="Serve the tools registered in your running Emacs (its `server-start` socket; "
    "a name, or a socket path).",
)
@click.option("--http", is_flag=True, help="Streamable HTTP instead of stdio.")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="HTTP address to bind. Any address off loopback (0.0.0.0, a LAN address, a name) "
    "requires --auth-token-file. Host and Origin headers are checked for every address: "
    "loopback names and the bound address are allowed, others only with --allow-host.",
)
@click.option("--port", type=int, default=8765, show_default=True, help="HTTP port.")
@click.option(
    "--auth-token-file",
    "token_file",
    default=None,
    metavar="FILE",
    help="--http: every request must carry 'Authorization: Bearer TOKEN', TOKEN being "
    "FILE's content (a line of your choice; keep the file private). Required off "
    "loopback; on loopback, without it, a token is made and kept in "
    "~/.local/state/plistspec/http-token ($XDG_STATE_HOME), and its path printed.",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="HOST",
    help="--http: also accept this Host header name (e.g. the machine's name when bound "
    "to 0.0.0.0); repeatable.",
)
@click.option(
    "--allow-origin",
    "allow_origins",
    multiple=True,
    metavar="ORIGIN",
    help="--http: also accept this Origin header (e.g. https://app.example); repeatable.",
)
@click.option(
    "--max-sessions",
    type=click.IntRange(min=1),
    default=100,
    show_default=True,
    metavar="N",
    help="--http: at most N client sessions open at once; a client opening one more "
    "gets 503 (Too many open sessions) until one ends (DELETE, or 30 minutes idle).",
)
@click.option(
    "--poll",
    type=float,
    default=1.0,
    show_default=True,
    metavar="SECONDS",
    help="How often to look for changed tools or a restarted Emacs "
    "(notifications/tools/list_changed); 0: only when a client lists or calls.",
)
@click.option(
    "-t",
    "--target",
    "lower_target",
    type=click.Choice(LOWER_TARGETS),
    default=None,
    metavar="TARGET",
    help="Lower the schemas for one client (e.g. gemini for Gemini CLI).",
)
@deprecated_option(
    "--lower", "--target", "lower_target", metavar="TARGET", type=click.Choice(LOWER_TARGETS)
)
@click.option(
    "--timeout",
    type=float,
    default=60.0,
    show_default=True,
    help="Seconds a tool may run (an async tool: until its callback is called).",
)
@click.option(
    "--allow-confirm",
    is_flag=True,
    help="Run :confirm t tools without asking (otherwise the client must confirm "
    "through MCP elicitation).",
)
@click.option(
    "--no-map-names",
    "map_names",
    is_flag=True,
    flag_value=False,
    default=True,
    help="Serve tool names as they are, even where MCP clients reject them.",
)
@click.option(
    "-L",
    "--load-path",
    "load_path",
    multiple=True,
    metavar="DIR",
    help="Add DIR to Emacs's load-path (own Emacs).",
)
@click.option("--init", "init_file", default=None, metavar="FILE", help="Load FILE first.")
@click.option("--emacs-program", default="emacs", show_default=True, help="The Emacs to start.")
@click.option("--category", "categories", multiple=True, help="--emacs: only these categories.")
@click.option("--tool", "names", multiple=True, help="--emacs: only the tools of these names.")
@click.option(
    "--llm-variable",
    default=None,
    metavar="SYMBOL",
    help="--emacs: also serve the llm tools in this variable.",
)
@output_format_option(
    "How the start-up diagnostics (of the tools read) are printed: gnu, json, github, sarif."
)
@stdin_filename_option
def serve_cmd(
    files: tuple[str, ...],
    emacs_server: str | None,
    http: bool,
    host: str,
    port: int,
    token_file: str | None,
    allow_hosts: tuple[str, ...],
    allow_origins: tuple[str, ...],
    max_sessions: int,
    poll: float,
    lower_target: str | None,
    timeout: float,
    allow_confirm: bool,
    map_names: bool,
    load_path: tuple[str, ...],
    init_file: str | None,
    emacs_program: str,
    categories: tuple[str, ...],
    names: tuple[str, ...],
    llm_variable: str | None,
    output_format: str,
    stdin_filename: str | None,
) -> None:
    """Serve the tools of FILE.el... (or of a running Emacs) to MCP clients.

    tools/list gives the tools compiled as `to-json -t mcp` does (plus MCP annotations,
    _meta and client-safe names); tools/call runs each tool's real :function in Emacs:
    an Emacs plistspec starts for FILE.el... (and stops when the server stops), or with
    --emacs the user's own. --http binds 127.0.0.1 unless --host says otherwise and
    requires a bearer token on every request (--auth-token-file, or one plistspec makes
    and names on standard error; off loopback --auth-token-file is required); Host and
    Origin are checked for every bind.
    """
    from plistspec.cli._io import InputError, fail, print_diagnostics, read_elisp

    if bool(files) == bool(emacs_server):
        fail("plistspec serve: give FILE.el... or --emacs [SERVER-NAME], not both or neither", 2)
    if "-" in files and not http:
        fail("plistspec serve: standard input carries the MCP protocol; give FILE.el paths", 2)
    token = None
    if poll < 0:
        fail("plistspec serve: --poll must be 0 or more seconds", 2)
    if not http and (token_file or allow_hosts or allow_origins):
        fail(
            "plistspec serve: --auth-token-file, --allow-host and --allow-origin are for --http",
            2,
        )
    if http:
        from plistspec.serve.http import needs_token

        if token_file is None and needs_token(host):
            fail(
                f"plistspec serve: error: --host {host} is not a loopback address: anyone "
                "who can reach it could run your Emacs tools; give --auth-token-file FILE "
                "(clients send 'Authorization: Bearer' and its content) [PS811]",
                2,
            )
        if token_file is not None:
            token = _read_token(token_file)
        else:  # loopback too: any local account can reach it
            from plistspec.serve.token import TokenError, default_token

            try:
                token, where, made = default_token()
            except TokenError as e:
                fail(f"plistspec serve: error: {e} [PS812]", 2)
            print(
                "plistspec serve: every request must carry 'Authorization: Bearer TOKEN'; "
                f"TOKEN is in {where} ({'new' if made else 'kept from an earlier run'}; "
                "--auth-token-file FILE to use your own)",
                file=sys.stderr,
                flush=True,
            )
    if lower_target:
        try:
            import plistspec.lowering as lowering

            lowering.lower_tools  # noqa: B018
        except (ImportError, AttributeError):
            fail(
                "plistspec serve: --lower needs the lowering stage "
                "(plistspec.lowering.lower_tools), which this plistspec does not have",
                2,
            )
    try:
        import mcp  # noqa: F401
    except ImportError:
        fail("plistspec serve: needs the MCP SDK: pip install 'plistspec[serve]'", 2)
    if http:
        try:
            import uvicorn  # noqa: F401
        except ImportError:
            fail("plistspec serve --http: needs uvicorn: pip install 'plistspec[serve]'", 2)

    import logging

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(message)s")

    from plistspec.serve.setup import Options, serve_emacs, serve_files

    opts = Options(
        lower=lower_target,
        map_names=map_names,
        allow_confirm=allow_confirm,
        timeout=timeout,
        load_path=load_path,
        init_file=init_file,
        emacs_program=emacs_program,
        llm_variable=llm_variable,
        categories=categories,
        names=names,
        poll=poll,
    )
    try:
        if files:
            texts = []
            decoding = []  # invalid UTF-8: read as Emacs does, with a warning
            for path in files:
                try:
                    name, text, _, warnings = read_elisp(path, stdin_name=stdin_filename)
                except InputError as e:
                    fail(str(e), 1)
                decoding.extend(warnings)
                texts.append((name if path != "-" else "-", text))
            state, diags = serve_files(texts, opts)
            diags = decoding + diags
        else:
            state, diags = serve_emacs(emacs_server, opts)
        print_diagnostics(
            [d for d in diags if d.severity != "info"] if state else diags, output_format
        )
        if state is None:
            sys.exit(1)
        if state.runner is not None and state.runner.client.pid is not None:
            print(
                f"plistspec serve: Emacs pid {state.runner.client.pid} "
                f"({'own' if files else 'running'}) at {state.runner.client.socket_file}",
                file=sys.stderr,
                flush=True,
            )
        print(
            f"plistspec serve: {len(state.tools)} tool(s): "
            + ", ".join(t.name for t in state.tools),
            file=sys.stderr,
            flush=True,
        )
        from plistspec.serve.server import make_server, run_stdio

        server = make_server(state)
        if http:
            from plistspec.serve.http import run_http

            stopped = run_http(
                server, state, host, port, token, allow_hosts, allow_origins, max_sessions
            )
            if stopped:
                _stop(opts.closers, stopped)
        else:
            import anyio

            anyio.run(run_stdio, server, state, lambda name: _stop(opts.closers, name))
    except KeyboardInterrupt:
        pass
    finally:
        _close(opts.closers)


def _close(closers: list, fast: bool = False) -> None:
    import inspect

    while closers:
        close = closers.pop()
        try:
            if fast and "fast" in inspect.signature(close).parameters:
                close(fast=True)
            else:
                close()
        except Exception:  # a stop that fails must not keep the others from running
            pass


def _stop(closers: list, signame: str) -> None:
    """End the process after SIGNAME: stop the Emacs it started, then exit at once (no
    wait for the SDK's thread reading standard input)."""
    import os

    print(f"plistspec serve: stopped by {signame}", file=sys.stderr, flush=True)
    _close(closers, fast=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _read_token(path: str) -> str:
    """The bearer token in ``path`` (its first line, stripped); exits 2 when unusable."""
    import os
    import stat

    from plistspec.cli._io import fail
    from plistspec.serve.token import valid_token

    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            raw = f.read(4097)
    except OSError as e:
        fail(f"{path}: error: cannot read the token file: {e.strerror or e} [PS812]", 2)
    token = valid_token(raw)
    if token is None:
        fail(
            f"{path}: error: the token file must hold one line of printable ASCII without "
            "spaces (at most 4096 bytes) [PS812]",
            2,
        )
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        print(
            f"{path}: warning: the token file can be read by other users "
            f"(mode {st.st_mode & 0o777:o}); chmod 600 it [PS812]",
            file=sys.stderr,
        )
    return token
