"""The MCP server of ``plistspec serve``, on the official ``mcp`` SDK (low-level ``Server``).

Owns: the ``tools/list`` and ``tools/call`` handlers, telling clients that the list
changed, and the stdio transport with its signal handling (HTTP: :mod:`.http`).

``tools/list`` refreshes the catalogue (:mod:`.sources`: one small request when nothing
changed) and returns its entries, built once per version of the list. ``tools/call``:

1. an unknown name is a JSON-RPC error ``-32602`` (invalid params), after one refresh (a
   tool defined since the last list is found);
2. the arguments are validated with ``jsonschema`` against the served ``inputSchema`` of
   the *current* definition; invalid ones are an ``isError`` result naming what is wrong
   (Emacs is not called);
3. a ``:confirm t`` tool runs only when the user passed ``--allow-confirm`` or the
   client confirms through MCP elicitation; the result's ``_meta``
   ``plistspec/confirmation`` says which (``"flag"`` or ``"elicitation"``), a refusal
   is an ``isError`` result saying why;
4. the tool runs in Emacs (:mod:`.runner`) under the fingerprint of the definition the
   arguments were validated against: if Emacs has another definition by then, nothing
   runs, the catalogue is refreshed, the arguments validated again and the call made
   once more; a string result is text content, anything else JSON text; a signal, a
   timeout or an unreachable Emacs is an ``isError`` result.

The server advertises ``tools.listChanged`` and sends
``notifications/tools/list_changed`` to every client that listed the tools (and on
``subscriptions/listen`` streams of 2026-07-28 clients) when a refresh finds the list
changed or Emacs back after a restart; a watch refreshes every ``poll`` seconds.

SIGTERM and SIGINT stop the server at once: every call in flight is answered with an
``isError`` result, no new call starts, and the command stops the Emacs it started.

Over stdio, a line the SDK cannot read (not JSON, arguments nested deeper than it parses)
is answered with a JSON-RPC error instead of being dropped (:mod:`.screen`).

Nothing a tool does can put a traceback on the protocol stream: every failure is turned
into one of the results above, and logs go to standard error.
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass, field
from typing import Any

from plistspec.serve.catalog import ServedTool
from plistspec.serve.runner import Runner

__all__ = ["ServeState", "make_server", "run_stdio", "watch"]

log = logging.getLogger("plistspec.serve")


@dataclass
class ServeState:
    """What the handlers need: the catalogue's source, the runner and the policy."""

    source: Any  # a plistspec.serve.sources.Source (None: a fixed list, for tests)
    runner: Runner | None
    allow_confirm: bool = False
    poll: float = 1.0  # seconds between watches of Emacs (0: no watch)
    sessions: Any = field(default_factory=weakref.WeakSet)  # client connections
    bus: Any = None  # the SDK's subscription bus (2026-07-28 listen streams)
    _listed: tuple[int, list[Any]] | None = None

    @property
    def tools(self) -> list[ServedTool]:
        return self.source.tools

    def tool(self, name: str) -> ServedTool | None:
        return self.source.by_name.get(name)

    async def refresh(self, force: bool = False) -> bool:
        """Refresh the catalogue; tell the clients if the list changed. Errors are
        logged and the last list kept."""
        from plistspec.emacs.client import EmacsError
        from plistspec.serve.runner import ShuttingDown

        try:
            changed = await self.source.refresh(force)
        except ShuttingDown:
            return False
        except EmacsError as e:
            log.debug("plistspec serve: cannot refresh the tools from Emacs: %s", e)
            return False
        if changed:
            await self.notify()
        return changed

    async def notify(self) -> None:
        """``notifications/tools/list_changed`` to every client that listed tools."""
        for connection in list(self.sessions):
            try:
                await connection.send_tool_list_changed()
            except Exception as e:  # a closed connection: forget it
                log.debug("plistspec serve: cannot notify a client: %s", e)
                self.sessions.discard(connection)
        if self.bus is not None:
            from mcp.server.subscriptions import ToolsListChanged

            try:
                await self.bus.publish(ToolsListChanged())
            except Exception as e:  # pragma: no cover - the in-memory bus does not fail
                log.debug("plistspec serve: cannot publish the change: %s", e)

    def listed(self) -> list[dict[str, Any]]:
        """The ``tools`` of the current ``tools/list`` result, in their wire form: each
        entry checked as an MCP ``Tool`` and dumped once per version of the list (the
        SDK takes a result as a dict as it is, without dumping 500 models again)."""
        import mcp_types as types

        version = self.source.version
        if self._listed is None or self._listed[0] != version:
            tools = []
            for t in self.tools:
                try:
                    tool = types.Tool.model_validate(t.entry)
                except Exception as e:  # one odd tool must not take the whole list down
                    log.warning("plistspec serve: tool %r left out of tools/list: %s", t.name, e)
                    continue
                tools.append(tool.model_dump(by_alias=True, mode="json", exclude_none=True))
            self._listed = (version, tools)
        return self._listed[1]


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
    from mcp.server.lowlevel import NotificationOptions, Server
    from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
    from mcp.shared.exceptions import MCPError

    try:
        version = package_version("plistspec")
    except PackageNotFoundError:  # run from a source tree that was never installed
        version = "0"

    def remember(ctx: Any) -> None:
        # the connection, not the request's session object: it outlives the request,
        # and is forgotten (weakly held) when the client goes away. The SDK's
        # ServerSession keeps it as _connection (Context.connection is not on the
        # low-level handlers' context).
        connection = getattr(ctx, "connection", None) or getattr(
            getattr(ctx, "session", None), "_connection", None
        )
        if connection is not None:
            try:
                state.sessions.add(connection)
            except TypeError:  # pragma: no cover - not weakly referenceable
                pass

    async def list_tools(ctx, params):
        remember(ctx)
        await state.refresh()
        return {"tools": [dict(t) for t in state.listed()]}

    async def call_tool(ctx, params):
        remember(ctx)
        tool = state.tool(params.name)
        if tool is None:
            await state.refresh()
            tool = state.tool(params.name)
        if tool is None:
            raise MCPError(
                types.INVALID_PARAMS,
                f"Unknown tool: {params.name!r} (tools/list names the tools this server has)",
            )
        arguments = dict(params.arguments or {})
        problem = tool.validate(arguments)
        if problem is not None:
            return _result(problem, True)
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
        if tool.load_error is not None:
            return _result(f"Tool {params.name!r} cannot run: {tool.load_error}", True, meta)
        if state.runner is None:
            return _result("No Emacs is available to run tools", True, meta)
        outcome = await state.runner.call(tool.emacs_name, arguments, tool.fingerprint)
        if outcome.kind == "stale":  # redefined since: validate against what Emacs has now
            await state.refresh(force=True)
            tool = state.tool(params.name)
            if tool is None:
                return _result(f"Tool {params.name!r} is no longer registered in Emacs", True, meta)
            problem = tool.validate(arguments)
            if problem is not None:
                return _result(problem, True, meta)
            outcome = await state.runner.call(tool.emacs_name, arguments, tool.fingerprint)
            if outcome.kind == "stale":
                return _result(
                    f"Tool {params.name!r} changes in Emacs while it is being called; try again",
                    True,
                    meta,
                )
        if outcome.is_error:
            log.info("plistspec serve: %s: %s", params.name, outcome.text)
        return _result(outcome.text, outcome.is_error, meta)

    state.bus = InMemorySubscriptionBus()

    class _Server(Server):
        """Advertises ``tools.listChanged`` on every transport."""

        def create_initialization_options(self, notification_options=None, *args, **kwargs):
            return super().create_initialization_options(
                notification_options or NotificationOptions(tools_changed=True), *args, **kwargs
            )

    return _Server(
        name,
        version=version,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_subscriptions_listen=ListenHandler(state.bus),
    )


