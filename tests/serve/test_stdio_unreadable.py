"""Issue 31 §6: stdio `serve` answers every line, even those the MCP SDK cannot read: a
`tools/call` whose arguments nest 200+ levels gets -32602 (invalid params, its id), a
garbage line -32700 (parse error, id null), and the server goes on serving. The SDK's
own client for the nesting, a raw pipe for garbage; every wait has a timeout."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading

import anyio
import pytest
from serve_util import TOOLS, server_env, stdio_session, texts

pytestmark = [pytest.mark.emacs, pytest.mark.slow]  # a real Emacs behind the server


def _deep(depth: int):
    return json.loads("[" * depth + '"bottom"' + "]" * depth)


@pytest.mark.parametrize("depth", [201, 250])  # much deeper, the SDK client gives up
def test_the_sdk_client_gets_invalid_params_for_deep_arguments(emacs, mcp_sdk, depth):
    from mcp.shared.exceptions import MCPError

    async def main():
        with anyio.fail_after(120):
            async with stdio_session([str(TOOLS)]) as s:
                try:
                    await s.call_tool("show_args", {"text": "x", "items": _deep(depth)})
                except MCPError as e:
                    refused = e
                else:
                    refused = None
                after = await s.call_tool("greet", {"name": "still here"})
                return refused, after

    refused, after = anyio.run(main)
    assert refused is not None, "no error for a call nested too deeply"
    assert refused.error.code == -32602 and "nest deeper" in refused.error.message
    assert texts(after) == ["Grüß dich, still here ☃"]


class _Pipe:
    """`plistspec serve` on raw pipes: lines in, JSON lines out (read by a thread)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "plistspec", "serve", str(TOOLS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=server_env(),
        )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(json.loads(line))

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 60.0) -> dict:
        """The next message that is not a notification."""
        while True:
            msg = self.lines.get(timeout=timeout)
            if "id" in msg:
                return msg

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(timeout=10)


def _request(ident, method: str, params: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}).encode()


def test_garbage_lines_get_a_parse_error_and_the_server_goes_on(emacs):
    pipe = _Pipe()
    try:
        pipe.send(
            _request(
                1,
                "initialize",
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            )
        )
        assert pipe.answer()["id"] == 1
        pipe.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        for garbage in (b"garbage", b'{"jsonrpc": "2.0", "id": 2, "method": ', b"\xff\xfe]"):
            pipe.send(garbage)
            got = pipe.answer()
            assert got["id"] is None and got["error"]["code"] == -32700, (garbage, got)
        for ident, depth in ((3, 300), (30, 100_000)):  # any depth: no recursion
            pipe.send(
                b'{"jsonrpc": "2.0", "id": %d, "method": "tools/call", "params": {"name": '
                b'"show_args", "arguments": {"text": "x", "items": %s%s}}}'
                % (ident, b"[" * depth, b"]" * depth)
            )
            got = pipe.answer()
            assert got["id"] == ident and got["error"]["code"] == -32602, got
        pipe.send(b'{"jsonrpc": "2.0", "id": 4, "method": 7}')
        got = pipe.answer()
        assert got["id"] == 4 and got["error"]["code"] == -32600, got
        pipe.send(_request(5, "tools/call", {"name": "greet", "arguments": {"name": "raw"}}))
        got = pipe.answer()
        assert got["id"] == 5 and got["result"]["content"][0]["text"] == "Grüß dich, raw ☃"
    finally:
        pipe.close()
    assert pipe.proc.returncode == 0
