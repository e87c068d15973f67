"""The model side of the real-client tests: an HTTP server on 127.0.0.1 that stands in for a
model provider's API and answers from a script.

A script is a function from what the client sent (``Request``: path and JSON body) to a
``Reply``: some text, and the tool calls the model makes. Each API module
(``anthropic_api``, ``responses_api``, ``gemini_api``, ``chat_api``) turns a ``Reply`` into
that API's real wire format (server-sent events where the client streams) and tells the script
what it needs of a request (the last user text, the tool results so far). Every request is
kept in ``requests``, so a test can assert on exactly what reached the model: hook context
included.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Reply", "Request", "ScriptedServer", "ToolCall"]


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def raw(self) -> str:
        """The whole body as text: what the model was handed, for containment checks."""
        return json.dumps(self.body, ensure_ascii=False)


Handler = Callable[["ScriptedServer", BaseHTTPRequestHandler, Request], None]


@dataclass
class ScriptedServer:
    """A threaded HTTP server; ``handle`` (the API module's) answers each request."""

    handle: Handler
    requests: list[Request] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw.strip() else {}
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                request = Request(
                    self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
                with server._lock:
                    server.requests.append(request)
                try:
                    server.handle(server, self, request)
                except Exception as exc:  # a bug in a script: answer 500, keep it for the test
                    server.problems.append(f"{request.path}: {exc!r}")
                    self.send_error(500, repr(exc))

            do_GET = do_POST = do_PUT = do_DELETE = _any

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def send_json(handler: BaseHTTPRequestHandler, status: int, data: Any) -> None:
    body = json.dumps(data).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def start_sse(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("cache-control", "no-cache")
    handler.send_header("connection", "close")
    handler.end_headers()
    handler.close_connection = True


def sse(handler: BaseHTTPRequestHandler, data: Any, event: str | None = None) -> None:
    """One server-sent event (``event:`` line when the API names its events)."""
    chunk = (f"event: {event}\n" if event else "") + f"data: {json.dumps(data)}\n\n"
    handler.wfile.write(chunk.encode())
    handler.wfile.flush()
