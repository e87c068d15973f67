"""The optional language model: one call (system text, user text, a cap on output tokens) to
one of three providers, answering the text and the token counts the provider reports.

- ``ollama``: ``POST {url}/api/chat`` with ``"stream": false``; usage from
  ``prompt_eval_count`` / ``eval_count``. Local: nothing leaves the machine.
- ``openai``: any OpenAI-compatible server (OpenAI, LM Studio, llama.cpp, vLLM, LiteLLM ...),
  ``POST {url}/v1/chat/completions`` with ``Authorization: Bearer``; usage from
  ``usage.prompt_tokens`` / ``usage.completion_tokens``.
- ``anthropic``: ``POST {url}/v1/messages`` with ``x-api-key`` and ``anthropic-version:
  2023-06-01``; the text of ``content[0]``; usage from ``usage.input_tokens`` /
  ``usage.output_tokens``.

Standard library only (``urllib``, ``json``); nothing imports this package unless a provider is
set (``Settings.llm_provider``, ``MEMLODE_LLM_PROVIDER``). Every failure is an ``LlmError``
naming the provider and the server, never the key. Who calls it and within which budget:
``memlode.engine.consolidation.compress``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memlode.errors import InvalidInput, LlmError
from memlode.llm._providers import (
    DEFAULT_MODELS,
    DEFAULT_URLS,
    AnthropicClient,
    Completion,
    LlmClient,
    OllamaClient,
    OpenAIClient,
)

if TYPE_CHECKING:
    from memlode.config import Settings

__all__ = [
    "DEFAULT_MODELS",
    "DEFAULT_URLS",
    "AnthropicClient",
    "Completion",
    "LlmClient",
    "LlmError",
    "OllamaClient",
    "OpenAIClient",
    "make_client",
]

_CLIENTS: dict[str, type[OllamaClient | OpenAIClient | AnthropicClient]] = {
    "ollama": OllamaClient,
    "openai": OpenAIClient,
    "anthropic": AnthropicClient,
}


def make_client(settings: Settings) -> LlmClient | None:
    """The client ``settings`` name, or None for provider ``none``. Raises ``InvalidInput``
    when a hosted provider has no key (nothing is sent to find out)."""
    provider = settings.llm_provider
    if provider == "none":
        return None
    cls = _CLIENTS.get(provider)
    if cls is None:
        raise InvalidInput(f"unknown language model provider {provider!r}")
    url = settings.llm_url or DEFAULT_URLS[provider]
    if provider != "ollama" and not settings.llm_api_key and url == DEFAULT_URLS[provider]:
        variable = "OPENAI_API_KEY" if provider == "openai" else "ANTHROPIC_API_KEY"
        raise InvalidInput(
            f"the {provider} API needs a key: set MEMLODE_LLM_API_KEY or {variable} (or llm.api_key"
            " in config.toml), or point MEMLODE_LLM_URL at a server that needs none"
        )
    return cls(settings.llm_model or DEFAULT_MODELS[provider], url, api_key=settings.llm_api_key)
