"""HTTP embedding providers: Ollama's ``/api/embed`` and any OpenAI-compatible
``/v1/embeddings`` (OpenAI, LM Studio, llama.cpp server, vLLM, LiteLLM ...).

Standard library only (``urllib``, through ``memlode.http_json``). Texts go in batches, each
request has a timeout, overloads (429, 502-504) are retried with backoff, and every failure
becomes an ``EmbedError`` that says which server, what went wrong and what to change. The
vector size is learned from the first answer unless configured, and every answer is checked
and L2-normalised.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memlode.embed._protocol import EmbedError, l2_normalise
from memlode.errors import InvalidInput
from memlode.http_json import JsonEndpoint, post_json

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "DEFAULT_OLLAMA_MODEL",
    "DEFAULT_OLLAMA_URL",
    "DEFAULT_OPENAI_MODEL",
    "DEFAULT_OPENAI_URL",
    "OllamaEmbedder",
    "OpenAIEmbedder",
]

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
DEFAULT_OLLAMA_MODEL = "nomic-embed-text"
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"
# Ollama truncates at its context size (num_ctx), 2048 unless the model file sets another.
OLLAMA_MAX_TOKENS = 2_048
# OpenAI's limit for text-embedding-3-*; compatible servers rarely allow less.
OPENAI_MAX_TOKENS = 8_191
HTTP_BATCH_SIZE = 64  # texts per request: well inside every server's request limits
HTTP_TIMEOUT = 60.0  # seconds; Ollama may load the model from disk on the first request
HTTP_RETRIES = 2  # extra attempts after a 429/502/503/504 or a dropped connection
_BACKOFF_SECONDS = 0.5  # doubled on each retry
_PROBE_TEXT = "dimension probe"


class _HttpEmbedder:
    """What both wire formats share; subclasses say where to post and how to read the answer."""

    provider = ""
    default_max_tokens = 0

    def __init__(
        self,
        model: str,
        url: str,
        *,
        dimensions: int | None = None,
        api_key: str | None = None,
        timeout: float = HTTP_TIMEOUT,
        batch_size: int = HTTP_BATCH_SIZE,
        retries: int = HTTP_RETRIES,
        max_tokens: int | None = None,
    ) -> None:
        if not model:
            raise InvalidInput(f"{self.provider} embeddings need a model name (embed_model)")
        if dimensions is not None and dimensions < 1:
            raise InvalidInput(f"embed dimensions must be positive, got {dimensions}")
        if not url.startswith(("http://", "https://")):
            raise InvalidInput(f"embed URL must start with http:// or https://, got {url!r}")
        if batch_size < 1 or retries < 0 or timeout <= 0:
            raise InvalidInput("batch size and timeout must be positive, retries not negative")
        self.model = model
        self.url = url.rstrip("/")
        self.dimensions = dimensions
        self.timeout = timeout
        self.batch_size = batch_size
        self.retries = retries
        self._api_key = api_key
        self._max_tokens = max_tokens or self.default_max_tokens
        self._dim = dimensions

    @property
    def name(self) -> str:
        suffix = f"@{self.dimensions}" if self.dimensions else ""
        return f"{self.provider}:{self.model}{suffix}"

    @property
    def dim(self) -> int:
        """The vector size; asks the server once (one tiny request) when not configured."""
        if self._dim is None:
            self.embed([_PROBE_TEXT])
        assert self._dim is not None
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    @property
    def endpoint(self) -> str:
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """One request per ``batch_size`` texts. An empty input sends nothing and gives
        ``(0, dim)``, or ``(0, 0)`` while the size is still unknown."""
        import numpy as np

        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            # OpenAI refuses empty strings; a lone space embeds as "nothing" everywhere.
            batch = [text or " " for text in texts[start : start + self.batch_size]]
            vectors = self._parse(self._post(self._payload(batch)))
            rows.extend(self._checked(vectors, len(batch)))
        if not rows:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        return l2_normalise(rows)

    def _payload(self, batch: list[str]) -> dict[str, Any]:
        payload: dict[str, Any] = {"model": self.model, "input": batch}
        if self.dimensions:
            payload["dimensions"] = self.dimensions
        return payload

    def _parse(self, answer: Any) -> list[Any]:
        raise NotImplementedError

    def _hint(self, status: int, message: str) -> str:
        """What to do about an HTTP error status, beyond the server's own words."""
        return f"check the {self.provider} server at {self.url}"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _post(self, payload: dict[str, Any]) -> Any:
        """POST ``payload`` and return the decoded JSON answer, retrying overloads."""
        endpoint = JsonEndpoint(
            url=self.endpoint,
            where=self._where,
            headers=self._headers(),
            timeout=self.timeout,
            retries=self.retries,
            backoff=_BACKOFF_SECONDS,
            error=EmbedError,
            status_hint=self._hint,
            unreachable_hint=self._unreachable_hint(),
            not_json_hint="check that embed_url points at its API",
            timeout_hint="check that it is running and not overloaded",
            broken_hint="check that embed_url points at the embedding server",
        )
        return post_json(endpoint, payload)

    @property
    def _where(self) -> str:
        return f"{self.provider} server at {self.endpoint}"

    def _unreachable_hint(self) -> str:
        return "check that the server is running and that embed_url (MEMLODE_EMBED_URL) is right"

    def _checked(self, vectors: list[Any], expected: int) -> list[list[float]]:
        where = f"{self.provider} model {self.model} at {self.url}"
        if len(vectors) != expected:
            raise EmbedError(f"{where} returned {len(vectors)} vectors for {expected} texts")
        out: list[list[float]] = []
        for vector in vectors:
            if not isinstance(vector, list) or not vector:
                raise EmbedError(f"{where} returned a vector that is not a list of numbers")
            try:
                values = [float(v) for v in vector]
            except (TypeError, ValueError):
                raise EmbedError(f"{where} returned a vector with non-numbers in it") from None
            if not all(math.isfinite(v) for v in values):
                raise EmbedError(f"{where} returned a vector with NaN or infinite values")
            if self._dim is None:
                self._dim = len(values)
            elif len(values) != self._dim:
                wanted = "asked for" if self.dimensions else "first returned"
                raise EmbedError(
                    f"{where} returned {len(values)}-dimensional vectors but {wanted} "
                    f"{self._dim}; set embed_dimensions to what the model produces"
                )
            out.append(values)
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r}, url={self.url!r})"


