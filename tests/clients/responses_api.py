"""The OpenAI Responses API as Codex CLI speaks it, for ``ScriptedServer``.

Codex (0.171, a custom provider with ``wire_api = "responses"``) sends every model turn as
``POST {base_url}/responses`` with ``"stream": true`` and reads server-sent events:
``response.created``, per output item ``response.output_item.added`` / ``.done`` (text also as
``response.output_text.delta``), then ``response.completed`` (without it Codex retries the
turn). The whole conversation comes back in the next request's ``input``: the user's messages,
the calls the model made (``function_call`` / ``custom_tool_call``) and their results
(``function_call_output`` / ``custom_tool_call_output``, ``output`` a string).

Tools (what Codex lists in ``tools``): the shell is the function ``exec_command`` (``cmd``);
edits are ``apply_patch``, a *custom* (freeform) tool whose call carries the patch text as
``input``, not JSON arguments. A ``ToolCall`` for a tool the request lists as custom is sent
as a ``custom_tool_call`` with ``arguments["input"]`` as its input; every other one as a
``function_call`` with JSON ``arguments``. MCP tools reach the model in a ``namespace`` tool
(``mcp__<server>__``) whose functions keep their own names: ``ToolCall`` takes the namespace
and the name joined (``mcp__memlode__recall_memory``), sent as ``name`` plus ``namespace``.

Anything else (a WebSocket upgrade, ``GET /models``) is answered at once without consulting
the script: an upgrade is refused with 426 so that Codex falls back to HTTP immediately.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.clients.scripted import Reply, Request, ScriptedServer, send_json, sse, start_sse

__all__ = [
    "Script",
    "handler",
    "input_items",
    "is_prompt",
    "is_turn",
    "item_text",
    "last_prompt",
    "tool_outputs",
    "turn_items",
    "turn_outputs",
    "turns",
    "user_texts",
]

Script = Callable[[Request], Reply]
_ids = itertools.count(1)


def is_turn(request: Request) -> bool:
    """A model turn (what the script answers), not a side request."""
    return request.method == "POST" and request.path.rstrip("/").endswith("/responses")


def turns(server: ScriptedServer) -> list[Request]:
    return [r for r in list(server.requests) if is_turn(r)]


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def input_items(request: Request) -> list[dict[str, Any]]:
    items = request.body.get("input")
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []


def item_text(item: dict[str, Any]) -> str:
    """The text of a message item (its ``input_text``/``output_text`` parts joined)."""
    return _text_of(item.get("content"))


def is_prompt(item: dict[str, Any]) -> bool:
    """A user message the user typed: Codex's own user-role messages (``<environment_context>``
    and the like) start with a tag."""
    if item.get("type", "message") != "message" or item.get("role") != "user":
        return False
    return not item_text(item).lstrip().startswith("<")


def user_texts(request: Request) -> list[str]:
    """The text of every user message in the request's input, oldest first (Codex's
    environment context included)."""
    return [
        item_text(item)
        for item in input_items(request)
        if item.get("type", "message") == "message" and item.get("role") == "user"
    ]


def last_prompt(request: Request) -> str:
    """The last prompt the user typed, or ""."""
    prompts = [item_text(i) for i in input_items(request) if is_prompt(i)]
    return prompts[-1] if prompts else ""


def turn_items(request: Request) -> list[dict[str, Any]]:
    """The input items after the last prompt: the hook context Codex added after it
    (UserPromptSubmit's, as developer messages), this turn's calls and their results."""
    items = input_items(request)
    last = max((n for n, item in enumerate(items) if is_prompt(item)), default=-1)
    return items[last + 1 :]


def tool_outputs(request: Request) -> list[str]:
    """The output of every tool call in the request's input, oldest first."""
    return [_output(i) for i in input_items(request) if i.get("type") in _OUTPUTS]


def turn_outputs(request: Request) -> list[str]:
    """The output of every tool call of the current turn (after the last prompt)."""
    return [_output(i) for i in turn_items(request) if i.get("type") in _OUTPUTS]


_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def _output(item: dict[str, Any]) -> str:
    output = item.get("output")
    return output if isinstance(output, str) else json.dumps(output)


def _custom_tools(request: Request) -> set[str]:
    tools = request.body.get("tools")
    if not isinstance(tools, list):
        return set()
    return {str(t.get("name")) for t in tools if isinstance(t, dict) and t.get("type") == "custom"}


def _tool_types(request: Request) -> set[str]:
    tools = request.body.get("tools")
    if not isinstance(tools, list):
        return set()
    return {str(t.get("type")) for t in tools if isinstance(t, dict)}


def _namespaces(request: Request) -> list[str]:
    """Tool namespaces the model can call into: listed in ``tools`` or loaded by a
    ``tool_search`` (Codex defers MCP tools behind it), longest first."""
    found: list[object] = []
    for key in ("tools", "input"):
        items = request.body.get(key)
        if not isinstance(items, list):
            continue
        for item in items:
            if not isinstance(item, dict):
                continue
            tools = item.get("tools") if item.get("type") == "tool_search_output" else [item]
            for tool in tools if isinstance(tools, list) else []:
                if isinstance(tool, dict) and tool.get("type") == "namespace":
                    found.append(tool.get("name"))
    return sorted({str(name) for name in found}, key=len, reverse=True)


def _items(reply: Reply, request: Request) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.text:
        items.append(
            {
                "type": "message",
                "role": "assistant",
                "id": f"msg_{next(_ids)}",
                "status": "completed",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    custom = _custom_tools(request)
    namespaces = _namespaces(request)
    for call in reply.tool_calls:
        n = next(_ids)
        if call.name == "tool_search" and "tool_search" in _tool_types(request):
            items.append(
                {
                    "type": "tool_search_call",
                    "id": f"ts_{n}",
                    "call_id": f"call_{n}",
                    "status": "completed",
                    "execution": "client",
                    "arguments": call.arguments,
                }
            )
            continue
        if call.name in custom:
            items.append(
                {
                    "type": "custom_tool_call",
                    "id": f"ctc_{n}",
                    "call_id": f"call_{n}",
                    "status": "completed",
                    "name": call.name,
                    "input": str(call.arguments.get("input", "")),
                }
            )
            continue
        item: dict[str, Any] = {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": f"call_{n}",
            "status": "completed",
            "name": call.name,
            "arguments": json.dumps(call.arguments),
        }
        space = next((s for s in namespaces if call.name.startswith(s)), None)
        if space is not None and call.name != space:
            item["namespace"] = space
            item["name"] = call.name[len(space) :].lstrip("_")
        items.append(item)
    return items


def _usage() -> dict[str, Any]:
    return {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }


def _stream(handler: BaseHTTPRequestHandler, reply: Reply, request: Request) -> None:
    response_id = f"resp_{next(_ids)}"
    base = {"id": response_id, "object": "response", "model": request.body.get("model", "")}
    start_sse(handler)
    sse(
        handler,
        {"type": "response.created", "response": {**base, "status": "in_progress", "output": []}},
        "response.created",
    )
    items = _items(reply, request)
    for index, item in enumerate(items):
        opened = {**item, "status": "in_progress"}
        if item["type"] == "message":
            opened["content"] = []
        sse(
            handler,
            {"type": "response.output_item.added", "output_index": index, "item": opened},
            "response.output_item.added",
        )
        if item["type"] == "message":
            sse(
                handler,
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "delta": reply.text,
                },
                "response.output_text.delta",
            )
        sse(
            handler,
            {"type": "response.output_item.done", "output_index": index, "item": item},
            "response.output_item.done",
        )
    done = {**base, "status": "completed", "output": items, "usage": _usage()}
    sse(handler, {"type": "response.completed", "response": done}, "response.completed")


def handler(script: Script) -> Callable[[ScriptedServer, BaseHTTPRequestHandler, Request], None]:
    """A ``ScriptedServer`` handler: model turns answered from ``script``, the rest at once."""

    def handle(server: ScriptedServer, http: BaseHTTPRequestHandler, request: Request) -> None:
        if request.headers.get("upgrade", "").lower() == "websocket":
            send_json(http, 426, {"error": {"message": "no websockets here"}})
        elif is_turn(request):
            _stream(http, script(request), request)
        elif request.method == "GET" and request.path.rstrip("/").split("?")[0].endswith("/models"):
            send_json(http, 200, {"object": "list", "data": [], "models": []})
        else:
            send_json(http, 404, {"error": {"message": f"not scripted: {request.path}"}})

    return handle
