"""The OpenAI Chat Completions API as OpenCode speaks it, for ``ScriptedServer``.

OpenCode (1.18, a custom provider ``"npm": "@ai-sdk/openai-compatible"`` with
``options.baseURL = http://127.0.0.1:PORT/v1``; that package is bundled in the binary, nothing
is installed at run time) sends every model request as ``POST {baseURL}/chat/completions`` with
``"stream": true`` and ``stream_options.include_usage``, and reads server-sent ``data:`` chunks
(``object: "chat.completion.chunk"``): ``choices[0].delta.content`` for text,
``choices[0].delta.tool_calls`` (``index``, ``id``, ``function.name``/``arguments``) for calls,
then a chunk with ``finish_reason`` (``stop`` or ``tool_calls``), one with ``usage`` and
``data: [DONE]``. The whole conversation comes back in the next request's ``messages``:
``system``, ``user`` (``content`` a string or a list of text parts), ``assistant`` (with
``tool_calls``) and ``tool`` (``tool_call_id``, ``content``) messages.

Side requests never reach the script: OpenCode asks the same endpoint (the small model, no
tools) for a session title; ``is_turn`` tells them apart and they get a fixed title. ``GET
/models`` gets the configured model list.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.clients.scripted import Reply, Request, ScriptedServer, send_json, sse, start_sse

__all__ = [
    "TITLE",
    "Script",
    "handler",
    "is_turn",
    "system_text",
    "tool_outputs",
    "turns",
    "user_texts",
]

Script = Callable[[Request], Reply]
TITLE = "Scripted session"
_ids = itertools.count(1)


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type", "text") == "text"
        )
    return ""


def _messages(request: Request) -> list[dict[str, Any]]:
    messages = request.body.get("messages")
    return [m for m in messages if isinstance(m, dict)] if isinstance(messages, list) else []


def is_turn(request: Request) -> bool:
    """A model turn of the agent (what the script answers): a chat completion that offers
    tools. OpenCode's title request offers none."""
    return (
        request.method == "POST"
        and request.path.rstrip("/").endswith("/chat/completions")
        and bool(request.body.get("tools"))
    )


def turns(server: ScriptedServer) -> list[Request]:
    return [r for r in list(server.requests) if is_turn(r)]


def system_text(request: Request) -> str:
    """Every system message of the request, joined."""
    return "\n".join(
        _text_of(m.get("content")) for m in _messages(request) if m.get("role") == "system"
    )


def user_texts(request: Request) -> list[str]:
    """The text of every user message, oldest first."""
    return [_text_of(m.get("content")) for m in _messages(request) if m.get("role") == "user"]


def tool_outputs(request: Request) -> list[str]:
    """The content of every tool message (a tool's result), oldest first."""
    return [_text_of(m.get("content")) for m in _messages(request) if m.get("role") == "tool"]


def _chunk(request: Request, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{next(_ids)}",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": request.body.get("model", ""),
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _stream(handler: BaseHTTPRequestHandler, reply: Reply, request: Request) -> None:
    start_sse(handler)
    sse(handler, _chunk(request, {"role": "assistant", "content": ""}))
    if reply.text:
        sse(handler, _chunk(request, {"content": reply.text}))
    for index, call in enumerate(reply.tool_calls):
        delta = {
            "tool_calls": [
                {
                    "index": index,
                    "id": f"call_{next(_ids)}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
            ]
        }
        sse(handler, _chunk(request, delta))
    sse(handler, _chunk(request, {}, "tool_calls" if reply.tool_calls else "stop"))
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    sse(handler, {**_chunk(request, {}), "choices": [], "usage": usage})
    handler.wfile.write(b"data: [DONE]\n\n")
    handler.wfile.flush()


def handler(script: Script, models: tuple[str, ...] = ("scripted",)) -> Any:
    """A ``ScriptedServer`` handler answering agent turns from ``script``."""

    def handle(server: ScriptedServer, http: BaseHTTPRequestHandler, request: Request) -> None:
        path = request.path.split("?")[0].rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            data = [{"id": m, "object": "model", "owned_by": "scripted"} for m in models]
            send_json(http, 200, {"object": "list", "data": data})
        elif request.method == "POST" and path.endswith("/chat/completions"):
            reply = script(request) if is_turn(request) else Reply(text=TITLE)
            _stream(http, reply, request)
        else:
            send_json(http, 404, {"error": {"message": f"no {request.method} {path} here"}})

    return handle
