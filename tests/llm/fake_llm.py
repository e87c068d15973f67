"""Local HTTP servers that speak the language model providers' real wire formats.

``FakeLlm(provider)`` listens on 127.0.0.1 (a random port) in a thread, checks each request as
the real API would (path, headers, the JSON body's fields) and answers in that provider's
response format, usage included. What it answers is ``mode``:

- ``facts``: one numbered line per numbered input line, ``N. Fact N: <the input's first 40
  characters>`` (always shorter than a summary);
- ``prose``: a valid answer whose text has no numbered line;
- ``500``: HTTP 500 with the provider's error body;
- ``garbage``: HTTP 200 with a body that is not JSON;
- ``refuse``: the provider's refusal.

A request the real API would refuse is answered 400 and recorded in ``problems``; the tests
assert that there are none. Loaded by the ``fake_llm`` fixture (tests/conftest.py).
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KEY = "sk-test-0123456789abcdefghij"  # shaped like a real key, so redaction would catch it
PATHS = {"ollama": "/api/chat", "openai": "/v1/chat/completions", "anthropic": "/v1/messages"}
_NUMBERED = re.compile(r"^(\d+)\. (.*)$")


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def user_text(self) -> str:
        messages = self.body.get("messages", [])
        return str(messages[-1]["content"]) if messages else ""


@dataclass
class FakeLlm:
    provider: str
    mode: str = "facts"
    requests: list[Seen] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    _answered: list[Seen] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                fake._handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def env(self, **extra: str) -> dict[str, str]:
        """The environment that points memlode at this server."""
        out = {
            "MEMLODE_LLM_PROVIDER": self.provider,
            "MEMLODE_LLM_URL": self.url,
            "MEMLODE_LLM_MODEL": f"{self.provider}-test-model",
            "MEMLODE_LLM_API_KEY": KEY,
        }
        out.update(extra)
        return out

    @property
    def tokens(self) -> int:
        """Input + output tokens this server reported in its usage fields."""
        return sum(self._usage(seen)[0] + self._usage(seen)[1] for seen in self._answered)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # ---- one request ---------------------------------------------------------------------

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length", "0"))
        raw = handler.rfile.read(length)
        headers = {k.lower(): v for k, v in handler.headers.items()}
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        seen = Seen(handler.path, headers, body if isinstance(body, dict) else {})
        self.requests.append(seen)
        problem = self._check(seen)
        if problem:
            self.problems.append(problem)
            self._reply(handler, 400, {"error": {"message": problem}})
        elif self.mode == "500":
            self._reply(handler, 500, self._error_body("internal server error"))
        elif self.mode == "garbage":
            self._reply_raw(handler, 200, b"<html>gateway says hello</html>")
        else:
            self._answered.append(seen)
            self._reply(handler, 200, self._answer(seen))

    def _check(self, seen: Seen) -> str:
        body, headers = seen.body, seen.headers
        if seen.path != PATHS[self.provider]:
            return f"wrong path {seen.path}"
        if headers.get("content-type") != "application/json":
            return "content-type is not application/json"
        if not isinstance(body.get("model"), str) or not body["model"]:
            return "no model"
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return "no messages"
        if any(set(m) != {"role", "content"} for m in messages):
            return "a message with other fields than role and content"
        return {"ollama": self._check_ollama, "openai": self._check_openai}.get(
            self.provider, self._check_anthropic
        )(seen)

    def _check_ollama(self, seen: Seen) -> str:
        if seen.body.get("stream") is not False:
            return "stream is not false (the answer would be NDJSON chunks)"
        roles = [m["role"] for m in seen.body["messages"]]
        return "" if roles == ["system", "user"] else f"roles {roles}"

    def _check_openai(self, seen: Seen) -> str:
        if seen.headers.get("authorization") != f"Bearer {KEY}":
            return f"Incorrect API key provided: {seen.headers.get('authorization')}"
        if not isinstance(seen.body.get("max_tokens"), int):
            return "no max_tokens"
        roles = [m["role"] for m in seen.body["messages"]]
        return "" if roles == ["system", "user"] else f"roles {roles}"

    def _check_anthropic(self, seen: Seen) -> str:
        if seen.headers.get("x-api-key") != KEY:
            return "no x-api-key"
        if seen.headers.get("anthropic-version") != "2023-06-01":
            return "no anthropic-version 2023-06-01"
        if "authorization" in seen.headers:
            return "an Authorization header (Anthropic takes x-api-key)"
        if not isinstance(seen.body.get("max_tokens"), int):
            return "no max_tokens (required by the Messages API)"
        if not isinstance(seen.body.get("system"), str):
            return "no top-level system"
        roles = [m["role"] for m in seen.body["messages"]]
        return "" if roles == ["user"] else f"roles {roles} (system goes top-level)"

    def _text(self, seen: Seen) -> str:
        if self.mode == "prose":
            return "Here are the facts you asked for, summarised in prose."
        lines = []
        for line in seen.user_text.splitlines():
            match = _NUMBERED.match(line)
            if match:
                lines.append(f"{match.group(1)}. Fact {match.group(1)}: {match.group(2)[:40]}")
        return "\n".join(lines)

    def _usage(self, seen: Seen) -> tuple[int, int]:
        system = seen.body.get("system") or seen.body["messages"][0]["content"]
        return (len(str(system)) + len(seen.user_text)) // 4 + 3, len(self._text(seen)) // 4 + 1

    def _answer(self, seen: Seen) -> dict[str, Any]:
        text = self._text(seen)
        used_in, used_out = self._usage(seen)
        model = seen.body["model"]
        if self.provider == "ollama":
            return {
                "model": model,
                "created_at": "2026-11-25T09:00:00.000000Z",
                "message": {"role": "assistant", "content": text},
                "done": True,
                "done_reason": "stop",
                "total_duration": 4_353_619_900,
                "load_duration": 63_915_300,
                "prompt_eval_count": used_in,
                "prompt_eval_duration": 246_847_000,
                "eval_count": used_out,
                "eval_duration": 4_032_296_000,
            }
        if self.provider == "openai":
            refusal = "I can't help with that." if self.mode == "refuse" else None
            return {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "created": 1_764_000_000,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": None if refusal else text,
                            "refusal": refusal,
                        },
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": used_in,
                    "completion_tokens": used_out,
                    "total_tokens": used_in + used_out,
                },
            }
        return {
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "" if self.mode == "refuse" else text}],
            "stop_reason": "refusal" if self.mode == "refuse" else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": used_in, "output_tokens": used_out},
        }

    def _error_body(self, message: str) -> dict[str, Any]:
        if self.provider == "ollama":
            return {"error": message}
        if self.provider == "anthropic":
            return {"type": "error", "error": {"type": "api_error", "message": message}}
        return {"error": {"message": message, "type": "server_error", "code": None}}

    def _reply(self, handler: BaseHTTPRequestHandler, status: int, body: dict[str, Any]) -> None:
        self._reply_raw(handler, status, json.dumps(body).encode())

    @staticmethod
    def _reply_raw(handler: BaseHTTPRequestHandler, status: int, raw: bytes) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(raw)))
        handler.end_headers()
        handler.wfile.write(raw)
