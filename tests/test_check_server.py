"""``plistspec check --server`` answers each request exactly as the one-shot command would.

A real server process (``python -m plistspec check --server``) gets several buffers in a
row, with different arguments, a bad request in between, and a buffer with invalid
UTF-8; every reply (status, standard output, standard error) must equal what a separate
``plistspec check ARGS -`` process prints for the same standard input.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from support import ROOT

FIXTURES = ROOT / "fixtures"
ENV = dict(os.environ)
ENV["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")

CASES = [
    (FIXTURES / "elisp" / "large_tools.el", ["--output-format", "json", "--exit-zero"]),
    (FIXTURES / "broken" / "bad_tool_name.el", ["--output-format", "json", "--exit-zero"]),
    (FIXTURES / "broken" / "bad_tool_name.el", []),
    (FIXTURES / "broken" / "syntax_error_then_tool.el", ["--output-format", "json"]),
    (FIXTURES / "broken" / "enum_list.el", ["--target", "gemini"]),
]


def one_shot(args: list[str], data: bytes) -> tuple[int, bytes, bytes]:
    r = subprocess.run(
        [sys.executable, "-m", "plistspec", "check", *args],
        input=data,
        capture_output=True,
        env=ENV,
        timeout=120,
    )
    return r.returncode, r.stdout, r.stderr


@pytest.mark.slow
def test_server_replies_equal_one_shot_output() -> None:
    requests = []
    for path, opts in CASES:
        requests.append(([*opts, "--stdin-filename", path.name, "-"], path.read_bytes()))
    requests.append(
        (["--output-format", "json", "--stdin-filename", "bad.el", "-"], b"(a \xff b)\n")
    )
    stream = b""
    for i, (args, data) in enumerate(requests):
        stream += json.dumps({"args": args, "length": len(data)}).encode() + b"\n" + data
        if i == 1:
            stream += b"not json\n"
    proc = subprocess.run(
        [sys.executable, "-m", "plistspec", "check", "--server"],
        input=stream,
        capture_output=True,
        env=ENV,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    replies = []
    while out:
        line, _, out = out.partition(b"\n")
        head = json.loads(line)
        body, out = out[: head["stdout"] + head["stderr"]], out[head["stdout"] + head["stderr"] :]
        replies.append((head["exit"], body[: head["stdout"]], body[head["stdout"] :]))
    assert len(replies) == len(requests) + 1
    bad = replies.pop(2)
    assert bad[0] == 2 and b"bad request" in bad[2]
    for (args, data), got in zip(requests, replies, strict=True):
        assert got == one_shot(args, data), args
    # not vacuous: the cases include errors, and output in both formats
    assert any(status == 1 for status, _, _ in replies)
    assert any(stdout.startswith(b"[") and len(stdout) > 10 for _, stdout, _ in replies)


@pytest.mark.parametrize("cut", [5, 40])
def test_server_ends_cleanly_on_a_truncated_request(cut: int) -> None:
    data = (FIXTURES / "broken" / "bad_tool_name.el").read_bytes()
    stream = json.dumps({"args": ["-"], "length": len(data)}).encode() + b"\n" + data[:cut]
    proc = subprocess.run(
        [sys.executable, "-m", "plistspec", "check", "--server"],
        input=stream,
        capture_output=True,
        env=ENV,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout == b"" and b"Traceback" not in proc.stderr


def _replies(out: bytes) -> list[tuple[int, bytes, bytes]]:
    replies = []
    while out:
        line, _, out = out.partition(b"\n")
        head = json.loads(line)
        n = head["stdout"] + head["stderr"]
        body, out = out[:n], out[n:]
        replies.append((head["exit"], body[: head["stdout"]], body[head["stdout"] :]))
    return replies


HOSTILE_LINES = [
    b'{"args": ["-"], "length": 1e309}',
    b'{"args": ["-"], "length": Infinity}',
    b'{"args": ["-"], "length": -Infinity}',
    b'{"args": ["-"], "length": NaN}',
    b'{"args": ["-"], "length": ' + b"9" * 400 + b"}",
    b'{"args": ["-"], "length": ' + b"9" * 5000 + b"}",
    b'{"args": ["-"], "length": 1e18}',
    b'{"args": ["-"], "length": 1000000000000000000}',
    b'{"args": ["-"], "length": -1}',
    b'{"args": ["-"], "length": 1.5}',
    b'{"args": ["-"], "length": true}',
    b'{"args": ["-"], "length": "12"}',
    b'{"args": "-", "length": 0}',
    b'{"length": 0}',
    b'{"kind": "zap", "length": 0}',
    b"[" * 100_000,
    b"[1, 2]",
    b"\xff\xfe",
    b'{"args": ["-"], "length": 0, "pad": "' + b"x" * (2 << 20) + b'"}',
]


def test_hostile_framing_gets_exit_2_and_the_server_goes_on() -> None:
    """Issue 19: lengths such as 1e309, Infinity, 99999... and 1e18 once ended the server
    (OverflowError, "out of memory", exit 1). Each bad request line gets exit 2 and a
    message; a good request after them is answered as the one-shot command answers it."""
    data = (FIXTURES / "broken" / "bad_tool_name.el").read_bytes()
    good_args = ["--output-format", "json", "--stdin-filename", "bad_tool_name.el", "-"]
    good = json.dumps({"args": good_args, "length": len(data)}).encode() + b"\n" + data
    stream = b"\n".join(HOSTILE_LINES) + b"\n" + good
    proc = subprocess.run(
        [sys.executable, "-m", "plistspec", "check", "--server"],
        input=stream,
        capture_output=True,
        env=ENV,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"Traceback" not in proc.stderr
    replies = _replies(proc.stdout)
    assert len(replies) == len(HOSTILE_LINES) + 1
    for line, (status, out, err) in zip(HOSTILE_LINES, replies, strict=False):
        assert status == 2 and out == b"", line[:60]
        assert err.startswith(b"plistspec check --server: bad request: "), err
        assert len(err) < 400
    assert replies[-1] == one_shot(good_args, data)


def test_lower_and_call_requests() -> None:
    """The two questions plistspec-gptel-mode asks, through a real server process."""
    tools = [
        {
            "functionDeclarations": [
                {
                    "name": "w",
                    "description": "weather",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": ["string", "null"]}},
                        "required": ["city"],
                    },
                }
            ]
        }
    ]
    text = json.dumps(tools).encode()
    lower = json.dumps({"kind": "lower", "backend": "gemini", "length": len(text)}).encode()
    stream = lower + b"\n" + text
    proc = _server()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(stream)
        proc.stdin.flush()
        head = json.loads(proc.stdout.readline())
        answer = json.loads(proc.stdout.read(head["stdout"] + head["stderr"]))
        assert head["exit"] == 0
        assert answer["target"] == "gemini"
        decl = answer["tools"][0]["functionDeclarations"][0]
        assert decl["parameters"]["properties"]["city"] == {"type": "string", "nullable": True}
        tool_id = answer["sent"][0][2]
        for args, ok in ((b'{"city": null}', True), (b'{"city": 3}', False), (b"{}", False)):
            req = {"kind": "call", "id": tool_id, "emacs": False, "length": len(args)}
            proc.stdin.write(json.dumps(req).encode() + b"\n" + args)
            proc.stdin.flush()
            head = json.loads(proc.stdout.readline())
            got = json.loads(proc.stdout.read(head["stdout"] + head["stderr"]))
            assert head["exit"] == 0 and got["ok"] is ok, (args, got)
        bad = b"not json"
        proc.stdin.write(json.dumps({"kind": "lower", "length": len(bad)}).encode() + b"\n" + bad)
        proc.stdin.flush()
        head = json.loads(proc.stdout.readline())
        err = proc.stdout.read(head["stdout"] + head["stderr"])
        assert head["exit"] == 2 and b"bad lower request" in err
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        assert proc.wait(timeout=60) == 0


def _server() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "plistspec", "check", "--server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=ENV,
    )


def _ask(proc: subprocess.Popen, head: dict, data: bytes) -> tuple[int, bytes]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(head).encode() + b"\n" + data)
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    body = proc.stdout.read(reply["stdout"] + reply["stderr"])
    return reply["exit"], body


def test_contracts_files_and_a_backtracking_pattern(tmp_path) -> None:
    """A ``lower`` request with the tools' contracts (the last ``contracts`` bytes), sent
    through a ``file``; a call whose ``pattern`` backtracks is answered in bounded time,
    as not checked in time."""
    declared = {
        "type": "object",
        "properties": {
            "s": {"type": "string", "pattern": "^(a+)+$"},
            "o": {"type": "object", "properties": {"k": {"type": "integer"}}},
        },
        "required": ["s"],
    }
    # gptel's Gemini JSON lost nothing here, but the contract is what calls are judged by
    wire = [{"functionDeclarations": [{"name": "m", "description": "d", "parameters": declared}]}]
    closed = dict(declared, properties=dict(declared["properties"]))
    closed["properties"]["o"] = dict(declared["properties"]["o"], additionalProperties=False)
    text, contracts = json.dumps(wire).encode(), json.dumps([closed]).encode()
    file = tmp_path / "req.json"
    file.write_bytes(text + contracts)
    proc = _server()
    try:
        head = {"kind": "lower", "backend": "gemini", "contracts": len(contracts)}
        status, body = _ask(proc, {**head, "file": str(file), "length": 0}, b"")
        assert status == 0, body
        tool_id = json.loads(body)["sent"][0][2]
        call = {"kind": "call", "id": tool_id, "emacs": False}
        status, body = _ask(proc, {**call, "length": 14}, b'{"s": "aaaa"} ')
        assert json.loads(body) == {"ok": True, "edits": []}
        extra = b'{"s": "a", "o": {"k": 1, "x": 2}}'  # the contract closes o
        status, body = _ask(proc, {**call, "length": len(extra)}, extra)
        assert json.loads(body)["ok"] is False and "/o/x: unexpected" in json.loads(body)["message"]
        slow = json.dumps({"s": "a" * 34 + "!"}).encode()
        status, body = _ask(proc, {**call, "length": len(slow)}, slow)
        got = json.loads(body)
        assert got["ok"] is False and got["unchecked"] is True
        assert "could not be checked in time" in got["message"]
        status, body = _ask(proc, {**head, "file": "relative", "length": 0}, b"")
        assert status == 2 and b"absolute path" in body
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        assert proc.wait(timeout=60) == 0


def _imported(stderr: bytes) -> set[str]:
    """The modules ``python -X importtime`` reported importing."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }


