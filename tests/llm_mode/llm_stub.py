"""A local stand-in for the six APIs llm 0.31.1 speaks, streaming included.

An HTTP server on 127.0.0.1 (a free port) answering OpenAI Chat Completions
(``/v1/chat/completions``: llm-openai-compatible), OpenAI Responses (``/v1/responses``:
llm-openai), Anthropic Messages (``/v1/messages``: llm-claude), Gemini ``generateContent``
and ``streamGenerateContent`` (llm-gemini, and llm-vertex, whose URL the harness points
here) and Ollama ``/api/chat``. Non-streaming answers are those of the gptel-mode stub
(:func:`stub_provider._answer`); a request whose body says ``"stream": true`` (or a
``streamGenerateContent`` path) is answered as each API streams: server-sent events for
OpenAI, Responses and Anthropic, a JSON array for Gemini, JSON lines for Ollama.

Each request is recorded with its path, protocol and body. A request belongs to the
scenario its text names (``scenario-N``) and takes the next turn of ``script[N]``: a list
of tool calls ``[name, arguments]`` (arguments a dict, or for the OpenAI APIs a string
sent as it is) or a text; with the turns used up it answers a text. A scripted name the
request does not declare is matched to the declared name lowering made of it (``=NAME``:
sent as NAME, declared or not).
"""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler
from typing import Any

from stub_provider import StubProvider, _answer, _as_declared
from stub_provider import _args_text as _text

__all__ = ["LlmStub", "declared", "history_problems"]


def protocol_of(path: str) -> str:
    if path.startswith("/v1/chat/completions"):
        return "openai"
    if path.startswith("/v1/responses"):
        return "openai-responses"
    if path.startswith("/v1/messages"):
        return "anthropic"
    if ":generateContent" in path or ":streamGenerateContent" in path:
        return "gemini"
    if path.startswith("/api/chat"):
        return "ollama"
    return "unknown"


def declared(body: dict[str, Any]) -> list[str]:
    """The tool names a request body declares."""
    names = []
    for t in body.get("tools") or []:
        decls = t.get("function_declarations") or t.get("functionDeclarations") or [t]
        for d in decls:
            f = d.get("function") or d
            if isinstance(f.get("name"), str):
                names.append(f["name"])
    return names


def history_problems(body: dict[str, Any], protocol: str) -> list[str]:
    """What a provider would refuse in the conversation a request carries: a tool call
    without its result (or the other way round), arguments that are not JSON."""
    uses: list[str] = []
    results: list[str] = []
    bad: list[str] = []
    if protocol == "openai":
        for m in body.get("messages") or []:
            for c in m.get("tool_calls") or []:
                uses.append(c["id"])
                try:
                    json.loads(c["function"]["arguments"])
                except (ValueError, TypeError):
                    bad.append(f"arguments not JSON: {c['function']['arguments']!r}")
            if m.get("role") == "tool":
                results.append(m.get("tool_call_id"))
    elif protocol == "openai-responses":
        for item in body.get("input") or []:
            if item.get("type") == "function_call":
                uses.append(item["call_id"])
                try:
                    json.loads(item["arguments"])
                except (ValueError, TypeError):
                    bad.append(f"arguments not JSON: {item['arguments']!r}")
            if item.get("type") == "function_call_output":
                results.append(item["call_id"])
    elif protocol == "anthropic":
        for m in body.get("messages") or []:
            for part in m.get("content") if isinstance(m.get("content"), list) else []:
                if part.get("type") == "tool_use":
                    uses.append(part["id"])
                    if not isinstance(part.get("input"), dict):
                        bad.append(f"input not an object: {part.get('input')!r}")
                if part.get("type") == "tool_result":
                    results.append(part["tool_use_id"])
    elif protocol == "gemini":
        for c in body.get("contents") or []:
            for part in c.get("parts") or []:
                if "functionCall" in part:
                    uses.append(part["functionCall"]["name"])
                    if not isinstance(part["functionCall"].get("args", {}), dict):
                        bad.append("args not an object")
                if "functionResponse" in part:
                    results.append(part["functionResponse"]["name"])
    elif protocol == "ollama":
        for m in body.get("messages") or []:
            uses.extend(c["function"]["name"] for c in m.get("tool_calls") or [])
            if m.get("role") == "tool":
                results.append(m.get("tool_name"))
    if sorted(uses) != sorted(results):
        bad.append(f"tool uses {sorted(uses)} but results {sorted(results)}")
    return bad


def _sse(events: list[tuple[str | None, Any]]) -> bytes:
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {data if isinstance(data, str) else json.dumps(data)}\n\n")
    return "".join(out).encode()


