"""``plistspec serve``: Emacs tools for every MCP client.

Owns: the command's options, start-up messages and exit codes. ``mcp`` (and uvicorn for
``--http``) is imported only here, when the command runs. The server itself lives in
:mod:`plistspec.serve`; diagnostics go to standard error, never to the protocol stream.
"""

from __future__ import annotations

import sys

import click

from plistspec.cli._options import stdin_filename_option


@click.command("serve")
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
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP address to bind.")
@click.option("--port", type=int, default=8765, show_default=True, help="HTTP port.")
@click.option(
    "--lower",
    "lower_target",
    default=None,
    metavar="TARGET",
    help="Lower the schemas for one client (e.g. gemini for Gemini CLI).",
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
@stdin_filename_option
def serve_cmd(
    files: tuple[str, ...],
    emacs_server: str | None,
    http: bool,
    host: str,
    port: int,
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
    stdin_filename: str | None,
) -> None:
    """Serve the tools of FILE.el... (or of a running Emacs) to MCP clients.

    tools/list gives the tools compiled as `to-json -f mcp` does; tools/call runs each
    tool's real :function in Emacs: an Emacs plistspec starts for FILE.el... (and stops
    when the server stops), or with --emacs the user's own.
    """
    from plistspec.cli._io import InputError, fail, print_diagnostics, read_text

    if bool(files) == bool(emacs_server):
        fail("plistspec serve: give FILE.el... or --emacs [SERVER-NAME], not both or neither", 2)
    if "-" in files and not http:
        fail("plistspec serve: standard input carries the MCP protocol; give FILE.el paths", 2)
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
    )
    try:
        if files:
            texts = []
            for path in files:
                try:
                    name, text = read_text(path, stdin_name=stdin_filename)
                except InputError as e:
                    fail(str(e), 1)
                texts.append((name if path != "-" else "-", text))
            state, diags = serve_files(texts, opts)
        else:
            state, diags = serve_emacs(emacs_server, opts)
        print_diagnostics([d for d in diags if d.severity != "info"] if state else diags)
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
        from plistspec.serve.server import make_server, run_http, run_stdio

        server = make_server(state)
        if http:
            run_http(server, host, port)
        else:
            import anyio

            anyio.run(run_stdio, server)
    except KeyboardInterrupt:
        pass
    finally:
        for close in opts.closers:
            close()
