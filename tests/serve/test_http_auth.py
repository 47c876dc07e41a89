"""`serve --http` answers only its user (issue 31 §2, §7): a bearer token on every bind,
loopback included (made and kept in a private file when none is given), and a cap on
open sessions. The official SDK's HTTP client with and without the header; a real
Emacs behind the server."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import anyio
import pytest
from serve_util import TOOLS, http_env, http_token, texts

from plistspec.serve.token import TokenError, default_token

INIT = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
    b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`plistspec serve --http ... data/tools.el` on a free port, stopped at the end."""

    def __init__(self, tmp_path: Path, *extra: str) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.errpath = tmp_path / f"stderr-{self.port}"
        self.err = open(self.errpath, "w+b")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "plistspec", "serve", "--http", "--port", str(self.port)]
            + [*extra, str(TOOLS)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.err,
            env=http_env(tmp_path),
        )
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None, self.stderr()
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    break
            assert time.monotonic() < deadline, "the HTTP server did not start"
            time.sleep(0.1)

    def stderr(self) -> str:
        return self.errpath.read_text("utf-8", "replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.err.close()


def _request(url: str, headers: dict[str, str], method: str = "POST", body: bytes | None = INIT):
    """``(status, headers, body)`` of one raw request."""
    req = urllib.request.Request(
        url,
        data=body if method == "POST" else None,
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            **headers,
        },
        method=method,
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


async def _sdk_tools(url: str, headers: dict[str, str], statuses: list[int]) -> list[str]:
    """The SDK client's tools/list names and a greet call; ``statuses`` gets the HTTP
    status of every response it received."""
    import httpx2 as httpx
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async def seen(response) -> None:
        statuses.append(response.status_code)

    with anyio.fail_after(60):
        hooks = {"response": [seen]}
        async with httpx.AsyncClient(headers=headers, timeout=30, event_hooks=hooks) as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    names = [t.name for t in (await s.list_tools()).tools]
                    greet = await s.call_tool("greet", {"name": "token"})
                    return names + texts(greet)


@pytest.mark.emacs
@pytest.mark.slow
def test_loopback_needs_the_token_plistspec_made_and_keeps(emacs, mcp_sdk, tmp_path):
    pytest.importorskip("uvicorn", reason="uvicorn is not installed")
    server = Server(tmp_path)
    try:
        token = http_token(tmp_path)
        where = tmp_path / "state" / "plistspec" / "http-token"
        assert f"TOKEN is in {where} (new" in server.stderr()
        assert stat.S_IMODE(os.stat(where).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(where.parent).st_mode) == 0o700
        assert token not in server.stderr()  # the path is printed, never the token

        statuses: list[int] = []
        auth = {"authorization": f"Bearer {token}"}
        got = anyio.run(_sdk_tools, server.url, auth, statuses)
        assert "greet" in got and "Grüß dich, token ☃" in got
        assert statuses and 401 not in statuses

        for headers in ({}, {"authorization": f"Bearer {token}x"}, {"authorization": token}):
            statuses = []
            with pytest.raises(BaseException, match="error") as refused:  # the SDK's error
                anyio.run(_sdk_tools, server.url, headers, statuses)
            assert statuses == [401], (headers, statuses, repr(refused.value))
        status, headers, body = _request(server.url, {})
        assert status == 401 and headers.get("www-authenticate", "").startswith("Bearer")
        assert b"Authorization: Bearer" in body
    finally:
        server.stop()
    again = Server(tmp_path)  # a client configured once goes on working
    try:
        assert "kept from an earlier run" in again.stderr()
        assert http_token(tmp_path) == token
        assert _request(again.url, {"authorization": f"Bearer {token}"})[0] == 200
    finally:
        again.stop()


@pytest.mark.emacs
@pytest.mark.slow
def test_sessions_are_capped_with_a_503_until_one_ends(emacs, mcp_sdk, tmp_path):
    pytest.importorskip("uvicorn", reason="uvicorn is not installed")
    server = Server(tmp_path, "--max-sessions", "2")
    try:
        auth = {"authorization": f"Bearer {http_token(tmp_path)}"}
        first = _request(server.url, auth)
        second = _request(server.url, auth)
        assert first[0] == second[0] == 200
        sessions = [first[1]["mcp-session-id"], second[1]["mcp-session-id"]]
        status, _, body = _request(server.url, auth)
        assert status == 503 and b"Too many open sessions" in body, (status, body)
        # the open sessions still work
        ping = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping"}).encode()
        headers = {**auth, "mcp-session-id": sessions[0], "mcp-protocol-version": "2025-06-18"}
        assert _request(server.url, headers, body=ping)[0] == 200
        # one ends (DELETE): a new one opens
        assert _request(server.url, headers, method="DELETE", body=None)[0] in (200, 204)
        assert _request(server.url, auth)[0] == 200
        assert _request(server.url, auth)[0] == 503
    finally:
        server.stop()


# -- the token file (in-process: no server) ------------------------------------------


@pytest.fixture
def state_home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "plistspec"


def test_a_token_is_made_private_and_kept(state_home):
    token, path, made = default_token()
    assert made and path == str(state_home / "http-token") and len(token) >= 40
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(state_home).st_mode) == 0o700
    assert default_token() == (token, path, False)
    assert [p.name for p in state_home.iterdir()] == ["http-token"]  # no temporary left


def test_a_token_others_could_read_is_replaced(state_home):
    token, path, _ = default_token()
    os.chmod(path, 0o644)
    again, _, made = default_token()
    assert made and again != token and stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_folder_open_to_others_is_closed(state_home):
    state_home.mkdir(parents=True)
    os.chmod(state_home, 0o777)
    default_token()
    assert stat.S_IMODE(os.stat(state_home).st_mode) == 0o700


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_another_users_folder_or_a_link_is_refused(state_home, tmp_path):
    state_home.mkdir(parents=True)
    os.chown(state_home, 65534, 65534)
    with pytest.raises(TokenError, match="belongs to uid 65534"):
        default_token()
    os.rmdir(state_home)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    os.symlink(elsewhere, state_home)
    with pytest.raises(TokenError, match="not a folder"):
        default_token()
    assert list(elsewhere.iterdir()) == []