class OllamaEmbedder(_HttpEmbedder):
    """``POST {url}/api/embed`` with ``{"model", "input": [...]}`` -> ``{"embeddings": [...]}``."""

    provider = "ollama"
    default_max_tokens = OLLAMA_MAX_TOKENS

    def __init__(
        self, model: str = DEFAULT_OLLAMA_MODEL, url: str = DEFAULT_OLLAMA_URL, **kwargs: Any
    ) -> None:
        super().__init__(model, url, **kwargs)

    @property
    def endpoint(self) -> str:
        return f"{self.url}/api/embed"

    def _parse(self, answer: Any) -> list[Any]:
        vectors = answer.get("embeddings") if isinstance(answer, dict) else None
        if not isinstance(vectors, list):
            raise EmbedError(
                f"ollama server at {self.endpoint} answered without an 'embeddings' list; "
                "Ollama 0.3.4 or newer is needed for /api/embed"
            )
        return vectors

    def _hint(self, status: int, message: str) -> str:
        if status == 404 and "not found" in message.lower():
            return f"pull the model with `ollama pull {self.model}` or set embed_model"
        if status == 404:
            return "Ollama 0.3.4 or newer is needed for /api/embed; check embed_url"
        return f"check the Ollama server log at {self.url}"

    def _unreachable_hint(self) -> str:
        return "start Ollama (`ollama serve`) or set embed_url (MEMLODE_EMBED_URL)"


class OpenAIEmbedder(_HttpEmbedder):
    """``POST {url}/v1/embeddings`` (or ``{url}/embeddings`` when the URL already ends in
    ``/v1``) with a bearer key; answers ``{"data": [{"embedding", "index"}]}``."""

    provider = "openai"
    default_max_tokens = OPENAI_MAX_TOKENS

    def __init__(
        self, model: str = DEFAULT_OPENAI_MODEL, url: str = DEFAULT_OPENAI_URL, **kwargs: Any
    ) -> None:
        super().__init__(model, url, **kwargs)

    @property
    def endpoint(self) -> str:
        if self.url.endswith("/v1"):
            return f"{self.url}/embeddings"
        return f"{self.url}/v1/embeddings"

    def _parse(self, answer: Any) -> list[Any]:
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
            raise EmbedError(
                f"openai-compatible server at {self.endpoint} answered without a 'data' list of "
                "embeddings; check that embed_url points at an OpenAI-compatible API"
            )
        try:
            ordered = sorted(data, key=lambda item: int(item.get("index", 0)))
        except (TypeError, ValueError):
            raise EmbedError(f"server at {self.endpoint} returned non-numeric indexes") from None
        return [item.get("embedding") for item in ordered]

    def _hint(self, status: int, message: str) -> str:
        if status in (401, 403):
            return "the API key was refused; set embed_api_key (MEMLODE_EMBED_API_KEY)"
        if status == 404:
            return "check embed_url (it should end at the API root, e.g. .../v1) and embed_model"
        if status == 429:
            return "the server is rate-limiting; wait and retry, or embed fewer texts at once"
        return f"check the server at {self.url}"

    def _unreachable_hint(self) -> str:
        return "check embed_url (MEMLODE_EMBED_URL) and that the server is running"
