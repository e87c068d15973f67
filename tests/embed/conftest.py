"""Fixtures for the embeddings tests: one local model per test session, and a real HTTP server
on 127.0.0.1 that speaks the Ollama and OpenAI embedding wire formats."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from memlode.embed import HashEmbedder, LocalEmbedder

SERVER_DIM = 16  # the fake server's vector size unless a request asks for "dimensions"
SERVER_SCALE = 3.0  # its vectors are not unit length, so the client must normalise
API_KEY = "sk-test-key"
SHUTDOWN_POLL = 0.02  # seconds
KNOWN_MODELS = ("nomic-embed-text", "text-embedding-3-small")


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A graph cache folder shared by the xdist workers of one run (the write is atomic)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    return root / "embed-models"


@pytest.fixture(scope="session")
def local(model_cache: Path) -> LocalEmbedder:
    embedder = LocalEmbedder(cache_dir=model_cache)
    embedder.load()
    return embedder


def server_vector(text: str, dim: int) -> list[float]:
    """What the fake server answers for ``text``: a scaled hash embedding."""
    return [float(v) * SERVER_SCALE for v in HashEmbedder(dim).embed([text])[0]]


@dataclass
class Scripted:
    status: int
    body: bytes
    delay: float = 0.0


@dataclass
class FakeServer:
    """Records every request; ``script`` holds canned answers used before the real logic."""

    DIM = SERVER_DIM
    API_KEY = API_KEY

    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    script: list[Scripted] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer_next(self, status: int, body: object, delay: float = 0.0) -> None:
        """Queue a canned answer: ``body`` as JSON, or as is when it is bytes."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.script.append(Scripted(status, raw, delay))

    def handle(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes, float]:
        with self.lock:
            try:
                payload: Any = json.loads(body)
            except ValueError:
                payload = None
            self.requests.append({"path": path, "headers": headers, "json": payload})
            if self.script:
                canned = self.script.pop(0)
                return canned.status, canned.body, canned.delay
        if path == "/api/embed":
            return (*self._ollama(payload), 0.0)
        if path == "/v1/embeddings":
            return (*self._openai(payload, headers), 0.0)
        return 404, b"404 page not found", 0.0

    def _ollama(self, payload: dict[str, Any]) -> tuple[int, bytes]:
        model = payload["model"]
        if model not in KNOWN_MODELS:
            error = {"error": f'model "{model}" not found, try pulling it first'}
            return 404, json.dumps(error).encode()
        dim = payload.get("dimensions", SERVER_DIM)
        vectors = [server_vector(text, dim) for text in payload["input"]]
        return 200, json.dumps({"model": model, "embeddings": vectors}).encode()

    def _openai(self, payload: dict[str, Any], headers: dict[str, str]) -> tuple[int, bytes]:
        if headers.get("authorization") != f"Bearer {API_KEY}":
            error = {"error": {"message": "Incorrect API key provided", "type": "invalid_key"}}
            return 401, json.dumps(error).encode()
        dim = payload.get("dimensions", SERVER_DIM)
        data = [
            {"object": "embedding", "index": i, "embedding": server_vector(text, dim)}
            for i, text in enumerate(payload["input"])
        ]
        data.reverse()  # servers may answer out of order; "index" is what counts
        answer = {"object": "list", "data": data, "model": payload["model"]}
        return 200, json.dumps(answer).encode()


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = self.rfile.read(length)
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, answer, delay = fake.handle(self.path, headers, body)
            if delay:
                time.sleep(delay)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep the test output clean

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    # A short poll interval: shutdown() waits for the loop to notice, 0.5 s by default.
    thread = threading.Thread(target=httpd.serve_forever, args=(SHUTDOWN_POLL,), daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield fake
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
