"""The Anthropic Messages API as Claude Code uses it, answered from a script.

Claude Code calls ``POST /v1/messages?beta=true`` with ``"stream": true`` for its main loop
and answers with server-sent events (``message_start``; per block ``content_block_start``,
``content_block_delta`` with ``text_delta`` or ``input_json_delta``, ``content_block_stop``;
``message_delta`` with the ``stop_reason``; ``message_stop``). A non-streaming request gets the
same message as one JSON object. ``/v1/messages/count_tokens`` gets an estimate.

Not every request is the conversation: Claude Code also asks a small model for a session
title, checks its quota with a one-token request, and sends the conversation back with a
summary instruction when it compacts. ``side_reply`` recognises those and answers them itself,
so a scenario's script only ever sees the turns of the conversation (``is_side_request``).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.clients.scripted import (
    Handler,
    Reply,
    Request,
    ScriptedServer,
    send_json,
    sse,
    start_sse,
)

__all__ = [
    "COMPACT_SUMMARY",
    "COMPACT_SUMMARY_MARK",
    "Script",
    "handler",
    "hook_context",
    "is_compaction",
    "is_side_request",
    "last_user_text",
    "message_texts",
    "side_reply",
    "system_text",
    "tool_names",
    "tool_results",
    "tool_uses",
    "turn_results",
    "user_texts",
]

Script = Callable[[Request], Reply]

# What a compaction request is answered with (Claude Code keeps the text inside <summary>);
# the mark finds it again wherever it was stored.
COMPACT_SUMMARY_MARK = "Scripted compaction summary."
COMPACT_SUMMARY = (
    "<analysis>The conversation so far.</analysis>\n<summary>\n"
    f"{COMPACT_SUMMARY_MARK}\n"
    "1. Primary Request and Intent:\n   The user asked for a fix.\n"
    "2. Errors and Fixes:\n   None beyond those already handled.\n</summary>"
)

_ids = itertools.count(1)


# --- reading a request ------------------------------------------------------------------------


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content or [] if isinstance(block, dict)]


def system_text(request: Request) -> str:
    """The system prompt as one string (Claude Code sends a list of text blocks)."""
    system = request.body.get("system") or ""
    return "\n".join(block.get("text", "") for block in _blocks(system))


def _messages(request: Request) -> list[dict[str, Any]]:
    return [m for m in request.body.get("messages") or [] if isinstance(m, dict)]


def user_texts(request: Request) -> list[str]:
    """Every text block of every user message, in order: the prompts, and the
    ``<system-reminder>`` blocks Claude Code adds before them."""
    return [
        block.get("text", "")
        for message in _messages(request)
        if message.get("role") == "user"
        for block in _blocks(message.get("content"))
        if block.get("type") == "text"
    ]


def message_texts(request: Request) -> list[str]:
    """The text of every message, whatever its role, in order: Claude Code 2.1.197 also sends
    ``role: "system"`` messages inside ``messages`` (the mid-conversation-system beta), and
    that is where hook context goes."""
    return [
        block.get("text", "")
        for message in _messages(request)
        for block in _blocks(message.get("content"))
        if block.get("type") == "text"
    ]


def hook_context(request: Request, event: str) -> list[str]:
    """What the ``event`` hooks (``SessionStart``, ``UserPromptSubmit``) handed the model as
    ``additionalContext``: Claude Code 2.1.197 writes each one into a system message as
    "<event> hook additional context: <text>", and the text runs to the next blank line."""
    prefix = f"{event} hook additional context: "
    found = []
    for text in message_texts(request):
        start = text.find(prefix)
        while start >= 0:
            start += len(prefix)
            ends = (text.find("\n\n", start), text.find("</system-reminder>", start))
            end = min([i for i in ends if i >= 0] or [len(text)])
            found.append(text[start:end])
            start = text.find(prefix, end)
    return found


def _is_real_prompt(text: str) -> bool:
    """A text the user typed, not one Claude Code adds (reminders, hook context, commands)."""
    stripped = text.lstrip()
    return bool(stripped) and not stripped.startswith(
        ("<system-reminder>", "<command-", "<local-command-", "[Request interrupted", "Caveat:")
    )


def last_user_text(request: Request) -> str:
    """The text of the last user prompt: the last user text block that is neither a
    ``<system-reminder>`` (where hook context goes) nor a slash command's echo."""
    for text in reversed(user_texts(request)):
        if _is_real_prompt(text):
            return text
    return ""


def tool_uses(request: Request) -> list[dict[str, Any]]:
    """Every tool_use block the model sent so far (``id``, ``name``, ``input``), in order."""
    return [
        block
        for message in _messages(request)
        if message.get("role") == "assistant"
        for block in _blocks(message.get("content"))
        if block.get("type") == "tool_use"
    ]


