"""``plistspec serve --http``: Streamable HTTP, who may connect, and stopping.

Owns: the HTTP app's guards and the uvicorn server around it.

* **Host and Origin** are checked on every request, whatever address is bound (the
  SDK's DNS-rebinding protection, which it turns on by itself only for 127.0.0.1,
  localhost and ::1): allowed are the loopback names (``127.0.0.1``, ``localhost``,
  ``[::1]``), the bound address itself unless it is a wildcard (``0.0.0.0``, ``::``),
  and every ``--allow-host``, each with the port served; Origins ``http://`` and
  ``https://`` of those, plus every ``--allow-origin``. Anything else is refused (421
  for a Host, 403 for an Origin) before the MCP layer sees it.
* **A bearer token** on every request, loopback included (the simplest form of the MCP
  authorization spec: ``Authorization: Bearer TOKEN``, compared in constant time;
  otherwise 401 with ``WWW-Authenticate: Bearer``): ``--auth-token-file``'s, or the one
  :mod:`.token` keeps. Binding anything but a loopback address requires
  ``--auth-token-file`` (:func:`needs_token`).
* **Sessions** are capped (``max_sessions``, the SDK's limit): at the cap a request that
  would open one more gets 503 ("Too many open sessions"); open sessions are kept until
  their client ends them (``DELETE``) or they are idle for 30 minutes.
* **Stopping**: SIGTERM, SIGINT and SIGHUP answer every call in flight with an error at
  once, then uvicorn closes within a second and :func:`run_http` returns the signal's
  name (the caller cleans up and exits; uvicorn's re-raising of the signal, which
  killed the process before any clean-up, is not done).
"""

from __future__ import annotations

import hmac
import ipaddress
import sys
from typing import Any

__all__ = ["needs_token", "allowed", "guard", "run_http"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is on the loopback interface."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name: it may resolve anywhere


def needs_token(host: str) -> bool:
    """Binding ``host`` requires ``--auth-token-file`` (anything off loopback)."""
    return not is_loopback(host)


def _hostport(host: str, port: int) -> list[str]:
    h = host.strip("[]")
    if ":" in h:  # IPv6
        h = f"[{h}]"
    return [f"{h}:{port}", h]


def allowed(
    host: str, port: int, allow_hosts: tuple[str, ...] = (), allow_origins: tuple[str, ...] = ()
) -> tuple[list[str], list[str]]:
    """``(hosts, origins)``: the Host and Origin header values accepted."""
    names = ["127.0.0.1", "localhost", "::1"]
    try:
        wildcard = ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        wildcard = False
    if not wildcard and host not in names:
        names.append(host)
    names.extend(h for h in allow_hosts if h not in names)
    hosts: list[str] = []
    origins: list[str] = []
    for n in names:
        for hp in _hostport(n, port):
            hosts.append(hp)
            origins.extend([f"http://{hp}", f"https://{hp}"])
    origins.extend(allow_origins)
    return hosts, origins


def guard(app: Any, token: str | None):
    """``app`` behind the bearer-token check (``token`` None: no check)."""
    if token is None:
        return app
    expected = f"Bearer {token}".encode()

    async def guarded(scope, receive, send):
        if scope["type"] != "http":
            return await app(scope, receive, send)
        given = b""
        for k, v in scope.get("headers") or []:
            if k.lower() == b"authorization":
                given = v
                break
        if hmac.compare_digest(given, expected):
            return await app(scope, receive, send)
        body = b"Unauthorized: send the token of --auth-token-file as Authorization: Bearer"
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"text/plain; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="plistspec"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    return guarded


def run_http(
    server,
    state,
    host: str,
    port: int,
    token: str | None = None,
    allow_hosts: tuple[str, ...] = (),
    allow_origins: tuple[str, ...] = (),
    max_sessions: int = 100,
) -> str | None:
    """Serve Streamable HTTP until a signal; the signal's name (None if none came)."""
    import asyncio
    import contextlib
    import signal
    import threading

    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from plistspec.serve.server import watch

    hosts, origins = allowed(host, port, allow_hosts, allow_origins)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )
    app = guard(
        server.streamable_http_app(
            host=host, transport_security=security, max_sessions=max_sessions
        ),
        token,
    )
    stopped: list[str] = []
    loops: list[asyncio.AbstractEventLoop] = []

    class _Uvicorn(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            close = super().handle_exit
            if not stopped and loops:
                stopped.append(signal.Signals(sig).name)
                if state.runner is not None:
                    loops[0].call_soon_threadsafe(state.runner.shutdown, stopped[0])
                # the interrupted calls' results leave before uvicorn closes connections
                loops[0].call_soon_threadsafe(loops[0].call_later, 0.3, close, sig, frame)
                return
            if not stopped:
                stopped.append(signal.Signals(sig).name)
            close(sig, frame)  # a second signal: at once

        @contextlib.contextmanager
        def capture_signals(self):
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            handled = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
            before = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
            try:
                yield
            finally:
                for sig, handler in before.items():
                    signal.signal(sig, handler)

    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", timeout_graceful_shutdown=1
    )
    shown = f"[{host}]" if ":" in host else host
    print(f"plistspec serve: http://{shown}:{port}/mcp", file=sys.stderr, flush=True)

    async def main() -> None:
        loops.append(asyncio.get_running_loop())
        watcher = asyncio.ensure_future(watch(state))
        try:
            await _Uvicorn(config).serve()
        finally:
            watcher.cancel()

    asyncio.run(main())
    return stopped[0] if stopped else None
