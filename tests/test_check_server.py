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
    (FIXTURES / "elisp" / "large_tools.el", ["--format", "json", "--exit-zero"]),
    (FIXTURES / "broken" / "bad_tool_name.el", ["--format", "json", "--exit-zero"]),
    (FIXTURES / "broken" / "bad_tool_name.el", []),
    (FIXTURES / "broken" / "syntax_error_then_tool.el", ["--format", "json"]),
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


def test_server_replies_equal_one_shot_output() -> None:
    requests = []
    for path, opts in CASES:
        requests.append(([*opts, "--stdin-filename", path.name, "-"], path.read_bytes()))
    requests.append((["--format", "json", "--stdin-filename", "bad.el", "-"], b"(a \xff b)\n"))
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