async def watch(state: ServeState) -> None:
    """Refresh the catalogue every ``state.poll`` seconds (list changes, Emacs back)."""
    import anyio

    if state.poll <= 0 or state.source is None:
        return
    while state.runner is None or not state.runner.stopping:
        await anyio.sleep(state.poll)
        await state.refresh()


async def run_stdio(server, state: ServeState, on_signal) -> None:
    """Serve over stdio until the client closes it. On SIGTERM, SIGINT or SIGHUP the
    calls in flight are answered at once (an error), their replies get a moment to
    leave, then ``on_signal(NAME)`` ends the process: the SDK reads standard input in
    a thread that cannot be cancelled, so the server never waits for the client."""
    import signal

    import anyio
    from mcp.server.stdio import stdio_server

    from plistspec.serve.screen import screened_stdin

    async def signals() -> None:
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as sigs:
            async for sig in sigs:
                name = signal.Signals(sig).name
                if state.runner is not None:
                    state.runner.shutdown(name)
                await anyio.sleep(0.3)  # the interrupted calls' results go out
                on_signal(name)
                return

    async def answer(answers, write) -> None:
        """Send the errors answering lines the SDK could not read (:mod:`.screen`)."""
        import mcp_types as types
        from mcp.shared.message import SessionMessage

        async for error in answers:
            try:
                await write.send(SessionMessage(types.JSONRPCError.model_validate(error)))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return

    send_answers, answers = anyio.create_memory_object_stream(64)
    try:
        stdin, restore = screened_stdin(send_answers)
    except OSError:  # no descriptor 0 to claim: the SDK reads (and drops) as it does
        stdin, restore = None, lambda: None
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(signals)
            tg.start_soon(watch, state)
            async with stdio_server(stdin=stdin) as (read, write):
                tg.start_soon(answer, answers, write)
                await server.run(read, write, server.create_initialization_options())
            tg.cancel_scope.cancel()
    finally:
        restore()
