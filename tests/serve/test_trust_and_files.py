"""The server's trust boundaries and `serve FILE.el` over days, with a real Emacs and the
official MCP SDK client:

* an Emacs socket (or its folder) owned by another user is refused, as emacsclient
  refuses it, and nothing is sent to it; a reply naming a file outside plistspec's own
  private folder is refused and the file left alone;
* a schema jsonschema cannot use is reported when the tool is listed (PS809) and its
  calls do not fail inside jsonschema;
* `from-json --from-emacs` writes a closure as the stub (PS810), never `:function nil`;
* a file defining a name twice serves and runs the same (the last) definition;
* a file that errors while loading: the tools it defined before the error run;
* plistspec's own Emacs that dies is started again, and a call it died in says so.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading

import anyio
import pytest
from serve_util import server_env, stdio_session, texts, wait_gone

from support import ROOT

pytestmark = [pytest.mark.emacs, pytest.mark.slow]  # real Emacs servers: seconds each

NOBODY = 65534


def _plistspec(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "plistspec", *args],
        capture_output=True,
        encoding="utf-8",
        env=env or server_env(),
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


class FakeServer:
    """A listening socket that records what it is sent and answers ``reply``: what a
    socket planted by someone else (or a hostile server) would do."""

    def __init__(self, path: str, reply: bytes) -> None:
        self.path = path
        self.reply = reply
        self.received: list[bytes] = []
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.bind(path)
        self.sock.listen(4)
        self.sock.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                try:
                    self.received.append(conn.recv(65536))
                    conn.sendall(self.reply)
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to plant a socket as another user")
def test_a_socket_planted_by_another_user_is_refused(tmp_path):
    tmpdir = tmp_path / "tmp"
    planted = tmpdir / f"emacs{os.getuid()}"
    planted.mkdir(parents=True)
    victim = tmp_path / "victim"
    victim.write_text("precious", encoding="utf-8")
    fake = FakeServer(str(planted / "server"), f'-print "@{victim}"\n'.encode())
    try:
        os.chown(planted / "server", NOBODY, NOBODY)
        os.chown(planted, NOBODY, NOBODY)
        os.chmod(planted, 0o700)
        env = {k: v for k, v in server_env().items() if k != "XDG_RUNTIME_DIR"}
        env["TMPDIR"] = str(tmpdir)
        r = _plistspec("to-json", "--from-emacs", env=env)
    finally:
        fake.close()
    assert r.returncode == 1 and "[PS804]" in r.stderr and "Traceback" not in r.stderr
    assert "refusing the Emacs socket" in r.stderr and "Invalid permissions" in r.stderr
    assert fake.received == []  # nothing was sent to it
    assert victim.read_text(encoding="utf-8") == "precious"


def test_a_reply_naming_another_file_is_neither_read_nor_deleted(tmp_path):
    folder = tmp_path / "sock"
    folder.mkdir(mode=0o700)
    victim = tmp_path / "victim.json"
    victim.write_text('{"tools": []}', encoding="utf-8")
    fake = FakeServer(str(folder / "server"), f'-print "@{victim}"\n'.encode())
    try:
        r = _plistspec("to-json", "--from-emacs", str(folder / "server"))
    finally:
        fake.close()
    assert r.returncode == 1 and "[PS804]" in r.stderr
    assert "outside plistspec's private folder" in r.stderr and "Traceback" not in r.stderr
    assert victim.exists() and victim.read_text(encoding="utf-8") == '{"tools": []}'


def test_a_schema_jsonschema_cannot_use(emacs, mcp_sdk):
    broken = ROOT / "fixtures" / "broken" / "type_keyword.el"

    async def main():
        async with stdio_session([str(broken)]) as s:
            tools = (await s.list_tools()).tools
            return tools, await s.call_tool("f", {"x": "a"})

    tools, called = anyio.run(main)
    assert [t.name for t in tools] == ["f"]
    assert tools[0].input_schema["properties"]["x"]["type"] == ":string"  # as gptel sends it
    assert not called.is_error, texts(called)  # #'ignore ran: no UnknownType
    r = subprocess.run(
        [sys.executable, "-m", "plistspec", "serve", str(broken)],
        input="",
        capture_output=True,
        encoding="utf-8",
        env=server_env(),
        timeout=60,
    )
    assert "[PS809]" in r.stderr and "Traceback" not in r.stderr
    assert "type_keyword.el:3:1: warning: tool 'f': its inputSchema cannot be used" in r.stderr


def test_from_json_from_emacs_writes_closures_as_the_stub(user_emacs, emacs, tmp_path):
    out = tmp_path / "exported.el"
    r = _plistspec("from-json", "--from-emacs", user_emacs.socket, "-o", str(out))
    assert r.returncode == 0, r.stderr
    text = out.read_text(encoding="utf-8")
    assert ":function nil" not in text
    assert "emacs:greet: warning: tool 'greet': its :function in Emacs is a closure" in r.stderr
    assert "[PS810]" in r.stderr
    # loaded into an Emacs with the real gptel, the stub signals user-error when called
    assert "user-error" in text


def test_a_duplicate_in_a_file_serves_and_runs_the_same_definition(emacs, mcp_sdk, tmp_path):
    f = tmp_path / "dup.el"
    f.write_text(
        ";;; -*- lexical-binding: t; -*-\n"
        '(gptel-make-tool :name "dup" :description "first" :function (lambda () "first ran"))\n'
        '(gptel-make-tool :name "dup" :description "second"\n'
        '  :args (list \'(:name "n" :type integer :description "N"))\n'
        '  :function (lambda (n) (format "second ran %d" n)))\n',
        encoding="utf-8",
    )

    async def main():
        async with stdio_session([str(f)]) as s:
            tools = (await s.list_tools()).tools
            return tools, await s.call_tool("dup", {"n": 2}), await s.call_tool("dup", {})

    tools, ran, missing = anyio.run(main)
    assert [(t.name, t.description) for t in tools] == [("dup", "second")]
    assert texts(ran) == ["second ran 2"]
    assert missing.is_error and "/n: missing (required)" in texts(missing)[0]


def test_tools_defined_before_a_load_error_run(emacs, mcp_sdk, tmp_path):
    f = tmp_path / "half.el"
    f.write_text(
        ";;; -*- lexical-binding: t; -*-\n"
        '(gptel-make-tool :name "before" :description "b" :function (lambda () "before ran"))\n'
        '(error "Broken here")\n'
        '(gptel-make-tool :name "after" :description "a" :function (lambda () "after ran"))\n',
        encoding="utf-8",
    )

    async def main():
        async with stdio_session([str(f)]) as s:
            names = [t.name for t in (await s.list_tools()).tools]
            return names, await s.call_tool("before", {}), await s.call_tool("after", {})

    names, before, after = anyio.run(main)
    assert names == ["before", "after"]
    assert not before.is_error and texts(before) == ["before ran"]
    assert after.is_error and "failed to load" in texts(after)[0]
    assert "Broken here" in texts(after)[0]


def test_own_emacs_that_dies_is_started_again(emacs, mcp_sdk, tmp_path):
    f = tmp_path / "mortal.el"
    f.write_text(
        ";;; -*- lexical-binding: t; -*-\n"
        '(gptel-make-tool :name "pid" :description "p"\n'
        "  :function (lambda () (number-to-string (emacs-pid))))\n"
        '(gptel-make-tool :name "die" :description "d" :function (lambda () (kill-emacs 0)))\n',
        encoding="utf-8",
    )

    async def main():
        async with stdio_session([str(f)]) as s:
            first = int(texts(await s.call_tool("pid", {}))[0])
            os.kill(first, 9)  # killed from outside
            assert wait_gone(first, 10)
            second_text = texts(await s.call_tool("pid", {}))
            died = await s.call_tool("die", {})  # dies while running a tool
            third_text = texts(await s.call_tool("pid", {}))
            return first, second_text, died, third_text

    first, second_text, died, third_text = anyio.run(main)
    second = int(second_text[0])
    assert second != first
    assert died.is_error and "Emacs exited while running tool 'die'" in texts(died)[0]
    assert int(third_text[0]) not in (first, second)


def test_bench_script_runs_with_few_runs():
    """bench/bench_serve.py is runnable (numbers, never pass/fail)."""
    from support import elisp_deps

    if elisp_deps() is None:
        pytest.skip("the real gptel sources are absent: bench_serve needs them")
    r = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_serve.py"),
            "--runs",
            "3",
            "--tools",
            "20",
            "--concurrent",
            "5",
        ],
        capture_output=True,
        encoding="utf-8",
        env=server_env(),
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "tools/call" in r.stdout and "emacsclient" in r.stdout
    assert json.dumps is not None


def test_a_cancelled_call_waiting_for_its_turn_never_runs(emacs, mcp_sdk, tmp_path):
    """A sync tool holds Emacs; a call queued behind it and cancelled by the client
    (notifications/cancelled) never reaches Emacs."""
    f = tmp_path / "queue.el"
    f.write_text(
        ";;; -*- lexical-binding: t; -*-\n"
        "(defvar queue-test-marks 0)\n"
        '(gptel-make-tool :name "block" :description "b"\n'
        '  :function (lambda () (sleep-for 2) "unblocked"))\n'
        '(gptel-make-tool :name "mark" :description "m"\n'
        '  :function (lambda () (setq queue-test-marks (1+ queue-test-marks)) "marked"))\n'
        '(gptel-make-tool :name "marks" :description "n"\n'
        "  :function (lambda () (number-to-string queue-test-marks)))\n",
        encoding="utf-8",
    )

    async def main():
        async with stdio_session([str(f)]) as s:
            got = {}

            async def block():
                got["block"] = await s.call_tool("block", {})

            async with anyio.create_task_group() as tg:
                tg.start_soon(block)
                await anyio.sleep(0.4)
                with anyio.move_on_after(0.4):
                    await s.call_tool("mark", {})
                    got["mark"] = True
            return got, await s.call_tool("marks", {})

    got, marks = anyio.run(main)
    assert texts(got["block"]) == ["unblocked"] and "mark" not in got
    assert texts(marks) == ["0"]
