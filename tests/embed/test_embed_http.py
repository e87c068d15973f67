"""Ollama and OpenAI-compatible providers against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

import numpy as np
import pytest

from memlode.embed import Embedder, EmbedError, HashEmbedder, OllamaEmbedder, OpenAIEmbedder
from memlode.errors import InvalidInput, MemlodeError

if TYPE_CHECKING:
    from conftest import FakeServer

API_KEY = "sk-test-key"  # what the fake server accepts (conftest.API_KEY)
SERVER_DIM = 16  # what it answers without "dimensions" (conftest.SERVER_DIM)

TEXTS = ["JWT auth decision", "sqlite WAL mode", "", "tree-sitter symbols"]


def expected(texts: list[str], dim: int = SERVER_DIM) -> np.ndarray:
    # The fake server answers scaled hash vectors; empty texts are sent as one space.
    return HashEmbedder(dim).embed([t or " " for t in texts])


def test_ollama_wire_format_and_normalisation(server: FakeServer) -> None:
    embedder: Embedder = OllamaEmbedder("nomic-embed-text", server.url)
    assert embedder.name == "ollama:nomic-embed-text"
    vectors = embedder.embed(TEXTS)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(vectors, expected(TEXTS), atol=1e-6)
    (request,) = server.requests
    assert request["path"] == "/api/embed"
    assert request["json"] == {
        "model": "nomic-embed-text",
        "input": ["JWT auth decision", "sqlite WAL mode", " ", "tree-sitter symbols"],
    }
    assert embedder.dim == SERVER_DIM  # learned from the answer, no extra request
    assert len(server.requests) == 1


def test_dimension_is_discovered_with_one_probe(server: FakeServer) -> None:
    embedder = OllamaEmbedder(url=server.url)
    assert embedder.dim == SERVER_DIM
    assert embedder.dim == SERVER_DIM
    assert len(server.requests) == 1
    assert embedder.embed([]).shape == (0, SERVER_DIM)
    assert len(server.requests) == 1


def test_batches_keep_order(server: FakeServer) -> None:
    texts = [f"memory number {i}" for i in range(150)]
    embedder = OllamaEmbedder(url=server.url, batch_size=64)
    np.testing.assert_allclose(embedder.embed(texts), expected(texts), atol=1e-6)
    assert [len(r["json"]["input"]) for r in server.requests] == [64, 64, 22]


def test_ollama_unknown_model_says_to_pull_it(server: FakeServer) -> None:
    embedder = OllamaEmbedder("no-such-model", server.url)
    with pytest.raises(EmbedError, match=r"HTTP 404.*not found.*ollama pull no-such-model"):
        embedder.embed(["x"])


def test_openai_wire_format(server: FakeServer) -> None:
    for url in (server.url, server.url + "/v1", server.url + "/v1/"):
        embedder = OpenAIEmbedder("text-embedding-3-small", url, api_key=API_KEY, dimensions=8)
        assert embedder.name == "openai:text-embedding-3-small@8"
        assert embedder.dim == 8
        # The server lists the vectors in reverse; "index" puts them back.
        np.testing.assert_allclose(embedder.embed(TEXTS), expected(TEXTS, 8), atol=1e-6)
    assert [r["path"] for r in server.requests] == ["/v1/embeddings"] * 3
    request = server.requests[0]
    assert request["headers"]["authorization"] == f"Bearer {API_KEY}"
    assert request["json"]["dimensions"] == 8
    assert request["json"]["model"] == "text-embedding-3-small"


def test_openai_refused_key_is_explained(server: FakeServer) -> None:
    embedder = OpenAIEmbedder(url=server.url, api_key="sk-wrong")
    with pytest.raises(EmbedError) as info:
        embedder.embed(["x"])
    message = str(info.value)
    assert "HTTP 401" in message
    assert "Incorrect API key provided" in message
    assert "MEMLODE_EMBED_API_KEY" in message
    assert "sk-wrong" not in message


def test_server_error_is_a_clear_error(server: FakeServer) -> None:
    server.answer_next(500, {"error": "model runner crashed"})
    with pytest.raises(
        EmbedError,
        match=r"ollama server at .*/api/embed answered HTTP 500: "
        r"model runner crashed",
    ):
        OllamaEmbedder(url=server.url).embed(["x"])
    assert len(server.requests) == 1  # a 500 is not retried


def test_bad_json_is_a_clear_error(server: FakeServer) -> None:
    server.answer_next(200, b"<html>proxy login</html>")
    with pytest.raises(EmbedError, match=r"not JSON.*proxy login"):
        OpenAIEmbedder(url=server.url, api_key=API_KEY).embed(["x"])


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ({"embeddings": [[1.0, 2.0]]}, "returned 1 vectors for 2 texts"),
        ({"embeddings": [[1.0, 2.0], [1.0]]}, "returned 1-dimensional vectors but first"),
        ({"embeddings": [[1.0, "x"], [1.0, 2.0]]}, "non-numbers"),
        ({"embeddings": [[1.0, float("nan")], [1.0, 2.0]]}, "NaN"),
        ({"vectors": []}, "without an 'embeddings' list"),
    ],
)
def test_malformed_answers_are_refused(server: FakeServer, body: object, match: str) -> None:
    server.answer_next(200, body)
    with pytest.raises(EmbedError, match=match):
        OllamaEmbedder(url=server.url).embed(["a", "b"])


def test_configured_dimension_mismatch_is_explained(server: FakeServer) -> None:
    server.answer_next(200, {"embeddings": [[0.5] * 12]})
    with pytest.raises(EmbedError, match="12-dimensional vectors but asked for 8"):
        OllamaEmbedder(url=server.url, dimensions=8).embed(["a"])


def test_overload_is_retried(server: FakeServer) -> None:
    server.answer_next(503, b'{"error": "busy"}')
    vectors = OllamaEmbedder(url=server.url).embed(["a"])
    np.testing.assert_allclose(vectors, expected(["a"]), atol=1e-6)
    assert len(server.requests) == 2


def test_overload_that_persists_gives_up(server: FakeServer) -> None:
    for _ in range(2):
        server.answer_next(429, {"error": {"message": "slow down"}})
    with pytest.raises(EmbedError, match=r"HTTP 429: slow down.*rate-limiting"):
        OpenAIEmbedder(url=server.url, api_key=API_KEY, retries=1).embed(["a"])
    assert len(server.requests) == 2


def test_slow_server_times_out(server: FakeServer) -> None:
    server.answer_next(200, b'{"embeddings": [[1.0]]}', delay=2.0)
    with pytest.raises(EmbedError, match=r"did not answer within 0.3 s"):
        OllamaEmbedder(url=server.url, timeout=0.3).embed(["a"])


def test_unreachable_server_says_what_to_do() -> None:
    with socket.socket() as sock:  # a port that nobody listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(EmbedError) as info:
        OllamaEmbedder(url=f"http://127.0.0.1:{port}").embed(["a"])
    message = str(info.value)
    assert f"cannot reach the ollama server at http://127.0.0.1:{port}/api/embed" in message
    assert "ollama serve" in message
    assert isinstance(info.value, MemlodeError)


def test_bad_configuration_is_refused_up_front() -> None:
    with pytest.raises(InvalidInput, match="http"):
        OllamaEmbedder(url="127.0.0.1:11434")
    with pytest.raises(InvalidInput, match="positive"):
        OpenAIEmbedder(url="http://x", dimensions=0)
    with pytest.raises(InvalidInput, match="model name"):
        OllamaEmbedder("", "http://x")


def test_constants_match_the_fake_server(server: FakeServer) -> None:
    assert (server.API_KEY, server.DIM) == (API_KEY, SERVER_DIM)
