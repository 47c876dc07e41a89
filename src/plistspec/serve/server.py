"""The MCP server of ``plistspec serve``, on the official ``mcp`` SDK (low-level ``Server``).

Owns: the ``tools/list`` and ``tools/call`` handlers and the two transports (stdio,
and Streamable HTTP through uvicorn on 127.0.0.1 by default). ``tools/list`` returns
the catalogue entries unchanged (:mod:`.catalog`). ``tools/call``:

1. an unknown name is a JSON-RPC error ``-32602`` (invalid params);
2. the arguments are validated with ``jsonschema`` against the served ``inputSchema``;
   invalid ones are an ``isError`` result naming what is wrong (Emacs is not called);
3. a ``:confirm t`` tool runs only when the user passed ``--allow-confirm`` or the
   client confirms through MCP elicitation; the result's ``_meta``
   ``plistspec/confirmation`` says which (``"flag"`` or ``"elicitation"``), a refusal
   is an ``isError`` result saying why;
4. the tool runs in Emacs (:mod:`.runner`): a string result is text content, anything
   else JSON text; a signal, a timeout or an unreachable Emacs is an ``isError`` result.

Nothing a tool does can put a traceback on the protocol stream: every failure is turned
into one of the results above, and logs go to standard error.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass, field
from typing import Any

from plistspec.serve.catalog import ServedTool
from plistspec.serve.runner import Runner

__all__ = ["ServeState", "make_server", "run_stdio", "run_http"]

log = logging.getLogger("plistspec.serve")


@dataclass
class ServeState:
    """What the handlers need: the catalogue, the runner and the policy."""

    tools: list[ServedTool]
    runner: Runner | None
    allow_confirm: bool = False
    refresh: Any = None  # callable returning a new catalogue (``--emacs``), or None
    load_errors: dict[str, str] = field(default_factory=dict)  # path -> message
    by_name: dict[str, ServedTool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_name = {t.name: t for t in self.tools}

    def set_tools(self, tools: list[ServedTool]) -> None:
        self.tools = tools
        self.by_name = {t.name: t for t in tools}


def _result(text: str, is_error: bool, meta: dict[str, Any] | None = None):
    import mcp_types as types

    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        is_error=is_error,
        _meta=meta,
    )


async def _confirm(ctx: Any, tool: ServedTool, arguments: dict[str, Any]) -> tuple[bool, str]:
    """Ask the client to confirm ``tool``; ``(confirmed, why)``."""
    import json

    session = getattr(ctx, "session", None)
    caps = getattr(session, "client_capabilities", None)
    if session is None or caps is None or getattr(caps, "elicitation", None) is None:
        return False, "the client does not support MCP elicitation"
    if not getattr(session, "can_send_request", True):
        return False, "the client cannot receive requests on this connection"
    message = (
        f"Emacs tool {tool.emacs_name!r} asks for confirmation before it runs "
        f"(:confirm t). Arguments: {json.dumps(arguments, ensure_ascii=False)}"
    )
    schema = {
        "type": "object",
        "properties": {"confirm": {"type": "boolean", "title": f"Run {tool.emacs_name}?"}},
        "required": ["confirm"],
    }
    try:
        answer = await session.elicit_form(message, schema, getattr(ctx, "request_id", None))
    except Exception as e:  # the client failed the request: not confirmed
        return False, f"elicitation failed: {e}"
    if answer.action == "accept" and (answer.content or {}).get("confirm") is True:
        return True, "elicitation"
    return False, f"the user did not confirm (elicitation: {answer.action})"


def make_server(state: ServeState, name: str = "plistspec"):
    """The low-level MCP ``Server`` serving ``state``."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    import mcp_types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    try:
        version = package_version("plistspec")
    except PackageNotFoundError:  # run from a source tree that was never installed
        version = "0"

    async def list_tools(ctx, params):
        if state.refresh is not None:
            try:
                state.set_tools(await state.refresh())
            except Exception as e:  # keep serving the last catalogue
                log.warning("plistspec serve: cannot refresh the tools from Emacs: %s", e)
        tools = []
        for t in state.tools:
            try:
                tools.append(types.Tool.model_validate(t.entry))
            except Exception as e:  # one odd tool must not take the whole list down
                log.warning("plistspec serve: tool %r left out of tools/list: %s", t.name, e)
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params):
        tool = state.by_name.get(params.name)
        if tool is None:
            raise MCPError(
                types.INVALID_PARAMS,
                f"Unknown tool: {params.name!r} (tools/list names the tools this server has)",
            )
        arguments = dict(params.arguments or {})
        problem = tool.validate(arguments)
        if problem is not None:
            return _result(f"Invalid arguments for tool {params.name!r}: {problem}", True)
        meta: dict[str, Any] | None = None
        if tool.confirm:
            if state.allow_confirm:
                meta = {"plistspec/confirmation": "flag"}
            else:
                ok, why = await _confirm(ctx, tool, arguments)
                if not ok:
                    return _result(
                        f"Tool {params.name!r} was not run: it needs confirmation (:confirm t) "
                        f"and {why}. Restart the server with --allow-confirm to run it without "
                        "asking.",
                        True,
                        {"plistspec/confirmation": "refused"},
                    )
                meta = {"plistspec/confirmation": why}
        if tool.source_path in state.load_errors:
            return _result(
                f"Tool {params.name!r} cannot run: {tool.source_path} failed to load in Emacs: "
                f"{state.load_errors[tool.source_path]}",
                True,
                meta,
            )
        if state.runner is None:
            return _result("No Emacs is available to run tools", True, meta)
        outcome = await state.runner.call(tool.emacs_name, arguments)
        if outcome.is_error:
            log.info("plistspec serve: %s: %s", params.name, outcome.text)
        return _result(outcome.text, outcome.is_error, meta)

    return Server(name, version=version, on_list_tools=list_tools, on_call_tool=call_tool)


async def run_stdio(server) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def run_http(server, host: str, port: int) -> None:
    import uvicorn

    app = server.streamable_http_app(host=host)
    print(f"plistspec serve: http://{host}:{port}/mcp", file=sys.stderr, flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
