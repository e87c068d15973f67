"""``make_embedder``: from ``Settings`` to a ready embedder (or ``None`` for BM25 only), through
one table of providers (``BUILDERS``).

Provider modules are imported here, lazily, so that choosing the hash embedder never imports
urllib and choosing Ollama never looks for onnxruntime.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from memlode.embed._cache import DEFAULT_CACHE_SIZE, CachedEmbedder
from memlode.embed._hashing import HASH_DIM, HashEmbedder
from memlode.embed._protocol import Embedder
from memlode.errors import InvalidInput

if TYPE_CHECKING:
    from memlode.config import Settings

__all__ = ["BUILDERS", "PROVIDERS", "make_embedder"]

MODELS_FOLDER = "models"  # under MEMLODE_HOME: built model graphs

# What builds an embedder from the settings, where the local model's graph is kept and the
# dimensions asked for (None: the provider's own). Imports of a provider's runtime stay inside
# its builder, so that choosing the hash embedder never imports urllib and choosing Ollama
# never looks for onnxruntime.
Builder = Callable[["Settings", Path, int | None], Embedder]


def _local(settings: Settings, cache_dir: Path, dims: int | None) -> Embedder:
    from memlode.embed._local import LocalEmbedder

    local = LocalEmbedder(settings.embed_model, cache_dir=cache_dir)
    if dims is not None and dims != local.dim:
        raise InvalidInput(
            f"the local model {local.spec.model_id} makes {local.dim}-dimensional vectors, "
            f"not {dims}; unset embed_dimensions"
        )
    return local


def _ollama(settings: Settings, cache_dir: Path, dims: int | None) -> Embedder:
    from memlode.embed._http import DEFAULT_OLLAMA_MODEL, DEFAULT_OLLAMA_URL, OllamaEmbedder

    return OllamaEmbedder(
        settings.embed_model or DEFAULT_OLLAMA_MODEL,
        settings.embed_url or DEFAULT_OLLAMA_URL,
        dimensions=dims,
        api_key=settings.embed_api_key,
    )


def _openai(settings: Settings, cache_dir: Path, dims: int | None) -> Embedder:
    from memlode.embed._http import DEFAULT_OPENAI_MODEL, DEFAULT_OPENAI_URL, OpenAIEmbedder

    url = settings.embed_url or DEFAULT_OPENAI_URL
    if url.rstrip("/") == DEFAULT_OPENAI_URL and not settings.embed_api_key:
        raise InvalidInput(
            "the OpenAI API needs a key: set embed_api_key (MEMLODE_EMBED_API_KEY), or point "
            "embed_url at a local OpenAI-compatible server such as LM Studio"
        )
    return OpenAIEmbedder(
        settings.embed_model or DEFAULT_OPENAI_MODEL,
        url,
        dimensions=dims,
        api_key=settings.embed_api_key,
    )


def _hash(settings: Settings, cache_dir: Path, dims: int | None) -> Embedder:
    return HashEmbedder(dims or HASH_DIM)


# The providers, each with its builder ("none": no embedder, search on BM25 alone). A provider
# is one row here and its builder above; the CLI's choices and the error below read the names.
BUILDERS: dict[str, Builder | None] = {
    "local": _local,
    "ollama": _ollama,
    "openai": _openai,
    "hash": _hash,
    "none": None,
}
PROVIDERS = tuple(BUILDERS)


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
    if provider not in BUILDERS:
        raise InvalidInput(
            f"unknown embedding provider {settings.embed_provider!r}; "
            f"choose one of {', '.join(PROVIDERS)} (embed_provider / MEMLODE_EMBED_PROVIDER)"
        )
    build = BUILDERS[provider]
    if build is None:
        return None
    dims = settings.embed_dimensions
    if dims is not None and dims < 1:
        raise InvalidInput(f"embed dimensions must be a positive integer, got {dims}")
    inner = build(settings, cache_dir or settings.home / MODELS_FOLDER, dims)
    if lru_size < 0:
        raise InvalidInput(f"embedding cache size must not be negative, got {lru_size}")
    return CachedEmbedder(inner, lru_size) if lru_size else inner
