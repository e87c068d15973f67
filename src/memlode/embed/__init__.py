"""Embeddings: texts to unit vectors behind one small protocol, ``Embedder``.

Providers: ``local`` (all-MiniLM-L6-v2 on onnxruntime, offline, the default), ``ollama``,
``openai`` (any OpenAI-compatible server), ``hash`` (deterministic, model-free) and ``none``.
``make_embedder(settings)`` picks one; ``CachedEmbedder`` puts an LRU cache in front of any;
``enrich`` prepends a memory's context before embedding.

Importing this package is cheap: numpy, onnxruntime, tokenizers and urllib are imported only
when a provider is used (hooks import the package tree and must stay light). The provider
classes are loaded on first attribute access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.embed._cache import DEFAULT_CACHE_SIZE, CachedEmbedder
from memlode.embed._enrich import MAX_RELATIONSHIPS, enrich
from memlode.embed._factory import PROVIDERS, make_embedder
from memlode.embed._hashing import HASH_DIM, HashEmbedder
from memlode.embed._protocol import (
    Embedder,
    EmbedError,
    TokenEmbedder,
    l2_normalise,
    token_embedder,
)

if TYPE_CHECKING:
    from memlode.embed._http import OllamaEmbedder, OpenAIEmbedder
    from memlode.embed._local import LocalEmbedder

__all__ = [
    "DEFAULT_CACHE_SIZE",
    "HASH_DIM",
    "MAX_RELATIONSHIPS",
    "PROVIDERS",
    "CachedEmbedder",
    "EmbedError",
    "Embedder",
    "HashEmbedder",
    "LocalEmbedder",
    "OllamaEmbedder",
    "OpenAIEmbedder",
    "TokenEmbedder",
    "enrich",
    "l2_normalise",
    "make_embedder",
    "token_embedder",
]

_LAZY = {
    "LocalEmbedder": "memlode.embed._local",
    "OllamaEmbedder": "memlode.embed._http",
    "OpenAIEmbedder": "memlode.embed._http",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