def _traced_server(requests: bytes) -> tuple[bytes, bytes]:
    """Standard output and the import trace (standard error) of a server that answered
    ``requests`` and ended (exit 0) at the end of its input."""
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "plistspec", "check", "--server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    out, err = proc.communicate(requests, timeout=120)
    assert proc.returncode == 0, err[-2000:]
    return out, err


def test_gptel_requests_never_import_click_and_a_check_request_still_works() -> None:
    """What gptel asks first (its tools lowered) is answered without importing click or any command
    (an editor waits for the process's first answer); a ``check`` request imports them
    then and answers as ``plistspec check`` does."""
    text = json.dumps(
        [{"type": "function", "function": {"name": "w", "description": "d", "parameters": {}}}]
    ).encode()
    lower = json.dumps({"kind": "lower", "backend": "openai", "length": len(text)}).encode()
    out, err = _traced_server(lower + b"\n" + text)
    assert json.loads(out.splitlines()[0])["exit"] == 0
    imported = _imported(err)
    assert "plistspec.calls.toolset" in imported  # the request was answered here
    assert not {m for m in imported if m == "click" or m.endswith("_cmd")}, sorted(imported)

    data = b'(gptel-make-tool :name "x")\n'
    args = ["--stdin-filename", "t.el", "-"]
    check = json.dumps({"args": args, "length": len(data)}).encode()
    out, err = _traced_server(check + b"\n" + data)
    assert _replies(out) == [one_shot(args, data)]
    assert {"click", "plistspec.cli.check_cmd"} <= _imported(err)


def test_the_lowering_is_made_ready_only_while_no_request_waits() -> None:
    """At start the server lowers a throw-away tool (imports and first-use work) only when
    nothing waits on its input; a request already there goes first."""
    from plistspec.calls.toolset import Toolsets
    from plistspec.cli.check_server import warm_when_idle

    r, w = os.pipe()
    try:
        with os.fdopen(r, "rb", buffering=0) as reader:
            assert isinstance(warm_when_idle(reader), Toolsets)  # idle: made ready
            os.write(w, b'{"kind": "lower"}\n')
            assert warm_when_idle(reader) is None  # a request waits: nothing done first
    finally:
        os.close(w)
