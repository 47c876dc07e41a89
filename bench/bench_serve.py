"""Cost of `plistspec serve --emacs` beside a user's Emacs, at growing registry sizes.

Goals (issue 22): one tools/call costs at most 2x a bare `emacsclient --eval t`, whatever
the size of the registry; tools/list of 500 tools takes at most 50 ms; 200 concurrent
HTTP calls take no longer than the same 200 made one after the other.

Run: python bench/bench_serve.py [--runs N] [--tools N] [--concurrent N]. Starts a private
`emacs -Q --daemon` with the real gptel standing for the user's Emacs (stopped at the
end), registers a few tools and then many generated ones, and serves it with `plistspec
serve --emacs` through the official MCP SDK client, over stdio and over HTTP. Prints
medians in milliseconds: numbers, never pass/fail. Needs $PLISTSPEC_ELISP_DEPS (or
../shared/elisp-deps) for the real gptel.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support import elisp_deps, elisp_deps_preamble  # noqa: E402

sys.path.insert(0, str(ROOT / "src"))

TOOLS = r""";;; -*- lexical-binding: t; -*-
(defun bench-noop (x) (concat "ok " x))
(gptel-make-tool :name "noop" :description "Returns at once." :function #'bench-noop
  :args (list '(:name "x" :type string :description "text")))
(defun bench-generate (n)
  (dotimes (i n)
    (gptel-make-tool :name (format "generated_%04d" i) :description (format "Tool %d" i)
      :category "generated"
      :args (list (list :name "q" :type 'string :description "a query")
                  (list :name "mode" :type 'string :enum ["a" "b" "c"] :optional t)
                  (list :name "opts" :type 'object :optional t
                        :properties (list :deep (list :type 'boolean))))
      :function #'bench-noop)))
"""


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT / "src"))


async def stdio_numbers(sock: str, runs: int):
    """(tools listed, tools/list times, tools/call times, ping times) over stdio."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "plistspec", "serve", "--emacs", sock, "--poll", "0"],
        env=env(),
    )
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                n = len((await s.list_tools()).tools)  # the first list reads every form
                lists = []
                for _ in range(10):
                    a = time.perf_counter()
                    await s.list_tools()
                    lists.append(time.perf_counter() - a)
                await s.call_tool("noop", {"x": "warm"})
                calls = []
                for _ in range(runs):
                    a = time.perf_counter()
                    await s.call_tool("noop", {"x": "x"})
                    calls.append(time.perf_counter() - a)
                pings = []
                for _ in range(runs):
                    a = time.perf_counter()
                    await s.send_ping()
                    pings.append(time.perf_counter() - a)
                return n, lists, calls, pings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def http_numbers(url: str, n: int, token: str) -> tuple[float, float]:
    """(seconds for n calls one after the other, seconds for n concurrent calls)."""
    import anyio
    import httpx2 as httpx
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    auth = httpx.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=60)
    async with auth, streamable_http_client(url, http_client=auth) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            await s.list_tools()
            await s.call_tool("noop", {"x": "warm"})
            a = time.perf_counter()
            for i in range(n):
                await s.call_tool("noop", {"x": str(i)})
            sequential = time.perf_counter() - a
            a = time.perf_counter()
            async with anyio.create_task_group() as tg:
                for i in range(n):
                    tg.start_soon(s.call_tool, "noop", {"x": str(i)})
            concurrent = time.perf_counter() - a
            return sequential, concurrent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--tools", type=int, default=500, help="the large registry's size")
    ap.add_argument("--concurrent", type=int, default=200)
    a = ap.parse_args()

    import anyio

    from plistspec.emacs.daemon import OwnEmacs

    deps = elisp_deps()
    if deps is None:
        sys.exit("needs the real gptel: set PLISTSPEC_ELISP_DEPS to the elisp-deps folder")
    work = tempfile.mkdtemp(prefix="plistspec-bench-")
    tools_el = Path(work) / "tools.el"
    tools_el.write_text(TOOLS, encoding="utf-8")
    init = Path(work) / "init.el"
    init.write_text(elisp_deps_preamble(deps) + "(require 'gptel)\n", encoding="utf-8")
    emacs = OwnEmacs(init_file=str(init))  # the user's Emacs: real gptel, stopped at the end
    rows: list[tuple[str, float]] = []
    try:
        client = emacs.start()
        emacs.load(str(tools_el))
        sock = client.socket_file
        ec = shutil.which("emacsclient")
        bare = float("nan")
        if ec:
            t = []
            for _ in range(min(a.runs, 50)):
                s = time.perf_counter()
                subprocess.run([ec, "-s", sock, "--eval", "t"], capture_output=True, timeout=10)
                t.append(time.perf_counter() - s)
            bare = median_ms(t)
        t = []
        for _ in range(a.runs):
            s = time.perf_counter()
            client.request({"op": "hello"})
            t.append(time.perf_counter() - s)
        rows.append(("one request over the server socket", median_ms(t)))
        rows.append(("bare emacsclient --eval t", bare))
        sizes = sorted({min(50, a.tools), a.tools})
        have = 0
        for size in sizes:
            client.eval(f"(bench-generate {size - 1})")  # plus noop
            have = size
            source = {"llm_variable": None, "categories": [], "tools": []}
            payload = {
                "op": "call",
                "source": source,
                "name": "noop",
                "id": "b",
                "arguments": '{"x": "y"}',
                "timeout": 10,
            }
            t = []
            for _ in range(a.runs):
                s = time.perf_counter()
                client.request(payload)
                t.append(time.perf_counter() - s)
            rows.append((f"Emacs side of one call, {size} tools (socket request)", median_ms(t)))
            n, lists, calls, pings = anyio.run(stdio_numbers, sock, a.runs)
            rows.append((f"tools/call, {n} tools registered (stdio, median)", median_ms(calls)))
            rows.append((f"tools/list, {n} tools (stdio, median)", median_ms(lists)))
            rows.append(("  the SDK's own round trip (ping, stdio)", median_ms(pings)))
        port = free_port()
        token_file = Path(work) / "token"
        token_file.write_text("bench-token\n")
        token_file.chmod(0o600)
        err = open(Path(work) / "http.log", "wb")
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "plistspec",
                "serve",
                "--emacs",
                sock,
                "--http",
                "--port",
                str(port),
                "--poll",
                "0",
                "--auth-token-file",
                str(token_file),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=env(),
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                with socket.socket() as s:
                    if s.connect_ex(("127.0.0.1", port)) == 0:
                        break
                if proc.poll() is not None or time.monotonic() > deadline:
                    sys.exit("the HTTP server did not start: see " + str(Path(work) / "http.log"))
                time.sleep(0.1)
            url = f"http://127.0.0.1:{port}/mcp"
            seq, conc = anyio.run(http_numbers, url, a.concurrent, "bench-token")
        finally:
            proc.terminate()
            proc.wait(timeout=15)
            err.close()
        rows.append(
            (f"{a.concurrent} HTTP calls one after the other ({have} tools), total", seq * 1000)
        )
        rows.append((f"{a.concurrent} concurrent HTTP calls ({have} tools), total", conc * 1000))
    finally:
        emacs.stop()
        shutil.rmtree(work, ignore_errors=True)
    width = max(len(r[0]) for r in rows)
    for label, ms in rows:
        print(f"{label:<{width}}  {ms:9.2f} ms")


if __name__ == "__main__":
    main()
