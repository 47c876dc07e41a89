"""A local stand-in for the LLM providers, for gptel's non-streaming path.

An HTTP server on 127.0.0.1 (a free port) that speaks enough of Gemini
``generateContent``, OpenAI Chat Completions and Responses, Anthropic Messages and
Ollama ``/api/chat`` for gptel to send it real requests. It records every request body
(with the path it was sent to) and answers from a script. A request belongs to the
scenario its text names (``scenario-N``); each request of scenario N takes the next turn of
``script[N]``, a list of tool calls ``(name, arguments)`` or a text; when the scenario's
turns are used up it answers a text. Like a model, it calls a tool by the name the request
declares it under: a scripted name the request does not declare is matched to the
declared name it was mapped to (``a.b/c`` → ``a_b_c``, or a longer name cut and hashed).
Arguments are sent as given (a dict, or, for the OpenAI APIs, whose arguments are a JSON
string, a string as it is).
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["StubProvider"]


def _protocol(path: str) -> str:
    if path.startswith("/v1/chat/completions"):
        return "openai"
    if path.startswith("/v1/responses"):
        return "openai-responses"
    if path.startswith("/v1/messages"):
        return "anthropic"
    if ":generateContent" in path:
        return "gemini"
    if path.startswith("/api/chat"):
        return "ollama"
    return "unknown"


def _args_text(args: Any) -> str:
    return args if isinstance(args, str) else json.dumps(args)


def _answer(protocol: str, turn: Any, n: int) -> dict[str, Any]:
    calls = turn if isinstance(turn, list) else None
    text = turn if isinstance(turn, str) else "done"
    if protocol == "openai":
        msg: dict[str, Any] = {"role": "assistant", "content": None if calls else text}
        if calls:
            msg["tool_calls"] = [
                {
                    "id": f"call_{n}_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": _args_text(a)},
                }
                for i, (name, a) in enumerate(calls)
            ]
        return {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "choices": [
                {"index": 0, "message": msg, "finish_reason": "tool_calls" if calls else "stop"}
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    if protocol == "openai-responses":
        if calls:
            output = [
                {
                    "type": "function_call",
                    "id": f"fc_{n}_{i}",
                    "call_id": f"call_{n}_{i}",
                    "name": name,
                    "arguments": _args_text(a),
                    "status": "completed",
                }
                for i, (name, a) in enumerate(calls)
            ]
        else:
            output = [
                {
                    "type": "message",
                    "id": f"msg_{n}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            ]
        return {
            "id": f"resp_{n}",
            "object": "response",
            "status": "completed",
            "output": output,
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
        }
    if protocol == "anthropic":
        if calls:
            content = [
                {"type": "tool_use", "id": f"toolu_{n}_{i}", "name": name, "input": a}
                for i, (name, a) in enumerate(calls)
            ]
        else:
            content = [{"type": "text", "text": text}]
        return {
            "id": f"msg_{n}",
            "type": "message",
            "role": "assistant",
            "model": "stub",
            "content": content,
            "stop_reason": "tool_use" if calls else "end_turn",
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    if protocol == "gemini":
        if calls:
            parts = [{"functionCall": {"name": name, "args": a}} for name, a in calls]
        else:
            parts = [{"text": text}]
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 1,
                "candidatesTokenCount": 1,
                "totalTokenCount": 2,
            },
        }
    if protocol == "ollama":
        msg = {"role": "assistant", "content": "" if calls else text}
        if calls:
            msg["tool_calls"] = [{"function": {"name": name, "arguments": a}} for name, a in calls]
        return {
            "model": "stub",
            "created_at": "2026-01-01T00:00:00Z",
            "message": msg,
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 1,
            "eval_count": 1,
        }
    return {"error": {"message": f"unknown endpoint for {protocol}"}}


def _declared(body: dict[str, Any]) -> list[str]:
    names = []
    tools = body.get("tools") or (body.get("toolConfig") or {}).get("tools") or []
    for t in tools:
        for d in t.get("functionDeclarations") or [t]:
            f = d.get("function") or d.get("toolSpec") or d
            if isinstance(f.get("name"), str):
                names.append(f["name"])
    return names


def _as_declared(name: str, declared: list[str]) -> str:
    if name in declared:
        return name
    plain = re.sub(r"[^A-Za-z0-9_-]", "_", name)
    for d in declared:
        if d == plain or (len(plain) > 50 and d.startswith(plain[:40])):
            return d
    return name


class StubProvider:
    """The server; ``with StubProvider() as stub:`` starts and stops it."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []  # {"path", "protocol", "body"}
        self.script: dict[int, list[Any]] = {}
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                protocol = _protocol(self.path)
                m = re.search(r"scenario-(\d+)", json.dumps(body))
                scenario = int(m.group(1)) if m else -1
                with stub._lock:
                    n = len(stub.requests)
                    stub.requests.append(
                        {
                            "path": self.path,
                            "protocol": protocol,
                            "body": body,
                            "scenario": scenario,
                        }
                    )
                    turns = stub.script.get(scenario) or []
                    turn = turns.pop(0) if turns else "done"
                if isinstance(turn, list):
                    declared = _declared(body)
                    turn = [(_as_declared(name, declared), a) for name, a in turn]
                data = json.dumps(_answer(protocol, turn, n)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> StubProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"
