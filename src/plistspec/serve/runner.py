"""Running tool calls and registry reads in Emacs, from asyncio.

Owns: the order and waiting of requests into one Emacs, over asyncio streams (no thread
waits on Emacs, so a signal ends the server at once). Requests are serialized (one
lock: a synchronous tool runs alone, as it would in gptel, and nothing re-enters Emacs
while it waits); an asynchronous tool starts under the lock and is then waited for
*without* it, by short polls with a growing interval, so async calls overlap each other
and sync calls. A synchronous tool is interrupted by Emacs's ``with-timeout`` after
``timeout`` seconds (when it waits, as a busy loop cannot be interrupted); an
asynchronous one whose callback has not run by then is dropped (a late callback is
ignored).

Cancellation (the client cancelled the request or went away): a call still waiting for
the lock never reaches Emacs; an async call already started is forgotten in Emacs (its
late callback is ignored); a synchronous tool already running in Emacs cannot be
stopped from outside and runs to its end or ``timeout``, its result dropped.
:meth:`Runner.shutdown` (SIGTERM, SIGINT) ends every call in flight at once with an
``isError`` outcome.

Every call carries the fingerprint of the definition its arguments were validated
against; Emacs answers ``stale`` without running anything when the tool was redefined
since, and the server validates again. An Emacs that cannot be reached before a request
was sent is restarted through ``restart`` (plistspec's own Emacs only) and the request
tried once more; one that dies during a call is restarted for the next calls and the
call reports it. Every outcome is an :class:`Outcome`: nothing here raises for a tool's
failure.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from plistspec.emacs.client import EmacsClient, EmacsError, EmacsUnavailable

__all__ = ["Outcome", "Runner", "ShuttingDown"]

log = logging.getLogger("plistspec.serve")


@dataclass
class Outcome:
    text: str
    is_error: bool
    kind: str  # text | json | signal | timeout | unknown | emacs | stale | shutdown
    fingerprint: str | None = None  # kind "stale": the current definition's


class ShuttingDown(Exception):
    """The server is stopping: no request is started any more."""


class Runner:
    """Requests to the Emacs behind ``client``; calls tools by their Emacs name."""

    def __init__(
        self,
        client: EmacsClient,
        source: Any,
        timeout: float = 60.0,
        restart: Callable[[], Awaitable[EmacsClient]] | None = None,
        alive: Callable[[], bool] | None = None,
    ) -> None:
        self.client = client
        self.source = source  # "recorded" or a registry source payload
        self.timeout = timeout
        self.restart = restart  # plistspec's own Emacs: start it again
        self.alive = alive  # plistspec's own Emacs: whether its process runs
        self.restarted_at: float | None = None
        self._answered = False  # a request was answered since the last (re)start
        self._lock = asyncio.Lock()
        self._ids = itertools.count(1)
        self._stopping = asyncio.Event()
        self.stop_reason = ""

    # -- stopping -------------------------------------------------------------------

    def shutdown(self, reason: str) -> None:
        """End every call in flight with an error outcome; start no request any more."""
        self.stop_reason = reason
        self._stopping.set()

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    async def _unless_stopping(self, coro: Awaitable[Any]) -> Any:
        """``await coro``, unless the server stops first (then :class:`ShuttingDown`)."""
        if self._stopping.is_set():
            raise ShuttingDown
        task = asyncio.ensure_future(coro)
        stop = asyncio.ensure_future(self._stopping.wait())
        try:
            done, _ = await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            stop.cancel()
        if task in done:
            return task.result()
        task.cancel()
        raise ShuttingDown

    # -- one request ------------------------------------------------------------------

    async def _restart(self) -> bool:
        """Start plistspec's own Emacs again; whether it runs. Not again when it died
        before answering one request since the last start, within 5 s: report it then,
        rather than loop."""
        if self.restart is None:
            return False
        now = time.monotonic()
        if self.restarted_at is not None and not self._answered and now - self.restarted_at < 5.0:
            return False
        self.restarted_at = now
        self._answered = False
        try:
            self.client = await self.restart()
        except EmacsError as e:
            log.warning("plistspec serve: cannot restart Emacs: %s", e)
            return False
        log.warning("plistspec serve: Emacs had stopped; started it again")
        return True

    def _dead(self) -> bool:
        return self.alive is not None and not self.alive()

    async def _died(self) -> bool:
        """Whether plistspec's own Emacs has died (given half a second to finish dying,
        after a connection it dropped)."""
        if self.alive is None:
            return False
        for _ in range(10):
            if not self.alive():
                return True
            await asyncio.sleep(0.05)
        return False

    async def request(self, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        """One request under the lock; plistspec's own Emacs is restarted once if it was
        found dead before the request reached it."""
        async with self._lock:
            if self._stopping.is_set():
                raise ShuttingDown
            if self._dead():
                await self._restart()
            try:
                reply = await self.client.arequest(payload, timeout)
                self._answered = True
                return reply
            except EmacsUnavailable as e:
                # it died: start it again; run the request again only if it cannot have
                # reached the old Emacs or does nothing there (a call might have run)
                if not await self._died():
                    raise
                again = not e.sent or payload.get("op") in ("registry", "hello")
                if not await self._restart() or not again:
                    died = EmacsUnavailable(str(e), sent=True)
                    died.died = True  # type: ignore[attr-defined]
                    raise died from None
            return await self.client.arequest(payload, timeout)

    # -- one call ---------------------------------------------------------------------

    async def call(
        self, emacs_name: str, arguments: dict[str, Any], expect: str | None = None
    ) -> Outcome:
        try:
            return await self._unless_stopping(self._call(emacs_name, arguments, expect))
        except ShuttingDown:
            return Outcome(
                f"plistspec serve is stopping ({self.stop_reason or 'signal'}): the call of "
                f"tool {emacs_name!r} was interrupted before its result came back",
                True,
                "shutdown",
            )

    async def _call(self, emacs_name: str, arguments: dict[str, Any], expect: str | None):
        call_id = f"c{next(self._ids)}"
        payload: dict[str, Any] = {
            "op": "call",
            "source": self.source,
            "name": emacs_name,
            "arguments": json.dumps(arguments, ensure_ascii=True),
            "id": call_id,
            "timeout": self.timeout,
        }
        if expect is not None:
            payload["expect"] = expect
        deadline = time.monotonic() + self.timeout
        started = False
        try:
            pid = self.client.pid
            try:
                reply = await self.request(payload, self.timeout + 5.0)
            except EmacsUnavailable as e:
                if getattr(e, "died", False):  # it died while running this tool
                    return Outcome(
                        f"Emacs exited while running tool {emacs_name!r} ({e}); plistspec "
                        "starts it again for the next calls",
                        True,
                        "emacs",
                    )
                raise
            if pid is not None and self.client.pid not in (None, pid):
                log.info("plistspec serve: Emacs restarted (pid %s, was %s)", self.client.pid, pid)
            started = reply.get("status") == "pending"
            delay = 0.002
            while reply.get("status") == "pending":
                if time.monotonic() >= deadline:
                    started = False
                    await self._forget(call_id)
                    return Outcome(
                        f"Tool {emacs_name!r} timed out after {self.timeout:g} seconds "
                        "(its callback was not called)",
                        True,
                        "timeout",
                    )
                await asyncio.sleep(min(delay, max(0.0, deadline - time.monotonic())))
                delay = min(delay * 2, 0.05)
                reply = await self.request({"op": "poll", "id": call_id}, 10.0)
            started = False
        except EmacsError as e:
            return Outcome(f"Emacs could not run tool {emacs_name!r}: {e}", True, "emacs")
        finally:
            if started:  # cancelled while an async tool runs: its late callback is ignored
                asyncio.ensure_future(self._forget(call_id))
        status = reply.get("status")
        text = str(reply.get("text", ""))
        if status == "ok":
            return Outcome(text, False, str(reply.get("kind", "text")))
        if status == "stale":
            return Outcome("", True, "stale", str(reply.get("fingerprint") or ""))
        return Outcome(text, True, str(reply.get("kind", "signal")))

    async def _forget(self, call_id: str) -> None:
        try:
            await self.request({"op": "forget", "id": call_id}, 5.0)
        except (EmacsError, ShuttingDown):
            pass