def tool_names(request: Request) -> list[str]:
    """The names of the tools the request offers the model."""
    return [str(tool.get("name")) for tool in request.body.get("tools") or []]


def _results(messages: list[dict[str, Any]], names: dict[Any, Any]) -> list[dict[str, Any]]:
    results = []
    for message in messages:
        if message.get("role") != "user":
            continue
        for block in _blocks(message.get("content")):
            if block.get("type") != "tool_result":
                continue
            content = block.get("content")
            text = (
                content
                if isinstance(content, str)
                else "\n".join(part.get("text", "") for part in _blocks(content))
            )
            results.append({**block, "text": text, "name": names.get(block.get("tool_use_id"), "")})
    return results


def tool_results(request: Request) -> list[dict[str, Any]]:
    """Every tool_result so far, in order, each with its text flattened into ``text`` and the
    name of the tool it answers in ``name``."""
    names = {use.get("id"): use.get("name") for use in tool_uses(request)}
    return _results(_messages(request), names)


def turn_results(request: Request) -> list[dict[str, Any]]:
    """The tool_results since the last real prompt (as ``tool_results`` gives them): how far
    the current turn has gone."""
    messages = _messages(request)
    start = 0
    for index, message in enumerate(messages):
        texts = [b for b in _blocks(message.get("content")) if b.get("type") == "text"]
        if message.get("role") == "user" and any(_is_real_prompt(b["text"]) for b in texts):
            start = index
    names = {use.get("id"): use.get("name") for use in tool_uses(request)}
    return _results(messages[start:], names)


# --- side requests --------------------------------------------------------------------------


def is_compaction(request: Request) -> bool:
    """Claude Code compacting: the conversation sent back with a summary instruction last."""
    last = user_texts(request)[-1:] or [""]
    return "summary of the conversation" in last[0] and "<summary>" in last[0]


def is_side_request(request: Request) -> bool:
    """A request that is not a turn of the conversation: any request offering no tools (the
    title, the quota check, prefix checks), and a compaction."""
    return not request.body.get("tools") or is_compaction(request)


def side_reply(request: Request) -> Reply:
    """What a side request is answered with: a compaction summary, JSON where the system
    prompt asks for JSON (the session title), else a short text."""
    if is_compaction(request):
        return Reply(text=COMPACT_SUMMARY)
    system = system_text(request)
    if "json" in system.lower():
        return Reply(text=json.dumps({"title": "Scripted session"}))
    return Reply(text="ok")


# --- the wire format --------------------------------------------------------------------------


def _content(reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        blocks.append(
            {
                "type": "tool_use",
                "id": f"toolu_scripted_{next(_ids):04d}",
                "name": call.name,
                "input": call.arguments,
            }
        )
    return blocks


def message(reply: Reply, model: str) -> dict[str, Any]:
    """The reply as a Messages API message object."""
    return {
        "id": f"msg_scripted_{next(_ids):04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": _content(reply),
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _events(whole: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {
                **whole,
                "content": [],
                "stop_reason": None,
                "usage": {**whole["usage"], "output_tokens": 1},
            },
        },
    )
    for index, block in enumerate(whole["content"]):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_start", {"type": "content_block_start", "index": index,
                                      "content_block": start}  # fmt: skip
        yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                      "delta": delta}  # fmt: skip
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": whole["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": whole["usage"]["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def answer(handler: BaseHTTPRequestHandler, request: Request, reply: Reply) -> None:
    """Send ``reply`` the way the request asked for it: streamed or as one JSON message."""
    whole = message(reply, str(request.body.get("model") or "claude-sonnet-4-6"))
    if not request.body.get("stream"):
        send_json(handler, 200, whole)
        return
    start_sse(handler)
    for event, data in _events(whole):
        sse(handler, data, event=event)


def handler(script: Script, side: Script = side_reply) -> Handler:
    """The ``ScriptedServer`` handler: the conversation's turns go to ``script``, side
    requests to ``side``, token counts and anything else Claude Code asks get a plain answer."""

    def handle(server: ScriptedServer, http: BaseHTTPRequestHandler, request: Request) -> None:
        path = request.path.split("?", 1)[0]
        if request.method == "POST" and path.endswith("/v1/messages/count_tokens"):
            send_json(http, 200, {"input_tokens": max(1, len(request.raw) // 4)})
        elif request.method == "POST" and path.endswith("/v1/messages"):
            reply = side(request) if is_side_request(request) else script(request)
            answer(http, request, reply)
        else:
            server.problems.append(f"unexpected {request.method} {request.path}")
            error = {"type": "not_found_error", "message": request.path}
            send_json(http, 404, {"type": "error", "error": error})

    return handle
