"""An in-process LRU cache in front of any embedder.

Recall embeds the same queries again and again (a hook asking the resident process, the
dashboard repeating a search), and re-embedding identical text is pure waste. The key is
(model name, SHA-256 of the text), so two embedders never share vectors and the cache holds
digests, not texts.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from memlode.embed._protocol import Embedder, EmbedError, token_embedder

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DEFAULT_CACHE_SIZE", "CachedEmbedder"]

# 10,000 rows of 384 float32 are about 15 MB: a day of queries in a long-lived process.
DEFAULT_CACHE_SIZE = 10_000
# Token states are asked for queries (memories are embedded once): ~15 tokens of 384 float32
# each is ~23 KB a text, so far fewer of them are kept.
STATES_CACHE_SIZE = 256


_Key = tuple[str, bytes]  # (model name, SHA-256 of the text)
_T = TypeVar("_T")


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class CachedEmbedder:
    """Wraps ``inner``; only cache misses reach it, in one ``embed`` call, in input order.

    Duplicates inside one call are embedded once. ``hits`` and ``misses`` count texts (not
    calls) since construction. Safe to share between threads: the lock guards the cache, not the
    inner call, so two threads missing the same text may both embed it (same result).
    """

    def __init__(self, inner: Embedder, max_entries: int = DEFAULT_CACHE_SIZE) -> None:
        if max_entries < 1:
            raise ValueError(f"cache size must be positive, got {max_entries}")
        self.inner = inner
        self.max_entries = max_entries
        self.hits = 0
        self.misses = 0
        self._rows: OrderedDict[_Key, npt.NDArray[np.float32]] = OrderedDict()
        self._states: OrderedDict[_Key, tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]] = (
            OrderedDict()
        )
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def token_states(self) -> bool:
        return token_embedder(self.inner) is not None

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()
            self._states.clear()

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        model = self.inner.name
        keys, found, missing = self._lookup(self._rows, model, texts)
        if missing:
            fresh = self.inner.embed(list(missing.values()))
            if fresh.shape[0] != len(missing):
                raise ValueError(
                    f"{model} returned {fresh.shape[0]} vectors for {len(missing)} texts"
                )
            with self._lock:
                for key, row in zip(missing, fresh, strict=True):
                    row = row.copy()
                    row.flags.writeable = False
                    found[key] = row
                    self._rows[key] = row
                    self._rows.move_to_end(key)
                while len(self._rows) > self.max_entries:
                    self._rows.popitem(last=False)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for i, key in enumerate(keys):
            out[i] = found[key]
        return out

    def _lookup(
        self, table: OrderedDict[_Key, _T], model: str, texts: Sequence[str]
    ) -> tuple[list[_Key], dict[_Key, _T], dict[_Key, str]]:
        """Each text's key, the entries ``table`` has (now the most recently used), and the
        texts it lacks (insertion-ordered, duplicates collapsed), counting hits and misses."""
        keys = [(model, _digest(text)) for text in texts]
        found: dict[_Key, _T] = {}
        missing: dict[_Key, str] = {}
        with self._lock:
            for key, text in zip(keys, texts, strict=True):
                entry = table.get(key)
                if entry is not None:
                    table.move_to_end(key)
                    found[key] = entry
                    self.hits += 1
                elif key in missing:
                    self.hits += 1  # a duplicate of a miss in this very call
                else:
                    missing[key] = text
                    self.misses += 1
        return keys, found, missing

    def embed_with_tokens(
        self, texts: Sequence[str]
    ) -> tuple[npt.NDArray[np.float32], list[npt.NDArray[np.float32]]]:
        """Vectors and token states (see ``TokenEmbedder``). The states of the last
        ``STATES_CACHE_SIZE`` texts asked alone (queries) are kept; every vector made here joins
        the vector cache."""
        import numpy as np

        inner = token_embedder(self.inner)
        if inner is None:
            raise EmbedError(f"{self.inner.name} gives no token states")
        model = inner.name
        keys, found, missing = self._lookup(self._states, model, texts)
        if missing:
            vectors, states = inner.embed_with_tokens(list(missing.values()))
            if vectors.shape[0] != len(missing) or len(states) != len(missing):
                raise ValueError(f"{model} returned {vectors.shape[0]} vectors for {len(missing)}")
            with self._lock:
                for key, row, tokens in zip(missing, vectors, states, strict=True):
                    row = row.copy()
                    row.flags.writeable = False
                    tokens.flags.writeable = False
                    found[key] = (row, tokens)
                    if len(texts) == 1:  # a query; a batch of memories is embedded once
                        self._states[key] = (row, tokens)
                    self._rows[key] = row
                    self._rows.move_to_end(key)
                while len(self._states) > STATES_CACHE_SIZE:
                    self._states.popitem(last=False)
                while len(self._rows) > self.max_entries:
                    self._rows.popitem(last=False)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        token_rows: list[npt.NDArray[np.float32]] = []
        for i, key in enumerate(keys):
            out[i], tokens = found[key]
            token_rows.append(tokens)
        return out, token_rows

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r}, max_entries={self.max_entries})"
