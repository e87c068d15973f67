"""The hash embedder: deterministic, offline, model-free vectors for tests and ``--no-embed``.

Feature hashing ("the hashing trick") of lower-cased word unigrams and character trigrams into
a small signed vector. Texts that share words or word fragments get a positive cosine, texts
that share nothing are near orthogonal. It knows no synonyms; it exists so that every code path
that needs vectors can run without a model, identically on every machine (blake2b, never
Python's salted ``hash``).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from memlode.embed._protocol import l2_normalise
from memlode.textutil import STOPWORDS

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["HASH_DIM", "HashEmbedder"]

HASH_DIM = 256
# Word unigrams carry the meaning; trigrams only smooth over inflections and identifiers split
# differently (``parse_config`` vs ``parseConfig``), so they weigh less.
_WORD_WEIGHT = 1.0
_TRIGRAM_WEIGHT = 0.5
_TRIGRAM = 3
# Nominal input limit: the hash embedder has none, but callers that split long texts should
# split the same way they would for a small real model.
_MAX_TOKENS = 512
# The feature an empty text hashes to, so every row stays unit length.
_EMPTY_FEATURE = "\x00empty"
_WORD_RE = re.compile(r"\w+", re.UNICODE)
_FEATURE_CACHE = 65_536


@lru_cache(maxsize=_FEATURE_CACHE)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    """Map a feature to (index, sign): 8 bytes of blake2b, the low bit chooses the sign."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    return (value >> 1) % dim, 1.0 if value & 1 else -1.0


def _features(text: str) -> dict[str, float]:
    """Weighted features of ``text``: words, and trigrams of each word padded with ``#``.

    A feature seen ``n`` times weighs ``weight * (1 + log n)`` so that a word repeated ten
    times does not drown the rest.
    """
    counts: dict[tuple[str, float], int] = {}
    for word in _WORD_RE.findall(text.lower()):
        key = ("w:" + word, _WORD_WEIGHT)
        counts[key] = counts.get(key, 0) + 1
        padded = f"#{word}#"
        for i in range(len(padded) - _TRIGRAM + 1):
            key = ("t:" + padded[i : i + _TRIGRAM], _TRIGRAM_WEIGHT)
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return {_EMPTY_FEATURE: 1.0}
    return {name: weight * (1.0 + math.log(n)) for (name, weight), n in counts.items()}


class HashEmbedder:
    """Signed feature hashing of words and trigrams into ``dim`` buckets."""

    def __init__(self, dim: int = HASH_DIM) -> None:
        if dim < 1:
            raise ValueError(f"hash embedder dimension must be positive, got {dim}")
        self._dim = dim

    @property
    def name(self) -> str:
        return f"hash:v1-{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return _MAX_TOKENS

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        import numpy as np

        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text).items():
                index, sign = _bucket(feature, self._dim)
                out[row, index] += sign * weight
        return l2_normalise(out)

    @property
    def token_states(self) -> bool:
        return True

    def embed_with_tokens(
        self, texts: Sequence[str]
    ) -> tuple[npt.NDArray[np.float32], list[npt.NDArray[np.float32]]]:
        """Vectors, and per text one hashed vector per content word (stop words left out,
        unless the text has nothing else): the same words-and-trigrams features, one word at a
        time, so a word shares a token state only with itself and its near spellings."""
        states = []
        for text in texts:
            found = _WORD_RE.findall(text.lower())
            content = [w for w in found if w not in STOPWORDS] or found
            states.append(self.embed(content))
        return self.embed(texts), states

    def __repr__(self) -> str:
        return f"HashEmbedder(dim={self._dim})"
