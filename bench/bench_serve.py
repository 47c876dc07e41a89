"""Cost of `plistspec serve`: one tools/call over the tool function's own run time, and
tools/list for 500 tools.

Goal (issue 10): median overhead of one tools/call under 20 ms for a sync tool in the
user's running Emacs. Run: python bench/bench_serve.py [--runs N]. Starts a private
`emacs -Q --daemon` standing for the user's Emacs (killed at the end), serves it with
`plistspec serve --emacs` through the official MCP SDK client over stdio, and prints
medians in milliseconds: numbers, never pass/fail. For comparison it also times one
request over the server socket alone and one `emacsclient --eval` (why plistspec speaks
the socket protocol itself).
"""

from __future__ import annotations

import argparse
import os
import shutil
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
(require 'cl-lib)
(defun bench-noop (x) (concat "ok " x))
(defun bench-work (n) (let ((s 0)) (dotimes (i n) (setq s (+ s i))) (format "%d" s)))
(gptel-make-tool :name "noop" :description "Returns at once." :function #'bench-noop
  :args (list '(:name "x" :type string :description "text")))
(gptel-make-tool :name "work" :description "Sums 0..n-1." :function #'bench-work
  :args (list '(:name "n" :type integer :description "count")))
(dotimes (i 498)
  (gptel-make-tool :name (format "generated_%03d" i) :description (format "Tool %d" i)
    :category "generated"
    :args (list (list :name "q" :type 'string :description "a query")
                (list :name "mode" :type 'string :enum ["a" "b" "c"] :optional t)
                (list :name "opts" :type 'object :optional t
                      :properties (list :deep (list :type 'boolean))))
    :function #'bench-noop))
"""


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    runs = ap.parse_args().runs

    from plistspec.emacs.daemon import OwnEmacs

    deps = elisp_deps()
    if deps is None:
        sys.exit("needs the real gptel: set PLISTSPEC_ELISP_DEPS to the elisp-deps folder")
    work = tempfile.mkdtemp(prefix="plistspec-bench-")
    tools_el = Path(work) / "tools.el"
    tools_el.write_text(TOOLS, encoding="utf-8")
    init = Path(work) / "init.el"
    init.write_text(elisp_deps_preamble(deps) + "(require 'gptel)\n", encoding="utf-8")
    # the user's Emacs: a private daemon with the real gptel (stopped at the end)
    emacs = OwnEmacs(init_file=str(init))
    try:
        client = emacs.start()
        emacs.load(str(tools_el))
        sock = client.socket_file
        own = client.eval(f'(car (benchmark-run {runs} (bench-noop "x")))')
        own_noop = float(own) / runs * 1000
        own_work = float(client.eval("(car (benchmark-run 20 (bench-work 200000)))")) / 20 * 1000

        t = []
        for _ in range(runs):
            s = time.perf_counter()
            client.request({"op": "hello"})
            t.append(time.perf_counter() - s)
        socket_ms = median_ms(t)
        ec = shutil.which("emacsclient")
        emacsclient_ms = float("nan")
        if ec:
            t = []
            for _ in range(min(runs, 50)):
                s = time.perf_counter()
                subprocess.run([ec, "-s", sock, "--eval", "t"], capture_output=True, timeout=10)
                t.append(time.perf_counter() - s)
            emacsclient_ms = median_ms(t)

        import anyio

        async def session_bench():
            from mcp.client.session import ClientSession
            from mcp.client.stdio import StdioServerParameters, stdio_client

            env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
            params = StdioServerParameters(
                command=sys.executable,
                args=["-m", "plistspec", "serve", "--emacs", sock],
                env=env,
            )
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (r, w):
                    async with ClientSession(r, w) as s:
                        await s.initialize()
                        lists = []
                        for _ in range(10):
                            a = time.perf_counter()
                            n = len((await s.list_tools()).tools)
                            lists.append(time.perf_counter() - a)
                        await s.call_tool("noop", {"x": "warm"})
                        noop, wk = [], []
                        for _ in range(runs):
                            a = time.perf_counter()
                            await s.call_tool("noop", {"x": "x"})
                            noop.append(time.perf_counter() - a)
                        for _ in range(20):
                            a = time.perf_counter()
                            await s.call_tool("work", {"n": 200000})
                            wk.append(time.perf_counter() - a)
                        return n, lists, noop, wk

        n, lists, noop, wk = anyio.run(session_bench)

        async def static_list():
            from mcp.client.session import ClientSession
            from mcp.client.stdio import StdioServerParameters, stdio_client

            env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
            gen = Path(work) / "static500.el"
            gen.write_text(
                ";;; -*- lexical-binding: t; -*-\n"
                + "".join(
                    f'(gptel-make-tool :name "t{i:03d}" :description "Tool {i}" '
                    ':args (list \'(:name "q" :type string :description "a query") '
                    '\'(:name "mode" :type string :enum ["a" "b"] :optional t)) '
                    ":function #'ignore)\n"
                    for i in range(500)
                ),
                encoding="utf-8",
            )
            params = StdioServerParameters(
                command=sys.executable, args=["-m", "plistspec", "serve", str(gen)], env=env
            )
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (r, w):
                    async with ClientSession(r, w) as s:
                        await s.initialize()
                        out = []
                        for _ in range(10):
                            a = time.perf_counter()
                            m = len((await s.list_tools()).tools)
                            out.append(time.perf_counter() - a)
                        return m, out

        m, static_lists = anyio.run(static_list)
    finally:
        emacs.stop()
        shutil.rmtree(work, ignore_errors=True)

    print(f"tool function's own run time (noop):        {own_noop:8.3f} ms")
    print(f"tools/call noop, median of {runs}:            {median_ms(noop):8.3f} ms")
    print(f"  overhead over the function:               {median_ms(noop) - own_noop:8.3f} ms")
    print(f"tool function's own run time (work):        {own_work:8.3f} ms")
    print(f"tools/call work, median of 20:              {median_ms(wk):8.3f} ms")
    print(f"  overhead over the function:               {median_ms(wk) - own_work:8.3f} ms")
    print(f"one request over the server socket:         {socket_ms:8.3f} ms")
    print(f"one emacsclient --eval t (for comparison):  {emacsclient_ms:8.3f} ms")
    print(f"tools/list, {n} tools from the running Emacs: {median_ms(lists):8.3f} ms")
    print(f"tools/list, {m} tools from a file (static):   {median_ms(static_lists):8.3f} ms")


if __name__ == "__main__":
    main()