def stream(protocol: str, turn: Any, n: int) -> tuple[str, bytes]:
    """(content type, body) of a streamed answer."""
    calls = turn if isinstance(turn, list) else None
    text = turn if isinstance(turn, str) else "done"
    if protocol == "openai":
        if calls:
            delta = {
                "tool_calls": [
                    {
                        "index": i,
                        "id": f"call_{n}_{i}",
                        "type": "function",
                        "function": {"name": name, "arguments": _text(a)},
                    }
                    for i, (name, a) in enumerate(calls)
                ]
            }
        else:
            delta = {"content": text}
        chunk = {"id": f"c{n}", "choices": [{"index": 0, "delta": delta}]}
        return "text/event-stream", _sse([(None, chunk), (None, "[DONE]")])
    if protocol == "openai-responses":
        events: list[tuple[str | None, Any]] = []
        for i, (name, a) in enumerate(calls or []):
            item = {
                "type": "function_call",
                "id": f"fc_{n}_{i}",
                "call_id": f"call_{n}_{i}",
                "name": name,
                "arguments": _text(a),
            }
            events.append(("response.output_item.done", {"output_index": i, "item": item}))
        if not calls:
            events.append(("response.output_text.delta", {"content_index": 0, "delta": text}))
        usage = {"input_tokens": 1, "output_tokens": 1}
        events.append(("response.completed", {"response": {"usage": usage}}))
        return "text/event-stream", _sse(events)
    if protocol == "anthropic":
        events = [("message_start", {"message": {"id": f"msg_{n}"}})]
        for i, (name, a) in enumerate(calls or []):
            block = {"type": "tool_use", "id": f"toolu_{n}_{i}", "name": name, "input": {}}
            events.append(("content_block_start", {"index": i, "content_block": block}))
            delta = {"type": "input_json_delta", "partial_json": _text(a)}
            events.append(("content_block_delta", {"index": i, "delta": delta}))
            events.append(("content_block_stop", {"index": i}))
        if not calls:
            events.append(
                ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": text}})
            )
        events.append(("message_delta", {"usage": {"input_tokens": 1, "output_tokens": 1}}))
        events.append(("message_stop", {}))
        return "text/event-stream", _sse(events)
    if protocol == "gemini":
        return "application/json", json.dumps([_answer("gemini", turn, n)]).encode()
    if protocol == "ollama":
        lines = []
        if calls:  # llm reads one tool call per streamed Ollama answer
            name, a = calls[0]
            msg = {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": f"call_{n}_0", "function": {"name": name, "arguments": a}}],
            }
        else:
            msg = {"role": "assistant", "content": text}
        lines.append({"model": "stub", "message": msg, "done": False})
        lines.append(
            {
                "model": "stub",
                "message": {"role": "assistant", "content": ""},
                "done": True,
                "prompt_eval_count": 1,
                "eval_count": 1,
            }
        )
        return "application/x-ndjson", "".join(json.dumps(x) + "\n" for x in lines).encode()
    return "application/json", b"{}"


class LlmStub(StubProvider):
    """The server; ``with LlmStub() as stub:`` starts and stops it (the gptel-mode stub's
    server, thread and recording, with this module's answers)."""

    def __init__(self) -> None:
        super().__init__()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                ctype, data = stub.answer(self.path, body)
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server.RequestHandlerClass = Handler

    def answer(self, path: str, body: dict[str, Any]) -> tuple[str, bytes]:
        """Record the request ``body`` sent to ``path``; (content type, answer)."""
        protocol = protocol_of(path)
        m = re.search(r"scenario-(\d+)", json.dumps(body))
        scenario = int(m.group(1)) if m else -1
        streaming = body.get("stream") is True or ":streamGenerateContent" in path
        with self._lock:
            n = len(self.requests)
            self.requests.append(
                {
                    "path": path,
                    "protocol": protocol,
                    "body": body,
                    "scenario": scenario,
                    "streaming": streaming,
                }  # fmt: skip
            )
            turns = self.script.get(scenario) or []
            turn = turns.pop(0) if turns else "done"
        if isinstance(turn, list):
            names = declared(body)
            turn = [
                (name[1:] if name.startswith("=") else _as_declared(name, names), a)
                for name, a in turn
            ]
        if streaming:
            return stream(protocol, turn, n)
        answer = _answer(protocol, turn, n)
        if protocol == "ollama":  # llm reads Ollama's call as (id function)
            msg = answer.get("message") or {}
            msg["tool_calls"] = [
                {"id": f"call_{n}_{i}", **c} for i, c in enumerate(msg.get("tool_calls") or [])
            ]
        return "application/json", json.dumps(answer).encode()
