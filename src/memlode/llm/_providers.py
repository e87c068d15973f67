"""The three wire formats behind one call, ``complete(system, user, max_tokens)``.

Each request has a timeout; an overload (429, 502-504) or a dropped connection gets one more
try after a pause; every other failure (an HTTP error, an answer that is not the provider's
JSON, a refusal) is an ``LlmError`` that names the provider and the server, and what to do. The
key travels only in its header: no message, log line or ``repr`` holds it.
"""

from __future__ import annotations

import json
import math
import urllib.parse
from dataclasses import dataclass
from typing import Any, Protocol

from memlode.errors import InvalidInput, LlmError
from memlode.http_json import RETRY_STATUSES, JsonEndpoint, post_json, server_words
from memlode.redact import redact

__all__ = [
    "DEFAULT_MODELS",
    "DEFAULT_URLS",
    "AnthropicClient",
    "Completion",
    "LlmClient",
    "OllamaClient",
    "OpenAIClient",
    "estimate_tokens",
]

# Base URLs: the path of each API is added to them (a trailing /v1 is accepted and dropped).
DEFAULT_URLS = {
    "ollama": "http://127.0.0.1:11434",
    "openai": "https://api.openai.com",
    "anthropic": "https://api.anthropic.com",
}
# Small, cheap models that follow a numbered-list format; any other is one setting away.
DEFAULT_MODELS = {
    "ollama": "llama3.2",
    "openai": "gpt-4o-mini",
    "anthropic": "claude-haiku-4-5",
}
ANTHROPIC_VERSION = "2023-06-01"
# Seconds per request: a local model on a CPU may take a minute for a batch, and loading it
# from disk on the first request takes more.
LLM_TIMEOUT = 180.0
LLM_RETRIES = 1  # one more try after an overload or a dropped connection
_BACKOFF_SECONDS = 1.0
# Characters per token when a provider does not say (English and code average about 4).
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """A rough token count for ``text`` (used for the budget before a call is made)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    estimated: bool = False  # the provider reported no usage: the counts are estimates


class LlmClient(Protocol):
    provider: str
    model: str

    def complete(self, system: str, user: str, max_tokens: int) -> Completion:
        """The model's answer to ``user`` under ``system``, at most ``max_tokens`` long."""
        ...


class _HttpClient:
    """What the three formats share; each subclass says where to post and how to read."""

    provider = ""
    path = ""

    def __init__(
        self,
        model: str,
        url: str,
        *,
        api_key: str | None = None,
        timeout: float = LLM_TIMEOUT,
        retries: int = LLM_RETRIES,
    ) -> None:
        if not model:
            raise InvalidInput(f"the {self.provider} model needs a name (MEMLODE_LLM_MODEL)")
        if not url.startswith(("http://", "https://")):
            raise InvalidInput(f"MEMLODE_LLM_URL must start with http:// or https://, got {url!r}")
        if timeout <= 0 or retries < 0:
            raise InvalidInput("the timeout must be positive and retries not negative")
        base = url.rstrip("/")
        self.url = base[: -len("/v1")] if base.endswith("/v1") else base
        self.model = model
        self.timeout = timeout
        self.retries = retries
        self._api_key = api_key

    @property
    def name(self) -> str:
        return f"{self.provider}:{self.model}"

    @property
    def endpoint(self) -> str:
        return self.url + self.path

    @property
    def _where(self) -> str:
        """The endpoint without any user:password part a URL may carry."""
        parts = urllib.parse.urlsplit(self.endpoint)
        host = parts.hostname or ""
        netloc = f"{host}:{parts.port}" if parts.port else host
        return f"{self.provider} server at {parts.scheme}://{netloc}{parts.path}"

    def complete(self, system: str, user: str, max_tokens: int) -> Completion:
        if max_tokens < 1:
            raise InvalidInput("max_tokens must be at least 1")
        answer = self._post(self._payload(system, user, max_tokens))
        if not isinstance(answer, dict):
            raise LlmError(f"{self._where} answered JSON that is not an object")
        text, used_in, used_out = self._parse(answer)
        if used_in is None or used_out is None:
            return Completion(
                text, estimate_tokens(system + user), estimate_tokens(text), estimated=True
            )
        return Completion(text, used_in, used_out)

    def _payload(self, system: str, user: str, max_tokens: int) -> dict[str, Any]:
        raise NotImplementedError

    def _parse(self, answer: dict[str, Any]) -> tuple[str, int | None, int | None]:
        raise NotImplementedError

    def _headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json", "Accept": "application/json"}

    def _post(self, payload: dict[str, Any]) -> Any:
        endpoint = JsonEndpoint(
            url=self.endpoint,
            where=self._where,
            headers=self._headers(),
            timeout=self.timeout,
            retries=self.retries,
            backoff=_BACKOFF_SECONDS,
            error=LlmError,
            status_hint=lambda status, _words: _hint(status),
            unreachable_hint="check that it is running and that MEMLODE_LLM_URL is right",
            not_json_hint="check that MEMLODE_LLM_URL points at its API",
            words=_error_message,
        )
        return post_json(endpoint, payload)

    def _missing(self, what: str) -> LlmError:
        return LlmError(f"{self._where} answered without {what}; is it a {self.provider} API?")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model!r}, url={self.url!r})"


