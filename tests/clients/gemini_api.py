"""The Gemini API (``generativelanguage``, v1beta) as Gemini CLI speaks it, for ``ScriptedServer``.

Gemini CLI (``GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT``, ``GEMINI_API_KEY``) sends:

- ``POST /v1beta/models/MODEL:streamGenerateContent?alt=sse`` for the agent's turns: a body of
  ``contents`` (``role`` user/model, ``parts`` of ``text``, ``functionCall``,
  ``functionResponse``), ``systemInstruction`` and ``tools`` (``functionDeclarations``). The
  answer is server-sent events, each ``data:`` a ``GenerateContentResponse`` (``candidates[0]``
  ``content.parts``, ``finishReason`` on the last, ``usageMetadata``).
- ``POST …:generateContent`` (not streamed) for its own side questions: the model router's
  classifier, the next-speaker check, loop detection, summaries. Those carry no tool
  declarations, usually a JSON response schema; they are answered here from the schema and
  never reach the script (a script that counted them would drift with the CLI's version).
- ``POST …:countTokens``, and possibly ``GET /v1beta/models``: answered here too.

``handler(script)`` makes the ``ScriptedServer`` handler; the script sees only the agent's
turns (``is_turn``) and reads them with ``user_texts``/``function_responses``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.clients.scripted import Reply, Request, ScriptedServer, send_json, sse, start_sse

__all__ = [
    "Script",
    "function_calls",
    "function_responses",
    "handler",
    "hook_context",
    "is_turn",
    "prompt_text",
    "turn_results",
    "turns",
    "user_texts",
]

SESSION_CONTEXT = "<session_context>"  # the CLI's own first part: date, folder tree, servers
HOOK_OPEN, HOOK_CLOSE = "<hook_context>", "</hook_context>"

Script = Callable[[Request], Reply]


def _model(path: str) -> str:
    """``/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`` -> ``gemini-2.5-pro``."""
    tail = path.split("?", 1)[0].rsplit("/models/", 1)[-1]
    return tail.split(":", 1)[0]


def _method(path: str) -> str:
    head = path.split("?", 1)[0]
    return head.rsplit(":", 1)[-1] if ":" in head.rsplit("/", 1)[-1] else ""


def is_turn(request: Request) -> bool:
    """An agent turn: a generate call that declares tools (the CLI's side questions do not)."""
    if _method(request.path) not in ("streamGenerateContent", "generateContent"):
        return False
    tools = request.body.get("tools")
    if not tools:
        config = request.body.get("generationConfig") or request.body.get("config") or {}
        tools = config.get("tools") if isinstance(config, dict) else None
    return bool(tools) and any(isinstance(t, dict) and t.get("functionDeclarations") for t in tools)


def turns(requests: list[Request]) -> list[Request]:
    return [r for r in requests if is_turn(r)]


def _parts(request: Request) -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    for content in request.body.get("contents") or []:
        if not isinstance(content, dict):
            continue
        role = str(content.get("role") or "user")
        out += [(role, p) for p in content.get("parts") or [] if isinstance(p, dict)]
    return out


def user_texts(request: Request) -> list[str]:
    """Every user text part of the conversation so far, oldest first."""
    return [p["text"] for role, p in _parts(request) if role == "user" and "text" in p]


def function_responses(request: Request) -> list[dict[str, Any]]:
    """The ``functionResponse`` parts sent so far (``name``, ``response``), oldest first."""
    return [p["functionResponse"] for _role, p in _parts(request) if "functionResponse" in p]


def function_calls(request: Request) -> list[dict[str, Any]]:
    return [p["functionCall"] for _role, p in _parts(request) if "functionCall" in p]


def _is_prompt_part(part: dict[str, Any]) -> bool:
    text = part.get("text")
    if not isinstance(text, str) or part.get("thought"):
        return False
    body = text.strip()
    whole_hook = body.startswith(HOOK_OPEN) and body.endswith(HOOK_CLOSE)
    whole_hook = whole_hook and body.count(HOOK_OPEN) == 1
    return not body.startswith(SESSION_CONTEXT) and not whole_hook


def _prompt_index(request: Request) -> int:
    """Index in ``contents`` of the current prompt's user content (-1 if none)."""
    contents = request.body.get("contents") or []
    for index in range(len(contents) - 1, -1, -1):
        content = contents[index]
        if not isinstance(content, dict) or content.get("role", "user") != "user":
            continue
        if any(_is_prompt_part(p) for p in content.get("parts") or [] if isinstance(p, dict)):
            return index
    return -1


def _prompt_parts(request: Request) -> list[dict[str, Any]]:
    index = _prompt_index(request)
    if index < 0:
        return []
    parts = request.body["contents"][index].get("parts") or []
    return [p for p in parts if isinstance(p, dict)]


def _split_hook(text: str) -> tuple[str, str]:
    """A prompt part as (SessionStart's leading ``<hook_context>`` block, the rest)."""
    body = text.lstrip()
    if body.startswith(HOOK_OPEN) and HOOK_CLOSE in body:
        end = body.index(HOOK_CLOSE)
        return body[len(HOOK_OPEN) : end], body[end + len(HOOK_CLOSE) :].lstrip("\n")
    return "", text


def prompt_text(request: Request) -> str:
    """What the user typed, in the current turn: the prompt part without the context that
    SessionStart put in front of it."""
    for part in _prompt_parts(request):
        if _is_prompt_part(part):
            return _split_hook(part["text"])[1]
    return ""


def hook_context(request: Request, event: str) -> list[str]:
    """The hook context in the current prompt's content: ``SessionStart``'s (put in front of
    the prompt text, in a non-interactive run) or ``BeforeAgent``'s (a part of its own after
    the prompt, wrapped the same way)."""
    found: list[str] = []
    for part in _prompt_parts(request):
        text = part.get("text")
        if not isinstance(text, str):
            continue
        if event == "SessionStart" and _is_prompt_part(part):
            leading = _split_hook(text)[0]
            found += [leading] if leading else []
        elif event == "BeforeAgent" and not _is_prompt_part(part):
            body = text.strip()
            if body.startswith(HOOK_OPEN):
                found.append(body[len(HOOK_OPEN) : -len(HOOK_CLOSE)])
    return found


def turn_results(request: Request) -> list[dict[str, Any]]:
    """The ``functionResponse`` parts sent since the current prompt (this turn's tool results)."""
    index = _prompt_index(request)
    contents = request.body.get("contents") or []
    return [
        p["functionResponse"]
        for content in contents[index + 1 :]
        if isinstance(content, dict)
        for p in content.get("parts") or []
        if isinstance(p, dict) and "functionResponse" in p
    ]


def _usage(request: Request, text: str) -> dict[str, int]:
    prompt, out = max(1, len(request.raw) // 4), max(1, len(text) // 4)
    return {
        "promptTokenCount": prompt,
        "candidatesTokenCount": out,
        "totalTokenCount": prompt + out,
    }


def _schema_value(schema: Any) -> Any:
    """A value that fits a JSON schema (for the CLI's structured side questions)."""
    if not isinstance(schema, dict):
        return ""
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type") or "").lower()
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        return {name: _side_answer(name, sub) for name, sub in props.items()}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return schema.get("minimum", 1)  # the router's complexity_score must be 1-100
    if kind == "boolean":
        return False
    return ""


def _side_answer(name: str, schema: Any) -> Any:
    """Fields whose value matters to the CLI get the answer that lets the run go on as
    scripted: the user speaks next (no extra turn), the model stays the one asked for, no loop."""
    if name == "next_speaker":
        return "user"
    if name == "model_choice":
        enum = schema.get("enum") if isinstance(schema, dict) else None
        return enum[0] if enum else "flash"
    if name in ("is_loop", "loop_detected", "unproductive_state"):
        return False
    if name in ("confidence", "unproductive_state_confidence"):
        return 0.0
    return _schema_value(schema)


def _side_question(request: Request) -> str:
    config = request.body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if schema:
        return json.dumps(_schema_value(schema))
    if str(config.get("responseMimeType") or "").endswith("json"):
        return "{}"
    return "ok"


def _response(parts: list[dict[str, Any]], request: Request, text: str, last: bool) -> Any:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if last:
        candidate["finishReason"] = "STOP"
    data: dict[str, Any] = {"candidates": [candidate], "modelVersion": _model(request.path)}
    if last:
        data["usageMetadata"] = _usage(request, text)
    return data


def _reply_parts(reply: Reply) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if reply.text:
        parts.append({"text": reply.text})
    for call in reply.tool_calls:
        parts.append({"functionCall": {"name": call.name, "args": call.arguments}})
    return parts


def handler(script: Script) -> Callable[[ScriptedServer, BaseHTTPRequestHandler, Request], None]:
    """The ``ScriptedServer`` handler: agent turns from ``script``, the rest answered here."""

    def handle(server: ScriptedServer, http: BaseHTTPRequestHandler, request: Request) -> None:
        method = _method(request.path)
        if method == "countTokens":
            send_json(http, 200, {"totalTokens": max(1, len(request.raw) // 4)})
            return
        if method not in ("streamGenerateContent", "generateContent"):
            if request.method == "GET" and request.path.split("?")[0].endswith("/models"):
                names = ["gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"]
                send_json(http, 200, {"models": [{"name": f"models/{n}"} for n in names]})
                return
            server.problems.append(f"unexpected request {request.method} {request.path}")
            send_json(http, 404, {"error": {"code": 404, "message": "not scripted"}})
            return
        if is_turn(request):
            reply = script(request)
            parts = _reply_parts(reply) or [{"text": ""}]
        else:
            reply = Reply(_side_question(request))
            parts = [{"text": reply.text}]
        if method == "generateContent":
            send_json(http, 200, _response(parts, request, reply.text, last=True))
            return
        start_sse(http)
        # text first in its own chunk, then the calls with the finish reason and usage: the
        # way the real service streams a turn
        if len(parts) > 1 and "text" in parts[0]:
            sse(http, _response(parts[:1], request, reply.text, last=False))
            parts = parts[1:]
        sse(http, _response(parts, request, reply.text, last=True))

    return handle
