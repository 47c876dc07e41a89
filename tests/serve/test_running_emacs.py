"""A user's running Emacs (a real `emacs --daemon` with the real gptel and llm):
`serve --emacs` serves every registered tool (also those made at run time or by a
macro) and runs them there; `to-json` / `check` / `from-json --from-emacs` read them
through the same lowering as static reading."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from serve_util import TOOLS, server_env, stdio_session, texts

# real Emacs servers, seconds each; one worker starts the module's daemon once
pytestmark = [pytest.mark.emacs, pytest.mark.slow, pytest.mark.xdist_group("running-emacs")]


def _plistspec(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "plistspec", *args],
        capture_output=True,
        encoding="utf-8",
        env=server_env(),
        timeout=120,
        check=check,
    )


def test_serve_emacs_lists_and_calls_every_registered_tool(user_emacs, mcp_sdk):
    async def main():
        args = ["--emacs", user_emacs.socket, "--llm-variable", "user-llm-tools"]
        async with stdio_session(args + ["--timeout", "2"]) as s:
            tools = (await s.list_tools()).tools
            calls = {
                "show": await s.call_tool(
                    "show_args", {"text": "ü", "flag": False, "opts": {"deep": {"on": True}}}
                ),
                "macro": await s.call_tool("made_by_macro", {}),
                "runtime": await s.call_tool("runtime_two", {"v": 7}),
                "async": await s.call_tool("wait_then_answer", {"ms": 20}),
                "slow": await s.call_tool("wait_then_answer", {"ms": 9000}),
                "llm": await s.call_tool("llm_echo", {"a": "x", "b": False}),
                "fail": await s.call_tool("fail", {"why": "no"}),
            }
            # a tool registered after the server started appears at the next tools/list
            user_emacs.eval(
                '(gptel-make-tool :name "late_tool" :description "late" '
                ':function (lambda () "late!"))'
            )
            later = [t.name for t in (await s.list_tools()).tools]
            calls["late"] = await s.call_tool("late_tool", {})
        return tools, calls, later

    tools, calls, later = anyio.run(main)
    names = [t.name for t in tools]
    for n in ("show_args", "greet", "made_by_macro", "runtime_one", "runtime_two", "llm_echo"):
        assert n in names
    assert "late_tool" not in names and "late_tool" in later
    runtime = next(t for t in tools if t.name == "runtime_one")
    assert runtime.input_schema["properties"] == {
        "v": {"type": "integer", "description": "A number"}
    }
    assert texts(calls["show"]) == ['("ü" :json-false nil (:deep (:on t)) nil)']
    assert texts(calls["macro"]) == ["I am made_by_macro"]
    assert texts(calls["runtime"]) == ["runtime_two got 7"]
    assert texts(calls["async"]) == ["waited 20 ms"]
    assert calls["slow"].is_error and "timed out" in texts(calls["slow"])[0]
    assert texts(calls["llm"]) == ['("x" nil)']
    assert calls["fail"].is_error and texts(calls["fail"]) == ["Tool failed: no"]
    assert texts(calls["late"]) == ["late!"]


def test_serve_emacs_filters(user_emacs, mcp_sdk):
    async def main(extra):
        async with stdio_session(["--emacs", user_emacs.socket, *extra]) as s:
            return [t.name for t in (await s.list_tools()).tools]

    assert anyio.run(main, ["--category", "runtime"]) == ["runtime_one", "runtime_two"]
    assert anyio.run(main, ["--tool", "greet", "--tool", "fail"]) == ["greet", "fail"]


def test_to_json_from_emacs_equals_static_output(user_emacs):
    """For the tools a static reader can read, the JSON from the running Emacs is the
    same, for every provider; the others are there too."""
    static = {
        t["name"]: t for t in json.loads(_plistspec("to-json", "-t", "ir", str(TOOLS)).stdout)
    }
    for fmt in ("openai", "anthropic", "gemini", "mcp"):
        live = json.loads(
            _plistspec(
                "to-json",
                "--from-emacs",
                user_emacs.socket,
                "--llm-variable",
                "user-llm-tools",
                "-t",
                fmt,
            ).stdout
        )
        want = json.loads(_plistspec("to-json", "-t", fmt, str(TOOLS)).stdout)
        if fmt == "gemini":
            live, want = live[0]["functionDeclarations"], want[0]["functionDeclarations"]

        def name(e):
            return e.get("name") or e.get("function", {}).get("name")

        live_by = {name(e): e for e in live}
        for e in want:
            if name(e) == "llm_show":  # the file's llm tool sits in a variable not named here
                continue
            assert live_by[name(e)] == e, (fmt, name(e))
        assert {"made_by_macro", "runtime_one", "llm_echo"} <= set(live_by)
    ir = json.loads(_plistspec("to-json", "--from-emacs", user_emacs.socket).stdout)
    by = {t["name"]: t for t in ir}
    assert by["show_args"]["metadata"]["function"] == "#'serve-test-show"
    assert by["greet"]["metadata"]["function"] is None
    assert by["greet"]["metadata"]["emacs"]["function"] == "closure"
    assert by["delete_everything"]["metadata"]["confirm"] is True
    assert by["show_args"]["parameters"] == static["show_args"]["parameters"]


def test_check_and_from_json_from_emacs(user_emacs, emacs, tmp_path):
    chk = _plistspec(
        "check", "--from-emacs", user_emacs.socket, "--output-format", "json", check=False
    )
    assert chk.returncode == 0, chk.stdout + chk.stderr
    found = json.loads(chk.stdout)
    assert isinstance(found, list)
    # gptel keeps `:type string' as "string": Emacs prints it back as the symbol the file has
    assert not [d for d in found if d["code"] == "PS315"], found
    out = tmp_path / "exported.el"
    _plistspec("from-json", "--from-emacs", user_emacs.socket, "-o", str(out))
    text = out.read_text(encoding="utf-8")
    assert '"runtime_one"' in text and '"made_by_macro"' in text
    assert "#'serve-test-show" in text
    # the export is Elisp Emacs reads back: every form
    n = emacs.run(
        f"(with-temp-buffer (insert-file-contents {json.dumps(str(out))}) "
        "(let ((n 0)) (condition-case nil (while t (read (current-buffer)) (setq n (1+ n))) "
        "(end-of-file nil)) (princ n)))"
    )
    assert int(n) >= 10


def test_export_command_in_emacs(user_emacs, tmp_path):
    """`plistspec-serve-export-tools` (the Emacs command) writes the MCP file."""
    from plistspec.elisp.printer import print_string

    out = tmp_path / "tools.json"
    cmd = [sys.executable, "-m", "plistspec"]
    user_emacs.eval(
        "(let ((process-environment (cons "
        + print_string("PYTHONPATH=" + server_env()["PYTHONPATH"])
        + " process-environment)) (plistspec-serve-executable (list "
        + " ".join(print_string(c) for c in cmd)
        + "))) (plistspec-serve-export-tools "
        + print_string(str(out))
        + ' "mcp" (quote user-llm-tools)))'
    )
    entries = json.loads(out.read_text(encoding="utf-8"))
    names = [e["name"] for e in entries]
    assert "runtime_two" in names and "llm_echo" in names
    assert all(set(e) >= {"name", "inputSchema"} for e in entries)


def test_dead_emacs_is_a_clear_error(tmp_path):
    missing = str(tmp_path / "no-such-socket")
    r = _plistspec("to-json", "--from-emacs", missing, check=False)
    assert r.returncode == 1
    assert "cannot reach the Emacs server" in r.stderr and "[PS804]" in r.stderr
    assert "Traceback" not in r.stderr
    r = _plistspec("serve", "--emacs", missing, check=False)
    assert r.returncode == 1 and "PS804" in r.stderr and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"emacs:{missing}: error: ") and "<input>" not in r.stderr


def test_emacs_that_dies_mid_session(emacs, elisp_deps_dir, mcp_sdk, tmp_path):
    """The user quits Emacs while the server runs: calls answer with a clear isError,
    tools/list keeps the last list, nothing crashes."""
    from serve_util import UserEmacs

    from support import elisp_deps_preamble

    ue = UserEmacs(emacs.exe, tmp_path)
    try:
        init = tmp_path / "init.el"
        init.write_text(
            ";;; -*- lexical-binding: t; -*-\n"
            + elisp_deps_preamble(elisp_deps_dir)
            + "(require 'gptel)\n"
            + '(gptel-make-tool :name "ping" :description "p" :function (lambda () "pong"))\n',
            encoding="utf-8",
        )
        ue.load(init)

        async def main():
            async with stdio_session(["--emacs", ue.socket, "--timeout", "5"]) as s:
                first = await s.call_tool("ping", {})
                ue.kill()
                after = await s.call_tool("ping", {})
                names = [t.name for t in (await s.list_tools()).tools]
                return first, after, names

        first, after, names = anyio.run(main)
    finally:
        ue.kill()
    assert texts(first) == ["pong"]
    assert after.is_error and "cannot reach the Emacs server" in texts(after)[0]
    assert names == ["ping"]
