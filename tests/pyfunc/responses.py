"""Canned provider responses that call one tool with given arguments, per transport.

The shapes follow each provider's documented wire format (OpenAI Chat Completions, OpenAI
Responses, Anthropic Messages), non-streaming (one JSON body) and streaming (server-sent
events, the arguments split into several deltas as providers send them). The library's own
parser reads them in tests/pyfunc/drive_libraries.el.
"""

from __future__ import annotations

import json

GPTEL_TRANSPORTS = (
    "openai",
    "openai-stream",
    "responses",
    "responses-stream",
    "anthropic",
    "anthropic-stream",
)
LLM_TRANSPORTS = (
    "openai-compatible",
    "openai-compatible-stream",
    "openai",
    "openai-stream",
    "claude",
    "claude-stream",
)


def _chunks(text: str, n: int = 7) -> list[str]:
    return [text[i : i + n] for i in range(0, len(text), n)] or [""]


def _sse(events: list[tuple[str | None, object]]) -> str:
    out = []
    for event, data in events:
        head = f"event: {event}\n" if event else ""
        body = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        out.append(f"{head}data: {body}\n\n")
    return "".join(out)


def chat(name: str, args: str) -> str:
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": name, "arguments": args},
                            }
                        ],
                    },
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
        ensure_ascii=False,
    )


def chat_stream(name: str, args: str) -> str:
    first = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": ""},
    }
    events: list[tuple[str | None, object]] = [
        (
            None,
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {"role": "assistant", "content": None, "tool_calls": [first]},
                    }
                ]
            },
        )
    ]
    for c in _chunks(args):
        delta = {"tool_calls": [{"index": 0, "function": {"arguments": c}}]}
        events.append((None, {"choices": [{"index": 0, "delta": delta}]}))
    events.append((None, {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    events.append((None, "[DONE]"))
    return _sse(events)


def _fc_item(name: str, args: str) -> dict:
    return {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": name,
        "arguments": args,
        "status": "completed",
    }


def responses(name: str, args: str) -> str:
    return json.dumps(
        {
            "id": "resp_1",
            "object": "response",
            "status": "completed",
            "output": [_fc_item(name, args)],
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
        },
        ensure_ascii=False,
    )


def responses_stream(name: str, args: str) -> str:
    added = dict(_fc_item(name, ""), status="in_progress")
    events: list[tuple[str | None, object]] = [
        (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": added},
        ),
    ]
    for c in _chunks(args):
        events.append(
            (
                "response.function_call_arguments.delta",
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": "fc_1",
                    "output_index": 0,
                    "delta": c,
                },
            )
        )
    events.append(
        (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": 0, "item": _fc_item(name, args)},
        )
    )
    events.append(
        (
            "response.completed",
            {
                "type": "response.completed",
                "response": {
                    "id": "resp_1",
                    "status": "completed",
                    "output": [_fc_item(name, args)],
                    "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
                },
            },
        )
    )
    return _sse(events)


def anthropic(name: str, args: str) -> str:
    return (
        '{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",'
        ' "content": [{"type": "tool_use", "id": "toolu_1", "name": '
        + json.dumps(name)
        + ', "input": '
        + args
        + '}], "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}}'
    )


def anthropic_stream(name: str, args: str) -> str:
    events: list[tuple[str | None, object]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "claude",
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_1", "name": name, "input": {}},
            },
        ),
    ]
    for c in ["", *_chunks(args)]:
        events.append(
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": c},
                },
            )
        )
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events)


BUILDERS = {
    ("gptel", "openai"): chat,
    ("gptel", "openai-stream"): chat_stream,
    ("gptel", "responses"): responses,
    ("gptel", "responses-stream"): responses_stream,
    ("gptel", "anthropic"): anthropic,
    ("gptel", "anthropic-stream"): anthropic_stream,
    ("llm", "openai-compatible"): chat,
    ("llm", "openai-compatible-stream"): chat_stream,
    ("llm", "openai"): responses,
    ("llm", "openai-stream"): responses_stream,
    ("llm", "claude"): anthropic,
    ("llm", "claude-stream"): anthropic_stream,
}


def response(library: str, transport: str, name: str, args: str) -> str:
    """The response text of ``transport`` calling tool ``name`` with JSON ``args``."""
    return BUILDERS[(library, transport)](name, args)
