"""`serve --emacs` left running beside a live Emacs (a real `emacs --daemon` with the
REAL gptel), driven by the official MCP SDK client: the tool served is the tool called
and the one gptel itself uses for a duplicate name; a tool redefined in Emacs is
validated against its new definition; propertized strings are served; a tool holding a
raw byte is skipped, the others kept; a restarted Emacs serves again at the next
request and the client is told the list changed (`notifications/tools/list_changed`,
advertised as `listChanged`)."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from serve_util import UserEmacs, server_env, stdio_session, texts

from support import elisp_deps_preamble

pytestmark = [pytest.mark.emacs, pytest.mark.slow]  # real Emacs servers: seconds each

SETUP = r"""
(gptel-make-tool :name "dup" :category "cat1" :description "first, in cat1"
  :function (lambda () "cat1 ran"))
(gptel-make-tool :name "dup" :category "cat2" :description "second, in cat2"
  :function (lambda () "cat2 ran"))
(gptel-make-tool :name "bold" :description (propertize "Bold text" 'face 'bold)
  :args (list (list :name (propertize "x" 'face 'bold) :type 'string
                    :description (propertize "An argument" 'face 'italic)))
  :function (lambda (x) (concat "got " x)))
(gptel-make-tool :name "raw" :description (string-to-unibyte "caf\351")
  :function (lambda () "never"))
