"""`plistspec serve --http`: Streamable HTTP on 127.0.0.1 (a free port), driven by the
official MCP SDK's streamable HTTP client."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time

import anyio
import pytest
from serve_util import TOOLS, http_env, http_token, server_env, texts, wait_gone

pytestmark = [pytest.mark.emacs, pytest.mark.slow]  # real Emacs servers: seconds each


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server(emacs, mcp_sdk, tmp_path):
    pytest.importorskip(
        "uvicorn", reason="uvicorn is not installed (pip install 'plistspec[serve]')"
    )
    port = _free_port()
    err = open(tmp_path / "stderr", "w+b")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "plistspec",
            "serve",
            "--http",
            "--port",
            str(port),
            "--timeout",
            "1",
            str(TOOLS),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=err,
        env=http_env(tmp_path),
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "stderr").read_text()
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", proc, tmp_path / "stderr", http_token(tmp_path)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        err.close()


def test_http_end_to_end(http_server):
    import httpx2 as httpx
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    url, proc, stderr, token = http_server

    async def main():
        auth = httpx.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30)
        async with auth, streamable_http_client(url, http_client=auth) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                tools = (await s.list_tools()).tools
                return tools, [
                    await s.call_tool("show_args", {"text": "é", "flag": False, "items": ["a"]}),
                    await s.call_tool("wait_then_answer", {"ms": 10}),
                    await s.call_tool("wait_then_answer", {"ms": 5000}),
                    await s.call_tool("fail", {"why": "http"}),
                    await s.call_tool("show_args", {"flag": False}),
                ]

    tools, (show, wait, slow, fail, invalid) = anyio.run(main)
    want = json.loads(
        subprocess.run(
            [sys.executable, "-m", "plistspec", "to-json", "-t", "mcp", str(TOOLS)],
            capture_output=True,
            env=server_env(),
            timeout=120,
            check=True,
        ).stdout
    )
    served = {t.name: t.input_schema for t in tools}
    assert all(served[e["name"]] == e["inputSchema"] for e in want)
    assert texts(show) == ['("é" :json-false nil nil ["a"])']
    assert texts(wait) == ["waited 10 ms"]
    assert slow.is_error and "timed out" in texts(slow)[0]
    assert fail.is_error and texts(fail) == ["Tool failed: http"]
    assert invalid.is_error and "/text: missing (required)" in texts(invalid)[0]

    # the server binds 127.0.0.1 only, and its Emacs stops with it
    pid = int(re.search(rb"Emacs pid (\d+)", stderr.read_bytes()).group(1))
    proc.terminate()
    proc.wait(timeout=15)
    assert wait_gone(pid, 10)