def _hint(status: int) -> str:
    if status in (401, 403):
        return "check the key (MEMLODE_LLM_API_KEY)"
    if status == 404:
        return "check MEMLODE_LLM_URL and the model name (MEMLODE_LLM_MODEL)"
    if status in RETRY_STATUSES:
        return "the server is overloaded or rate-limited; the next run retries"
    return "the next run retries"


def _error_message(raw: bytes) -> str:
    """The server's own words: ``{"error": "..."}`` (Ollama), ``{"error": {"message": ...}}``
    (OpenAI, Anthropic), or the start of the body; redacted (a server may echo a key back)."""
    return redact(server_words(raw))


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


class OllamaClient(_HttpClient):
    """``POST /api/chat`` ``{"model", "messages", "stream": false, "options": {"num_predict"}}``
    -> ``{"message": {"content"}, "prompt_eval_count", "eval_count", "done"}``."""

    provider = "ollama"
    path = "/api/chat"

    def _payload(self, system: str, user: str, max_tokens: int) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "stream": False,
            "options": {"num_predict": max_tokens, "temperature": 0},
        }

    def _parse(self, answer: dict[str, Any]) -> tuple[str, int | None, int | None]:
        if answer.get("error"):
            raise LlmError(f"{self._where} answered an error: {str(answer['error'])[:300]}")
        message = answer.get("message")
        text = message.get("content") if isinstance(message, dict) else None
        if not isinstance(text, str):
            raise self._missing("message.content")
        # Ollama leaves prompt_eval_count out when the whole prompt came from its cache
        return text, _count(answer.get("prompt_eval_count", 0)), _count(answer.get("eval_count"))


class OpenAIClient(_HttpClient):
    """``POST /v1/chat/completions`` ``{"model", "messages", "max_tokens"}`` with a Bearer key
    -> ``{"choices": [{"message": {"content", "refusal"}, "finish_reason"}], "usage":
    {"prompt_tokens", "completion_tokens"}}``. ``max_tokens``, not OpenAI's newer
    ``max_completion_tokens``: every compatible server reads it."""

    provider = "openai"
    path = "/v1/chat/completions"

    def _headers(self) -> dict[str, str]:
        headers = super()._headers()
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _payload(self, system: str, user: str, max_tokens: int) -> dict[str, Any]:
        return {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "max_tokens": max_tokens,
            "temperature": 0,
        }

    def _parse(self, answer: dict[str, Any]) -> tuple[str, int | None, int | None]:
        choices = answer.get("choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        if not isinstance(first, dict):
            raise self._missing("choices[0]")
        message = first.get("message")
        if not isinstance(message, dict):
            raise self._missing("choices[0].message")
        if message.get("refusal") or first.get("finish_reason") == "content_filter":
            reason = str(message.get("refusal") or "content filter")[:300]
            raise LlmError(f"{self._where}: the model refused ({reason})")
        text = message.get("content")
        if not isinstance(text, str):
            raise self._missing("choices[0].message.content")
        usage = answer.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return text, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))


class AnthropicClient(_HttpClient):
    """``POST /v1/messages`` ``{"model", "system", "messages", "max_tokens"}`` with
    ``x-api-key`` and ``anthropic-version`` -> ``{"content": [{"type": "text", "text"}],
    "stop_reason", "usage": {"input_tokens", "output_tokens"}}``."""

    provider = "anthropic"
    path = "/v1/messages"

    def _headers(self) -> dict[str, str]:
        headers = super()._headers()
        headers["anthropic-version"] = ANTHROPIC_VERSION
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    def _payload(self, system: str, user: str, max_tokens: int) -> dict[str, Any]:
        return {
            "model": self.model,
            "system": system,
            "messages": [{"role": "user", "content": user}],
            "max_tokens": max_tokens,
            "temperature": 0,
        }

    def _parse(self, answer: dict[str, Any]) -> tuple[str, int | None, int | None]:
        if answer.get("type") == "error":
            raw = json.dumps(answer).encode("utf-8")
            raise LlmError(f"{self._where} answered an error: {_error_message(raw)}")
        if answer.get("stop_reason") == "refusal":
            raise LlmError(f"{self._where}: the model refused")
        content = answer.get("content")
        texts = [
            block.get("text")
            for block in (content if isinstance(content, list) else [])
            if isinstance(block, dict) and block.get("type") == "text"
        ]
        if not texts or not isinstance(texts[0], str):
            raise self._missing("a text block in content")
        usage = answer.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return texts[0], _count(usage.get("input_tokens")), _count(usage.get("output_tokens"))