(gptel-make-tool :name "latin" :description "A Latin-1 result"
  :function (lambda () (encode-coding-string "café" 'latin-1)))
(gptel-make-tool :name "redef" :description "version 1"
  :args (list '(:name "a" :type string :description "A"))
  :function (lambda (a &optional b) (format "%S %S" a b)))
"""

REDEF = r"""(gptel-make-tool :name "redef" :description "version 2"
  :args (list '(:name "a" :type string :description "A")
              '(:name "b" :type string :description "B"))
  :function (lambda (a b) (format "%S %S" a b)))"""


def _start(emacs, deps, tmp_path) -> UserEmacs:
    ue = UserEmacs(emacs.exe, tmp_path)
    init = tmp_path / "init.el"
    init.write_text(
        ";;; -*- lexical-binding: t; -*-\n"
        + elisp_deps_preamble(deps)
        + "(require 'gptel)\n"
        + SETUP,
        encoding="utf-8",
    )
    ue.load(init)
    return ue


def _gptel(ue: UserEmacs, expr: str) -> str:
    return ue.eval(expr).strip()


@pytest.fixture
def live(emacs, elisp_deps_dir, tmp_path):
    ue = _start(emacs, elisp_deps_dir, tmp_path)
    try:
        yield ue
    finally:
        ue.kill()


def test_served_is_called_is_what_gptel_uses(live, mcp_sdk):
    async def main():
        async with stdio_session(["--emacs", live.socket]) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            return tools, await s.call_tool("dup", {})

    tools, called = anyio.run(main)
    # gptel-get-tool's choice (the newest category holding the name)
    assert _gptel(live, '(gptel-tool-description (gptel-get-tool "dup"))') == '"second, in cat2"'
    assert tools["dup"].description == "second, in cat2"
    assert texts(called) == ["cat2 ran"]

    # filtered to cat1, what is served and called is cat1's
    async def only_cat1():
        async with stdio_session(["--emacs", live.socket, "--category", "cat1"]) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            return tools, await s.call_tool("dup", {})

    tools, called = anyio.run(only_cat1)
    assert list(tools) == ["dup"] and tools["dup"].description == "first, in cat1"
    assert texts(called) == ["cat1 ran"]


def test_propertized_raw_byte_and_latin1(live, mcp_sdk):
    async def main():
        async with stdio_session(["--emacs", live.socket]) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            return tools, await s.call_tool("bold", {"x": "y"}), await s.call_tool("latin", {})

    tools, bold, latin = anyio.run(main)
    # propertized strings: served as gptel sends them (json-serialize ignores properties)
    assert tools["bold"].description == "Bold text"
    assert tools["bold"].input_schema["properties"] == {
        "x": {"type": "string", "description": "An argument"}
    }
    assert texts(bold) == ["got y"]
    # a raw byte: skipped, every other tool kept
    assert "raw" not in tools and {"dup", "bold", "latin", "redef"} <= set(tools)
    # a unibyte Latin-1 result is text
    assert not latin.is_error and texts(latin) == ["café"]
    # the command line says what it skipped, and from-json --from-emacs keeps the rest
    r = subprocess.run(
        [sys.executable, "-m", "plistspec", "to-json", "-t", "mcp", "--from-emacs", live.socket],
        capture_output=True,
        encoding="utf-8",
        env=server_env(),
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "emacs:raw: warning: tool 'raw' skipped" in r.stderr and "[PS807]" in r.stderr
    names = [e["name"] for e in json.loads(r.stdout)]
    assert "raw" not in names and "bold" in names and names.count("dup") == 1
    assert "[PS801]" in r.stderr and "'cat2'" in r.stderr


def test_redefined_tool_is_validated_against_its_current_definition(live, mcp_sdk):
    notes: list[str] = []

    async def on_message(message) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if method is not None:
            notes.append(method)

    async def main():
        async with stdio_session(["--emacs", live.socket, "--poll", "0.3"]) as s:
            s._message_handler = on_message
            init_caps = s.initialize_result.capabilities
            before = {t.name: t for t in (await s.list_tools()).tools}
            ok = await s.call_tool("redef", {"a": "x"})
            live.eval(REDEF)
            missing = await s.call_tool("redef", {"a": "x"})  # b is required now
            both = await s.call_tool("redef", {"a": "x", "b": "y"})
            after = {t.name: t for t in (await s.list_tools()).tools}
            return init_caps, before, ok, missing, both, after

    caps, before, ok, missing, both, after = anyio.run(main)
    assert caps is not None and caps.tools is not None and caps.tools.list_changed is True
    assert before["redef"].input_schema["required"] == ["a"]
    assert texts(ok) == ['"x" nil']
    assert missing.is_error and "/b: missing (required)" in texts(missing)[0]
    assert texts(both) == ['"x" "y"']
    assert after["redef"].description == "version 2"
    assert "notifications/tools/list_changed" in notes


def test_restarted_emacs_serves_at_once_and_the_client_is_told(
    emacs, elisp_deps_dir, mcp_sdk, tmp_path
):
    """The user restarts Emacs (same socket): the next call works (the helper is
    installed on demand, no tools/list needed) and the list_changed notification
    comes."""
    ue = _start(emacs, elisp_deps_dir, tmp_path / "first")
    notes: list[str] = []

    async def on_message(message) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if method is not None:
            notes.append(method)

    try:

        async def main():
            async with stdio_session(["--emacs", ue.socket, "--poll", "0.3"]) as s:
                s._message_handler = on_message
                await s.list_tools()
                first = await s.call_tool("bold", {"x": "1"})
                old_pid = ue.pid
                ue.kill()
                down = await s.call_tool("bold", {"x": "2"})
                await anyio.sleep(0.6)
                notes.clear()
                # the same socket, a new Emacs: as when the user restarts it
                sock_dir = tmp_path / "first" / "socket"
                subprocess.run(
                    [emacs.exe, "-Q", f"--daemon={sock_dir / 'server'}"],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=60,
                    check=True,
                )
                from plistspec.emacs.client import EmacsClient

                ue.client = EmacsClient(ue.socket, timeout=60)
                ue.pid = int(ue.client.eval("(emacs-pid)").strip())
                assert ue.pid != old_pid
                ue.load(tmp_path / "first" / "init.el")
                again = await s.call_tool("bold", {"x": "3"})  # no tools/list first
                with anyio.move_on_after(5):
                    while "notifications/tools/list_changed" not in notes:
                        await anyio.sleep(0.05)
                return first, down, again

        first, down, again = anyio.run(main)
    finally:
        ue.kill()
    assert texts(first) == ["got 1"]
    assert down.is_error and "cannot reach the Emacs server" in texts(down)[0]
    assert not again.is_error and texts(again) == ["got 3"], texts(again)
    assert "notifications/tools/list_changed" in notes


def test_gptel_not_loaded_is_said(emacs, tmp_path):
    ue = UserEmacs(emacs.exe, tmp_path)
    try:
        r = subprocess.run(
            [sys.executable, "-m", "plistspec", "to-json", "--from-emacs", ue.socket],
            capture_output=True,
            encoding="utf-8",
            env=server_env(),
            timeout=120,
        )
    finally:
        ue.kill()
    assert json.loads(r.stdout) == []
    assert "gptel is not loaded in that Emacs" in r.stderr and "[PS808]" in r.stderr
