"""`plistspec serve FILE.el` end to end over stdio, driven by the official MCP SDK client.

plistspec starts its own Emacs for the file; with nothing else on its load-path, gptel
and llm are plistspec's shims (elisp/plistspec-serve.el); with `--init` loading the real
gptel and llm (when ../shared/elisp-deps is present), the real ones. Every call result
is compared with what the function returns when called directly with the arguments
gptel / llm hand it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import anyio
import pytest
from serve_util import TOOLS, direct_results, server_env, stdio_session, texts

from support import ROOT, elisp_deps_preamble

pytestmark = [pytest.mark.emacs, pytest.mark.slow]  # real Emacs servers: seconds each

# (tool, arguments, the result text the function must return)
CALLS = [
    ("show_args", {"text": "plain"}, '("plain" nil nil nil nil)'),
    ("show_args", {"text": "f", "flag": False}, '("f" :json-false nil nil nil)'),
    ("show_args", {"text": "t", "flag": True, "count": 3}, '("t" t 3 nil nil)'),
    ("show_args", {"text": "n", "flag": None, "count": None}, '("n" nil nil nil nil)'),
    (
        "show_args",
        {"text": 'héllo ☃ 𝄞 "q" \\ \n', "items": ["x", "ÿ"]},
        '("héllo ☃ 𝄞 \\"q\\" \\\\ \n" nil nil nil ["x" "ÿ"])',
    ),
    (
        "show_args",
        {"text": "o", "opts": {"mode": "b", "deep": {"on": False}}, "items": []},
        '("o" nil nil (:mode "b" :deep (:on :json-false)) [])',
    ),
    ("greet", {"name": "Ada"}, "Grüß dich, Ada ☃"),
    ("wait_then_answer", {"ms": 30}, "waited 30 ms"),
    # llm: false becomes nil (also nested), null stays :null, objects are alists
    (
        "llm_show",
        {"text": "l", "flag": False, "opts": {"on": True, "off": False}, "maybe": None},
        '("l" nil ((on . t) (off)) :null)',
    ),
    ("llm_show", {"text": "m"}, '("m" nil nil nil)'),
]


def _call_all(args: list[str], calls) -> list:
    async def main():
        out = []
        async with stdio_session(args) as s:
            for name, arguments, *_ in calls:
                out.append(await s.call_tool(name, arguments))
        return out

    return anyio.run(main)


def _to_json_mcp(path) -> list[dict]:
    out = subprocess.run(
        [sys.executable, "-m", "plistspec", "to-json", "-t", "mcp", str(path)],
        capture_output=True,
        env=server_env(),
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout)


def test_list_is_to_json_mcp_plus_annotations(emacs, mcp_sdk):
    async def main():
        async with stdio_session([str(TOOLS)]) as s:
            return (await s.list_tools()).tools

    tools = anyio.run(main)
    expected = _to_json_mcp(TOOLS)
    served = {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in tools}
    # the file's tools, in order, then the one Emacs made with a macro (not static)
    assert [t.name for t in tools] == [e["name"] for e in expected] + ["made_by_macro"]
    for e in expected:
        got = served[e["name"]]
        assert got["inputSchema"] == e["inputSchema"]
        assert got["description"] == e["description"]
    assert served["delete_everything"]["annotations"] == {
        "destructiveHint": True,
        "readOnlyHint": False,
    }
    assert served["delete_everything"]["_meta"]["plistspec/category"] == "danger"
    assert served["wait_then_answer"]["_meta"]["plistspec/async"] is True
    assert "annotations" not in served["greet"]
    assert served["made_by_macro"]["description"] == "A tool built by a macro"


def test_calls_with_plistspec_shims(emacs, mcp_sdk):
    results = _call_all([str(TOOLS)], CALLS + [("which_gptel", {}, "stand-in gptel, stand-in llm")])
    for (name, args, want), r in zip(CALLS, results, strict=False):
        assert not r.is_error, (name, args, texts(r))
        assert texts(r) == [want], (name, args)
    assert texts(results[-1]) == ["stand-in gptel, stand-in llm"]


def test_load_path_alone_loads_the_real_libraries(emacs, mcp_sdk, elisp_deps_dir):
    """With only -L folders (the file does not require gptel), the real gptel and llm are
    loaded, not the stand-ins."""
    from support import ELISP_DEPS_DIRS

    args = []
    for d in ELISP_DEPS_DIRS:
        args += ["-L", str(elisp_deps_dir / d)]
    results = _call_all(
        args + [str(TOOLS)],
        [("which_gptel", {}, None), ("show_args", {"text": "a", "flag": False}, None)],
    )
    assert texts(results[0]) == ["real gptel, real llm"]
    assert texts(results[1]) == ['("a" :json-false nil nil nil)']


def test_calls_match_direct_calls_with_real_gptel_and_llm(emacs, mcp_sdk, elisp_deps_dir, tmp_path):
    init = tmp_path / "init.el"
    init.write_text(
        ";;; -*- lexical-binding: t; -*-\n"
        + elisp_deps_preamble(elisp_deps_dir)
        + "(require 'gptel)\n(require 'llm)\n(require 'llm-provider-utils)\n",
        encoding="utf-8",
    )
    calls = CALLS + [("as_json", {}, None), ("fail", {"why": "é"}, None)]
    results = _call_all(["--init", str(init), str(TOOLS)], calls + [("which_gptel", {}, None)])
    assert texts(results.pop()) == ["real gptel, real llm"]
    direct = direct_results(emacs, elisp_deps_dir, [(n, a) for n, a, _ in calls])
    assert len(direct) == len(calls)
    for (name, args, want), r, d in zip(calls, results, direct, strict=True):
        if not d["ok"]:
            assert r.is_error and texts(r) == [d["text"]], (name, args)
            continue
        assert not r.is_error, (name, args, texts(r))
        if d["string"]:
            assert texts(r) == [d["text"]], (name, args)
            if want is not None:
                assert d["text"] == want
        else:  # a Lisp value: served as JSON
            assert name == "as_json"
            assert json.loads(texts(r)[0]) == {
                "ok": True,
                "no": False,
                "n": 3,
                "list": [1, "two"],
                "nested": {"x": None},
            }
            assert d["text"] == '(:ok t :no :json-false :n 3 :list [1 "two"] :nested (:x nil))'


def test_errors_timeouts_and_unknown_tools(emacs, mcp_sdk):
    from mcp.shared.exceptions import MCPError

    async def main():
        out = {}
        async with stdio_session(["--timeout", "1", str(TOOLS)]) as s:
            out["fail"] = await s.call_tool("fail", {"why": "out of cheese"})
            out["slow"] = await s.call_tool("wait_then_answer", {"ms": 5000})
            out["sleepy"] = await s.call_tool("sleepy", {"seconds": 30})
            out["after"] = await s.call_tool("greet", {"name": "still alive"})
            out["json"] = await s.call_tool("as_json", {})
            out["missing"] = await s.call_tool("greet", {})
            out["wrong"] = await s.call_tool("show_args", {"text": 1, "flag": "yes"})
            out["extra_enum"] = await s.call_tool("show_args", {"text": "x", "opts": {"mode": "c"}})
            with pytest.raises(MCPError) as e:
                await s.call_tool("no_such_tool", {})
            out["unknown"] = e.value
        return out

    out = anyio.run(main)
    assert out["fail"].is_error and texts(out["fail"]) == ["Tool failed: out of cheese"]
    assert out["slow"].is_error and "timed out after 1 seconds" in texts(out["slow"])[0]
    assert out["sleepy"].is_error and "timed out after 1 seconds" in texts(out["sleepy"])[0]
    assert not out["after"].is_error and texts(out["after"]) == ["Grüß dich, still alive ☃"]
    assert json.loads(texts(out["json"])[0])["list"] == [1, "two"]
    assert out["missing"].is_error and "/name: missing (required)" in texts(out["missing"])[0]
    msg = texts(out["wrong"])[0]
    assert (
        out["wrong"].is_error
        and "- /text: expected string" in msg
        and "- /flag: expected boolean" in msg
    )
    assert out["extra_enum"].is_error and 'got "c"' in texts(out["extra_enum"])[0]
    assert out["unknown"].code == -32602 and "no_such_tool" in out["unknown"].message


def test_confirm_needs_flag_or_elicitation(emacs, mcp_sdk):
    import mcp_types as types

    asked = []

    async def accept(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    async def decline(context, params):
        return types.ElicitResult(action="decline")

    async def run(args, callback=None):
        async with stdio_session(args, elicitation_callback=callback) as s:
            return await s.call_tool("delete_everything", {"really": True})

    refused = anyio.run(run, [str(TOOLS)])
    assert refused.is_error and "--allow-confirm" in texts(refused)[0]
    assert refused.meta == {"plistspec/confirmation": "refused"}

    flagged = anyio.run(run, ["--allow-confirm", str(TOOLS)])
    assert not flagged.is_error and texts(flagged) == ["deleted: t"]
    assert flagged.meta == {"plistspec/confirmation": "flag"}

    confirmed = anyio.run(run, [str(TOOLS)], accept)
    assert not confirmed.is_error and texts(confirmed) == ["deleted: t"]
    assert confirmed.meta == {"plistspec/confirmation": "elicitation"}
    assert asked and "delete_everything" in asked[0]

    declined = anyio.run(run, [str(TOOLS)], decline)
    assert declined.is_error and "did not confirm" in texts(declined)[0]


def test_file_that_fails_to_load(emacs, mcp_sdk, tmp_path):
    bad = tmp_path / "bad.el"
    bad.write_text(
        ";;; -*- lexical-binding: t; -*-\n(require 'no-such-library-anywhere)\n"
        '(gptel-make-tool :name "never" :description "d" :function (lambda () "x"))\n',
        encoding="utf-8",
    )

    async def main():
        async with stdio_session([str(bad), str(TOOLS)]) as s:
            names = [t.name for t in (await s.list_tools()).tools]
            return names, await s.call_tool("never", {}), await s.call_tool("greet", {"name": "x"})

    names, never, greet = anyio.run(main)
    assert "never" in names and "greet" in names
    assert never.is_error and "failed to load" in texts(never)[0]
    assert "no-such-library-anywhere" in texts(never)[0]
    assert not greet.is_error


def test_no_emacs_left_behind(emacs, mcp_sdk):
    """The server's own Emacs stops with the server: on a clean close, and when the
    server is killed outright (SIGKILL: Emacs notices its parent is gone)."""
    import re
    import signal

    from serve_util import wait_gone

    for how in ("close", "sigkill"):
        proc = subprocess.Popen(
            [sys.executable, "-m", "plistspec", "serve", str(TOOLS)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=server_env(),
            cwd=ROOT,
        )
        try:
            line = b""
            while b"Emacs pid" not in line:
                line = proc.stderr.readline()
                assert line, "the server ended before starting Emacs"
            pid = int(re.search(rb"Emacs pid (\d+)", line).group(1))
            private = os.path.dirname(os.path.dirname(line.split(b" at ")[1].strip().decode()))
            assert os.path.isdir(private)
            if how == "close":
                proc.stdin.close()
                proc.wait(timeout=30)
            else:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=30)
            assert wait_gone(pid, 10), f"Emacs {pid} still runs after the server's {how}"
            assert not os.path.exists(private), f"{private} left behind after the {how}"
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)


def test_async_calls_overlap(emacs, mcp_sdk):
    """Three async tools of 600 ms each, called at once, take about 600 ms, not 1800; a
    sync call made meanwhile is answered before they finish."""
    import time

    async def main():
        async with stdio_session([str(TOOLS)]) as s:
            await s.call_tool("greet", {"name": "warm up"})
            results = {}

            async def call(key, name, args):
                results[key] = (await s.call_tool(name, args), time.monotonic())

            start = time.monotonic()
            async with anyio.create_task_group() as tg:
                for i in range(3):
                    tg.start_soon(call, i, "wait_then_answer", {"ms": 600})
                await anyio.sleep(0.1)
                tg.start_soon(call, "sync", "greet", {"name": "meanwhile"})
            return results, start, time.monotonic()

    results, start, end = anyio.run(main)
    assert all(texts(results[i][0]) == ["waited 600 ms"] for i in range(3))
    assert end - start < 1.5, end - start
    assert texts(results["sync"][0]) == ["Grüß dich, meanwhile ☃"]
    assert results["sync"][1] < min(results[i][1] for i in range(3))


def test_init_file_that_fails_stops_cleanly(emacs, tmp_path):
    init = tmp_path / "init.el"
    init.write_text('(error "Broken init: %s" "ü")\n', encoding="utf-8")
    r = subprocess.run(
        [sys.executable, "-m", "plistspec", "serve", "--init", str(init), str(TOOLS)],
        capture_output=True,
        encoding="utf-8",
        env=server_env(),
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert r.returncode == 1
    assert f"{init}: error: cannot load the init file: Broken init: ü [PS803]" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_lower_serves_what_the_target_accepts_and_calls_still_reach_emacs(emacs, mcp_sdk):
    """`serve -t gemini` (for Gemini CLI): the listed schemas are the tools' lowered for
    gemini and pass gemini's rules; calls under the served names still run the tools.
    (serve lowers the tools as MCP describes them, its IR: gptel's per-backend additions,
    where `to-json -t gemini --lower` starts for Elisp, are not what an MCP client gets.)"""
    from plistspec.emit_json.target import to_target_json
    from plistspec.lowering import lower_tools
    from plistspec.lowering.validate import schema_violations
    from plistspec.pipeline.tools import read_tools

    async def main():
        async with stdio_session(["-t", "gemini", str(TOOLS)]) as s:
            tools = (await s.list_tools()).tools
            result = await s.call_tool("greet", {"name": "Ada"})
            return tools, result

    tools, result = anyio.run(main)
    served = {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in tools}
    ir, _ = read_tools(open(TOOLS, encoding="utf-8").read(), str(TOOLS))
    lowered, diags = lower_tools(list(ir), "gemini")
    assert not [d for d in diags if d.is_error]
    decls = to_target_json(lowered, "gemini")[0]["functionDeclarations"]
    assert decls
    for d in decls:
        if "parameters" not in d:  # Gemini: a tool without arguments has no parameters
            assert not served[d["name"]]["inputSchema"].get("properties"), d["name"]
            continue
        assert served[d["name"]]["inputSchema"] == d["parameters"], d["name"]
        assert not schema_violations(d["parameters"], "gemini"), d["name"]
    assert texts(result) == ["Grüß dich, Ada ☃"] and not result.is_error
