"""``plistspec worker``: the persistent Python end of the bridge, one per module.

Owns: the loop the Elisp runtime of generated tools (``elisp/plistspec-bridge.el``) talks
to. One request per line on standard input: ``[ID, TARGET, DIALECT]`` as JSON, a TAB, then the tool's arguments as
a JSON object (what ``plistspec call --from DIALECT`` reads). One answer per line on the
original standard output: ``{"id": ID, "code": C, "text": T}`` in ASCII-only JSON, where ``C``
and ``T`` are exactly what ``plistspec call`` would exit with and print. Loaded tools are kept
(the Elisp side restarts the worker when the module's file changes). The tools' own output
cannot reach the protocol: file descriptors 0, 1 and 2 point at ``/dev/null`` while they run.
The loop ends at end of input (Emacs closed the pipe or exited).
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["serve"]


def _isolate() -> tuple[Any, Any]:
    """Keep the real stdin/stdout for the protocol; 0, 1 and 2 become /dev/null."""
    import sys

    sys.stdout.flush()
    sys.stderr.flush()
    real_in = os.fdopen(os.dup(0), "rb", buffering=0)
    real_out = os.fdopen(os.dup(1), "wb", buffering=0)
    null_r = os.open(os.devnull, os.O_RDONLY)
    null_w = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null_r, 0)
    os.dup2(null_w, 1)
    os.dup2(null_w, 2)
    os.close(null_r)
    os.close(null_w)
    return real_in, real_out


def _readline(f: Any, buf: bytearray) -> bytes | None:
    """The next line of ``f`` (``buf`` holds what was read past the last one). Each byte
    is searched once: a long line costs its length, not its length squared."""
    start = 0
    while True:
        i = buf.find(b"\n", start)
        start = len(buf)
        if i >= 0:
            line = bytes(buf[:i])
            del buf[: i + 1]
            return line
        chunk = f.read(65536)
        if not chunk:
            return None
        buf.extend(chunk)


def answer(line: bytes, tools: dict[str, Any]) -> dict[str, Any] | None:
    """The answer to one request line (None when it carries no id to answer to)."""
    from plistspec.pyfunc.bridge import UNLOADABLE, CallResult, _clean, load_tool, run

    head, _, rest = line.partition(b"\t")
    try:
        req_id, target, dialect = json.loads(head.decode("utf-8", "replace"))
    except (ValueError, TypeError):
        return None
    if not isinstance(target, str) or dialect not in ("gptel", "llm", None):
        return {"id": req_id, "code": UNLOADABLE, "text": "Error: malformed bridge request"}
    tool = tools.get(target)
    if tool is None:
        tool = load_tool(target)
        if not isinstance(tool, CallResult):
            tools[target] = tool
    if isinstance(tool, CallResult):
        r = _clean(tool)
    else:
        r = run(tool, rest.decode("utf-8", "replace"), from_elisp=dialect)
    return {"id": req_id, "code": r.code, "text": r.text}


def serve() -> int:
    """Answer requests until end of input; returns the exit status."""
    import importlib

    from plistspec.pyfunc.bridge import CALL_PRELOAD

    for name in CALL_PRELOAD:
        importlib.import_module(name)
    real_in, real_out = _isolate()
    tools: dict[str, Any] = {}
    buf = bytearray()
    while True:
        line = _readline(real_in, buf)
        if line is None:
            return 0
        try:
            reply = answer(line, tools)
        except BaseException as e:  # a bug of ours, or the tool escaped everything
            if isinstance(e, KeyboardInterrupt):
                raise
            reply = {"id": _id_of(line), "code": 3, "text": f"Error: plistspec worker: {e!r}"}
        if reply is None or reply.get("id") is None:
            continue
        real_out.write(json.dumps(reply, ensure_ascii=True).encode("ascii") + b"\n")


def _id_of(line: bytes) -> Any:
    try:
        return json.loads(line.partition(b"\t")[0])[0]
    except Exception:
        return None
