"""Stopping and guarding `plistspec serve`, with the official MCP SDK client:

* SIGTERM or SIGINT while a call runs ends the server within `--timeout` + 1 s, its own
  Emacs included, and the client gets an `isError` result for the call in flight;
* `--http` keeps the Host/Origin checks for every bind (127.0.0.2 and 0.0.0.0 too),
  refuses to bind off loopback without `--auth-token-file`, and with a token refuses
  every request that does not carry it;
* `serve --emacs --http` stopped by SIGTERM or SIGHUP runs its handler (exit 0) and
  removes its private reply folder (issue 31 §9).
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import anyio
import pytest
from serve_util import TOOLS, http_env, http_token, server_env, stdio_session, texts, wait_gone

pytestmark = [pytest.mark.emacs, pytest.mark.slow]  # real Emacs servers: seconds each


def _children_serving() -> list[int]:
    """Our child processes that run `plistspec serve`."""
    me = os.getpid()
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(") ", 1)[1].split()[1])
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == me and b"plistspec\0serve" in cmd:
            out.append(int(d))
    return out


def _emacs_children(pid: int) -> list[int]:
    """Emacs processes whose parent is ``pid`` (the server's own Emacs)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                rest = f.read()
            ppid = int(rest.rsplit(") ", 1)[1].split()[1])
            comm = rest.split("(", 1)[1].split(")", 1)[0]
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and comm.startswith("emacs"):
            out.append(int(d))
    return out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_during_a_call_ends_the_server_and_its_emacs(emacs, mcp_sdk, sig):
    timeout = 20

    async def main():
        async with stdio_session(["--timeout", str(timeout), str(TOOLS)]) as s:
            await s.call_tool("greet", {"name": "warm"})
            (server,) = _children_serving()
            own = _emacs_children(server)
            got = {}

            async def slow():
                got["result"] = await s.call_tool("sleepy", {"seconds": 30})
                got["at"] = time.monotonic()

            async with anyio.create_task_group() as tg:
                tg.start_soon(slow)
                await anyio.sleep(0.8)
                sent = time.monotonic()
                os.kill(server, sig)
            return server, own, got, sent

    server, own, got, sent = anyio.run(main)
    result = got["result"]
    assert result.is_error and "stopping" in texts(result)[0], texts(result)
    assert signal.Signals(sig).name in texts(result)[0]
    assert got["at"] - sent < timeout + 1
    assert wait_gone(server, timeout + 1 - (time.monotonic() - sent)), "the server still runs"
    assert own and all(wait_gone(p, 2) for p in own), "its Emacs still runs"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _http(host: str, port: int, *extra: str, tmp_path) -> tuple[subprocess.Popen, object]:
    err = open(tmp_path / f"stderr-{port}", "w+b")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "plistspec",
            "serve",
            "--http",
            "--host",
            host,
            "--port",
            str(port),
            "--timeout",
            "20",
            *extra,
            str(TOOLS),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=err,
        env=http_env(tmp_path),
    )
    deadline = time.monotonic() + 60
    connect = "127.0.0.1" if host in ("0.0.0.0", "127.0.0.1") else host
    while True:
        if proc.poll() is not None:
            err.seek(0)
            raise AssertionError(err.read().decode())
        with socket.socket() as s:
            if s.connect_ex((connect, port)) == 0:
                break
        assert time.monotonic() < deadline, "the HTTP server did not start"
        time.sleep(0.1)
    return proc, err


def _stop(proc: subprocess.Popen, err) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    err.close()


