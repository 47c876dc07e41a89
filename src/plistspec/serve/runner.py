"""Running one tool call in Emacs, from asyncio.

Owns: the order and waiting of calls into one Emacs. Requests to Emacs are serialized
(one lock: a synchronous tool runs alone, as it would in gptel); an asynchronous tool
starts under the lock and is then waited for *without* it, by short polls with a
growing interval, so async calls overlap each other and sync calls. A synchronous tool
is interrupted by Emacs's ``with-timeout`` after ``timeout`` seconds (when it waits, as
a busy loop cannot be interrupted); an asynchronous one whose callback has not run by
then is dropped (a late callback is ignored). Every outcome is a :class:`Outcome`:
nothing here raises for a tool's failure.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from dataclasses import dataclass
from typing import Any

from plistspec.emacs.client import EmacsClient, EmacsError

__all__ = ["Outcome", "Runner"]


@dataclass
class Outcome:
    text: str
    is_error: bool
    kind: str  # text | json | signal | timeout | unknown | emacs


class Runner:
    """Calls tools by their Emacs name in the Emacs behind ``client``."""

    def __init__(self, client: EmacsClient, source: Any, timeout: float = 60.0) -> None:
        self.client = client
        self.source = source  # "recorded" or {"llm_variable": NAME}
        self.timeout = timeout
        self._lock = asyncio.Lock()
        self._ids = itertools.count(1)

    async def _request(self, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        async with self._lock:
            return await asyncio.to_thread(self.client.request, payload, timeout)

    async def call(self, emacs_name: str, arguments: dict[str, Any]) -> Outcome:
        call_id = f"c{next(self._ids)}"
        payload = {
            "op": "call",
            "source": self.source,
            "name": emacs_name,
            "arguments": json.dumps(arguments, ensure_ascii=True),
            "id": call_id,
            "timeout": self.timeout,
        }
        deadline = time.monotonic() + self.timeout
        try:
            reply = await self._request(payload, self.timeout + 5.0)
            delay = 0.002
            while reply.get("status") == "pending":
                if time.monotonic() >= deadline:
                    await self._request({"op": "forget", "id": call_id}, 5.0)
                    return Outcome(
                        f"Tool {emacs_name!r} timed out after {self.timeout:g} seconds "
                        "(its callback was not called)",
                        True,
                        "timeout",
                    )
                await asyncio.sleep(min(delay, max(0.0, deadline - time.monotonic())))
                delay = min(delay * 2, 0.05)
                reply = await self._request({"op": "poll", "id": call_id}, 10.0)
        except EmacsError as e:
            return Outcome(f"Emacs could not run tool {emacs_name!r}: {e}", True, "emacs")
        status = reply.get("status")
        text = str(reply.get("text", ""))
        if status == "ok":
            return Outcome(text, False, str(reply.get("kind", "text")))
        return Outcome(text, True, str(reply.get("kind", "signal")))
