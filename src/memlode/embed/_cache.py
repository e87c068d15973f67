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
from typing import TYPE_CHECKING

from memlode.embed._protocol import Embedder

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["DEFAULT_CACHE_SIZE", "CachedEmbedder"]

# 10,000 rows of 384 float32 are about 15 MB: a day of queries in a long-lived process.
DEFAULT_CACHE_SIZE = 10_000


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
        self._rows: OrderedDict[tuple[str, bytes], npt.NDArray[np.float32]] = OrderedDict()
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

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        model = self.inner.name
        keys = [(model, _digest(text)) for text in texts]
        found: dict[tuple[str, bytes], npt.NDArray[np.float32]] = {}
        missing: dict[tuple[str, bytes], str] = {}  # insertion-ordered, duplicates collapsed
        with self._lock:
            for key, text in zip(keys, texts, strict=True):
                row = self._rows.get(key)
                if row is not None:
                    self._rows.move_to_end(key)
                    found[key] = row
                    self.hits += 1
                elif key in missing:
                    self.hits += 1  # a duplicate of a miss in this very call
                else:
                    missing[key] = text
                    self.misses += 1
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

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.inner!r}, max_entries={self.max_entries})"
