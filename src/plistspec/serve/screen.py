"""Lines on the stdio transport that the SDK cannot read: each answered, none dropped.

Owns: :func:`screened_stdin`, the standard input handed to the SDK's ``stdio_server``.
The SDK parses each line with pydantic, whose JSON parser stops at 200 levels of
nesting, and silently drops a line it cannot parse: a client waits for an answer until
its own timeout. Here every line is first read as the SDK reads it; one it refuses is
kept from it and answered, as JSON-RPC 2.0 says:

* not JSON (garbage, a cut line): ``-32700`` parse error, ``id`` null;
* JSON, a request (``method`` and ``id``) that the SDK refuses (arguments nested deeper
  than it parses, params of the wrong shape): ``-32602`` invalid params, with its
  ``id`` (the line is read again by :func:`plistspec.core.jsontext.load_json`; past
  its 10 000 levels, the members ``id``/``method``/``result``/``error`` of the message
  are found by the scan of :mod:`plistspec.core.jsonpos`, which keeps a byte a level);
* any other JSON (no ``method``, an invalid ``id``): ``-32600`` invalid request, with
  the ``id`` when it is a string or an integer, else null;
* a notification (no ``id``) or a response (``result``/``error``): logged only, since
  JSON-RPC answers neither.

Standard input itself is claimed as the SDK claims it: read from a private duplicate,
while descriptor 0 points at the null device (children and handlers read nothing).
"""

from __future__ import annotations

import logging
import os
from typing import Any

__all__ = ["screened_stdin", "answer_for"]

log = logging.getLogger("plistspec.serve")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602


def answer_for(line: str, why: str) -> dict[str, Any] | None:
    """The JSON-RPC error answering ``line`` (which the SDK refused, saying ``why``), or
    None when nothing is to be answered (a blank line, a notification)."""
    from plistspec.core.jsontext import JsonError, load_json

    if not line.strip():
        return None
    try:
        value, _ = load_json(line)
    except JsonError as e:
        if not e.too_deep:
            return _error(None, PARSE_ERROR, "Parse error: the line is not JSON")
        value = _members(line)
    except ValueError:
        return _error(None, PARSE_ERROR, "Parse error: the line is not JSON")
    if not isinstance(value, dict):
        return _error(None, INVALID_REQUEST, "Invalid request: not a JSON-RPC object")
    if "method" not in value and ("result" in value or "error" in value):
        log.warning("plistspec serve: a response the SDK cannot read was dropped: %s", why)
        return None  # a response is never answered
    ident = value.get("id")
    ident = ident if isinstance(ident, (str, int)) and not isinstance(ident, bool) else None
    if isinstance(value.get("method"), str) and "id" not in value:
        log.warning("plistspec serve: a notification the SDK cannot read was dropped: %s", why)
        return None
    if isinstance(value.get("method"), str) and ident is not None:
        deep = "recursion limit" in why
        detail = (
            "its params nest deeper than the MCP SDK reads (200 levels)"
            if deep
            else "the MCP SDK cannot read its params"
        )
        return _error(ident, INVALID_PARAMS, f"Invalid params: {detail}")
    return _error(ident, INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message")


def _members(line: str) -> dict[str, Any]:
    """The members of the JSON-RPC object ``line`` that say how to answer it (``id``,
    ``method``: their values when these are shallow; ``result``, ``error``: None), for a
    line nested deeper than :func:`load_json` reads."""
    from plistspec.core.jsonpos import pointer_spans
    from plistspec.core.jsontext import JsonError, load_json

    keys = ("id", "method", "result", "error")
    spans = pointer_spans(line, ["", *("/" + k for k in keys)])
    if not line[slice(*spans[""] or (0, 0))].startswith("{"):
        return {}
    out: dict[str, Any] = {}
    for k in keys:
        span = spans["/" + k]
        if span is None or span == spans[""]:  # (a missing member gives its parent's)
            continue
        try:
            out[k] = load_json(line[slice(*span)])[0] if k in ("id", "method") else None
        except JsonError:
            out[k] = None
    return out


def _error(ident: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


class _Lines:
    """``async for line in ...`` over standard input, the lines the SDK refuses left out
    (their answers go to ``answers``)."""

    def __init__(self, lines: Any, answers: Any) -> None:
        self._lines = lines
        self._answers = answers

    def __aiter__(self):
        return self._screen()

    async def _screen(self):
        import mcp_types as types

        async for line in self._lines:
            try:
                types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception as e:  # what the SDK would drop
                answer = answer_for(line, str(e))
                if answer is not None:
                    await self._answers.send(answer)
                continue
            yield line


def screened_stdin(answers: Any):
    """``(stdin, restore)``: standard input for ``stdio_server(stdin=...)``, and the
    function that points descriptor 0 back at it. Answers to refused lines are sent
    (as dicts) on the memory stream ``answers``."""
    import fcntl
    import io

    import anyio

    private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)

    def restore() -> None:
        try:
            os.dup2(private, 0)
        except OSError:
            pass

    raw = io.TextIOWrapper(
        os.fdopen(private, "rb", closefd=False), encoding="utf-8", errors="replace"
    )
    return _Lines(anyio.wrap_file(raw), answers), restore
