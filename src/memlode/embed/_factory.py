"""``make_embedder``: from ``Settings`` to a ready embedder (or ``None`` for BM25 only).

Provider modules are imported here, lazily, so that choosing the hash embedder never imports
urllib and choosing Ollama never looks for onnxruntime.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from memlode.embed._cache import DEFAULT_CACHE_SIZE, CachedEmbedder
from memlode.embed._hashing import HASH_DIM, HashEmbedder
from memlode.embed._protocol import Embedder
from memlode.errors import InvalidInput

if TYPE_CHECKING:
    from memlode.config import Settings

__all__ = ["PROVIDERS", "make_embedder"]

PROVIDERS = ("local", "ollama", "openai", "hash", "none")
MODELS_FOLDER = "models"  # under MEMLODE_HOME: built model graphs


def make_embedder(
    settings: Settings,
    cache_dir: Path | None = None,
    *,
    lru_size: int = DEFAULT_CACHE_SIZE,
) -> Embedder | None:
    """The embedder ``settings`` ask for, wrapped in a ``CachedEmbedder`` of ``lru_size``
    entries (0: unwrapped); ``None`` when the provider is ``none``.

    ``cache_dir`` is where the local model's built graph is kept (default
    ``<home>/models``). Construction is cheap: the local model loads on first use and HTTP
    providers do not connect until asked to embed. Raises ``InvalidInput`` for an unknown
    provider or inconsistent settings and ``MissingDependency`` (with the install command) when
    the provider's runtime or model is not installed.
    """
    provider = (settings.embed_provider or "local").strip().lower()
    if provider not in PROVIDERS:
        raise InvalidInput(
            f"unknown embedding provider {settings.embed_provider!r}; "
            f"choose one of {', '.join(PROVIDERS)} (embed_provider / MEMLODE_EMBED_PROVIDER)"
        )
    if provider == "none":
        return None
    dims = settings.embed_dimensions
    if dims is not None and dims < 1:
        raise InvalidInput(f"embed dimensions must be a positive integer, got {dims}")
    inner: Embedder
    if provider == "hash":
        inner = HashEmbedder(dims or HASH_DIM)
    elif provider == "local":
        from memlode.embed._local import LocalEmbedder

        local = LocalEmbedder(
            settings.embed_model, cache_dir=cache_dir or settings.home / MODELS_FOLDER
        )
        if dims is not None and dims != local.dim:
            raise InvalidInput(
                f"the local model {local.spec.model_id} makes {local.dim}-dimensional vectors, "
                f"not {dims}; unset embed_dimensions"
            )
        inner = local
    elif provider == "ollama":
        from memlode.embed._http import DEFAULT_OLLAMA_MODEL, DEFAULT_OLLAMA_URL, OllamaEmbedder

        inner = OllamaEmbedder(
            settings.embed_model or DEFAULT_OLLAMA_MODEL,
            settings.embed_url or DEFAULT_OLLAMA_URL,
            dimensions=dims,
            api_key=settings.embed_api_key,
        )
    else:
        from memlode.embed._http import DEFAULT_OPENAI_MODEL, DEFAULT_OPENAI_URL, OpenAIEmbedder

        url = settings.embed_url or DEFAULT_OPENAI_URL
        if url.rstrip("/") == DEFAULT_OPENAI_URL and not settings.embed_api_key:
            raise InvalidInput(
                "the OpenAI API needs a key: set embed_api_key (MEMLODE_EMBED_API_KEY), or point "
                "embed_url at a local OpenAI-compatible server such as LM Studio"
            )
        inner = OpenAIEmbedder(
            settings.embed_model or DEFAULT_OPENAI_MODEL,
            url,
            dimensions=dims,
            api_key=settings.embed_api_key,
        )
    if lru_size < 0:
        raise InvalidInput(f"embedding cache size must not be negative, got {lru_size}")
    return CachedEmbedder(inner, lru_size) if lru_size else inner