def _post(url: str, headers: dict[str, str]) -> int:
    body = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
        b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
    )
    req = urllib.request.Request(
        url,
        data=body,
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            **headers,
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_off_loopback_needs_a_token(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "plistspec", "serve", "--http", "--host", "0.0.0.0", str(TOOLS)],
        capture_output=True,
        encoding="utf-8",
        env=server_env(),
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert r.returncode == 2 and "--auth-token-file" in r.stderr and "[PS811]" in r.stderr
    help_text = subprocess.run(
        [sys.executable, "-m", "plistspec", "serve", "--help"],
        capture_output=True,
        encoding="utf-8",
        env=server_env(),
        timeout=60,
    ).stdout
    assert "--auth-token-file" in help_text and "loopback" in help_text
    assert "Host and Origin headers are checked" in " ".join(help_text.split())


def test_host_and_origin_are_checked_on_every_bind(emacs, tmp_path):
    pytest.importorskip("uvicorn", reason="uvicorn is not installed")
    port = _free_port()
    proc, err = _http("127.0.0.2", port, tmp_path=tmp_path)
    try:
        url = f"http://127.0.0.2:{port}/mcp"
        auth = {"authorization": f"Bearer {http_token(tmp_path)}"}
        assert _post(url, {}) == 401  # the token plistspec made: loopback too
        assert _post(url, auth) == 200
        assert _post(url, {**auth, "host": "evil.example"}) == 421
        assert _post(url, {**auth, "origin": "http://evil.example"}) == 403
        assert _post(url, {**auth, "origin": f"http://127.0.0.2:{port}"}) == 200
    finally:
        _stop(proc, err)
    token = tmp_path / "token"
    token.write_text("s3cret-token-for-tests\n", encoding="ascii")
    token.chmod(0o600)
    port = _free_port()
    proc, err = _http(
        "0.0.0.0",
        port,
        "--auth-token-file",
        str(token),
        "--allow-host",
        "tools.lan",
        tmp_path=tmp_path,
    )
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        auth = {"authorization": "Bearer s3cret-token-for-tests"}
        assert _post(url, {}) == 401
        assert _post(url, {"authorization": "Bearer wrong"}) == 401
        assert _post(url, auth) == 200
        assert _post(url, {**auth, "host": "evil.example"}) == 421
        assert _post(url, {**auth, "host": f"tools.lan:{port}"}) == 200
        assert _post(url, {**auth, "origin": "http://evil.example"}) == 403
    finally:
        _stop(proc, err)


def test_http_with_a_token_through_the_sdk_and_sigterm_in_flight(emacs, mcp_sdk, tmp_path):
    pytest.importorskip("uvicorn", reason="uvicorn is not installed")
    import httpx2 as httpx
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    token = tmp_path / "token"
    token.write_text("another-token\n", encoding="ascii")
    token.chmod(0o600)
    port = _free_port()
    proc, err = _http("127.0.0.1", port, "--auth-token-file", str(token), tmp_path=tmp_path)
    try:
        err.seek(0)
        own = int(re.search(rb"Emacs pid (\d+)", err.read()).group(1))

        async def main():
            headers = {"authorization": "Bearer another-token"}
            async with httpx.AsyncClient(headers=headers, timeout=30) as http:
                async with streamable_http_client(
                    f"http://127.0.0.1:{port}/mcp", http_client=http
                ) as (read, write):
                    async with ClientSession(read, write) as s:
                        await s.initialize()
                        greet = await s.call_tool("greet", {"name": "http"})
                        got = {}

                        async def slow():
                            got["r"] = await s.call_tool("sleepy", {"seconds": 30})

                        async with anyio.create_task_group() as tg:
                            tg.start_soon(slow)
                            await anyio.sleep(0.8)
                            sent = time.monotonic()
                            proc.send_signal(signal.SIGTERM)
                        return greet, got["r"], sent

        greet, slow, sent = anyio.run(main)
        assert texts(greet) == ["Grüß dich, http ☃"]
        assert slow.is_error and "stopping" in texts(slow)[0], texts(slow)
        proc.wait(timeout=21)
        assert time.monotonic() - sent < 21
        assert wait_gone(own, 3)
    finally:
        _stop(proc, err)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_serve_emacs_http_stops_on_the_signal_and_leaves_no_folder(emacs, tmp_path, sig):
    """Issue 31 §9: SIGTERM and SIGHUP stop `serve --emacs --http` through its handler
    (exit 0, "stopped by"), which removes its private reply folder; the user's Emacs
    runs on."""
    pytest.importorskip("uvicorn", reason="uvicorn is not installed")
    from serve_util import UserEmacs

    user = UserEmacs(emacs.exe, tmp_path / "user")
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    port = _free_port()
    env = {**http_env(tmp_path), "TMPDIR": str(private_tmp)}
    err = open(tmp_path / "stderr", "w+b")
    proc = subprocess.Popen(
        [sys.executable, "-m", "plistspec", "serve", "--emacs", user.socket, "--http"]
        + ["--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=err,
        env=env,
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
        url = f"http://127.0.0.1:{port}/mcp"
        assert _post(url, {"authorization": f"Bearer {http_token(tmp_path)}"}) == 200
        made = [p.name for p in private_tmp.iterdir() if p.name.startswith("plistspec-replies-")]
        assert made, "the server made no reply folder: nothing to check"
        proc.send_signal(sig)
        assert proc.wait(timeout=20) == 0, (tmp_path / "stderr").read_text()
        assert f"stopped by {sig.name}" in (tmp_path / "stderr").read_text()
        assert [p.name for p in private_tmp.iterdir()] == []
        assert user.eval("(+ 1 2)").strip() == "3"
    finally:
        _stop(proc, err)
        user.kill()
