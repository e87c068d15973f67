"""The vectors of ``bench/bench_scale.py``'s 1M memories: real ones for the memories the local
model embeds, and for the others vectors from an additive model fitted on those (see that
file's docstring: how they are made, how faithful they are, and why the timing holds).

``real_vectors`` embeds (and caches) the first memories of the corpus; ``RealRows`` holds them
and fits ``SlotModel``; ``DerivedVectors`` is the ``Embedder`` the build hands to
``Engine.embed_pending``; ``check_model`` measures the derivation on held-out real memories.
"""

from __future__ import annotations

import hashlib
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench_recall import CorpusVectorCache, cache_path
from corpus import corpus, memory_slots
from memlode.embed import Embedder, enrich
from memlode.search.late import unpack_states

NAMESPACE = "bench"
# The real memory whose token states a derived one takes: the finest of these slot groups it
# shares with one (a rare combination may have none).
STATE_DONOR = (("subject", "verb", "thing"), ("subject", "thing"), ("subject",))
HELD_OUT = 2_000  # embedded memories the check derives without fitting on them
SWEEPS = 4  # backfitting passes (the fit changes by <1e-3 after the third)
SHRINK = 2.0  # a slot value seen n times gets n / (n + SHRINK) of its mean residual
RESIDUAL_STEP = 7_919  # a prime: which real memory lends its residual to memory i


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def real_vectors(folder: Path, real: int, inner: Embedder) -> tuple[CorpusVectorCache, float]:
    """The cache of real vectors for the first ``real`` memories, embedding those it lacks;
    also the embedding rate of this run (texts a second, 0 when nothing was embedded)."""
    cache = CorpusVectorCache(inner, cache_path(folder, real, inner.name))
    texts = [enrich(t, memory_type=k, namespace=NAMESPACE, tags=g) for t, k, g in corpus(real)]
    todo = [t for t in texts if _digest(t) not in cache.states]
    start = time.perf_counter()
    for i in range(0, len(todo), 128):
        cache.embed_with_tokens(todo[i : i + 128])
        if i % 2560 == 0:
            print(f"  embedded {i} of {len(todo)}", file=sys.stderr, flush=True)
    cache.save()
    elapsed = time.perf_counter() - start
    return cache, (len(todo) / elapsed if todo else 0.0)


def features(slots: dict[str, str], header: str) -> list[str]:
    """The slot values the model adds up for a text: its corpus slots and the enrichment
    header's type and tags (``[decision | ns: bench | tags: api, perf]``)."""
    parts = [p.strip() for p in header.strip("[]").split("|")]
    tags = next((p[len("tags: ") :].split(", ") for p in parts if p.startswith("tags: ")), [])
    ident = slots["ident"]
    words = ident.split("_") if "_" in ident else re.findall(r"[a-z]+|[A-Z][a-z]*", ident)
    values = [
        parts[0],
        *[*tags, "", ""][:2],
        *(slots[name] for name in ("subject", "verb", "thing", "file", "reason", "person")),
        slots["extra"],
        *(w.lower() for w in [*words, "", "", ""][:3]),
        *slots["component"].split()[:2],
    ]
    return [f"{i}:{v}" for i, v in enumerate(values)]


def split_enriched(text: str) -> tuple[str, str]:
    """(header, content) of an enriched text."""
    header, _, content = text.partition("\n")
    return header, content


class SlotModel:
    """Vector = mean + one vector per slot value (see the module docstring), fitted on real
    vectors by backfitting; ``residuals`` are what it leaves of each real vector."""

    def __init__(self, vectors: npt.NDArray[np.float32], rows: list[list[str]]) -> None:
        self.dim = vectors.shape[1]
        self.mean = vectors.mean(axis=0)
        self.values: list[dict[str, int]] = []
        codes = []
        for j in range(len(rows[0])):
            table: dict[str, int] = {}
            codes.append(np.array([table.setdefault(r[j], len(table)) for r in rows]))
            self.values.append(table)
        self.effects = [np.zeros((len(t), self.dim), dtype=np.float64) for t in self.values]
        residual = (vectors - self.mean).astype(np.float64)
        for _ in range(SWEEPS):
            for j, code in enumerate(codes):
                residual += self.effects[j][code]  # this slot's share back in
                sums = np.zeros_like(self.effects[j])
                np.add.at(sums, code, residual)
                seen = np.bincount(code, minlength=len(sums))[:, None]
                self.effects[j] = sums / (seen + SHRINK)
                residual -= self.effects[j][code]
        self.residuals = residual.astype(np.float32)
        total = float(((vectors - self.mean) ** 2).sum())
        self.explained = 1.0 - float((residual**2).sum()) / total

    def fitted(self, feats: list[str]) -> npt.NDArray[np.float64]:
        out = self.mean.astype(np.float64)
        for j, value in enumerate(feats):
            code = self.values[j].get(value)
            if code is not None:
                out = out + self.effects[j][code]
        return out

    def derive(self, feats: list[str], salt: int, own: int = -1) -> npt.NDArray[np.float32]:
        """The vector for ``feats`` with the residual of the real memory ``salt`` picks (never
        ``own``: a real memory derived again gets another's)."""
        donor = salt * RESIDUAL_STEP % len(self.residuals)
        if donor == own:
            donor = (donor + 1) % len(self.residuals)
        vector = self.fitted(feats) + self.residuals[donor]
        return (vector / np.linalg.norm(vector)).astype(np.float32)


class RealRows:
    """The embedded memories: their vectors, token states and slots, and the model fitted on
    them."""

    def __init__(self, cache: CorpusVectorCache, items: Sequence[tuple[str, str, list[str]]]):
        vectors, states, feats, slots = [], [], [], []
        for text, kind, tags in items:
            enriched = enrich(text, memory_type=kind, namespace=NAMESPACE, tags=tags)
            found = memory_slots(text)
            assert found is not None, text
            vectors.append(cache.rows[_digest(enriched)])
            states.append(cache.states[_digest(enriched)])
            feats.append(features(found, split_enriched(enriched)[0]))
            slots.append(found)
        self.vectors: npt.NDArray[np.float32] = np.stack(vectors).astype(np.float32)
        self.states = states
        self.features = feats
        self.by_key: list[dict[tuple[str, ...], int]] = [{} for _ in STATE_DONOR]
        for row, found in enumerate(slots):
            for level, names in enumerate(STATE_DONOR):
                self.by_key[level].setdefault(tuple(found[n] for n in names), row)
        self.model = SlotModel(self.vectors, feats)

    def states_for(self, slots: dict[str, str]) -> bytes:
        for level, names in enumerate(STATE_DONOR):
            row = self.by_key[level].get(tuple(slots[n] for n in names))
            if row is not None:
                return self.states[row]
        return self.states[0]


class DerivedVectors:
    """An ``Embedder`` (with token states) for the benchmark's build: a real vector for an
    embedded memory, a derived one (``SlotModel.derive``) for any other memory of the corpus.
    Fed to ``Engine.embed_pending`` through ``EmbeddingService.use_embedder``, so the rows are
    written exactly as the product writes them."""

    def __init__(self, real: RealRows, cache: CorpusVectorCache) -> None:
        self.real = real
        self.cache = cache
        self.derived = 0

    @property
    def name(self) -> str:
        return self.cache.name

    @property
    def dim(self) -> int:
        return self.cache.dim

    @property
    def max_tokens(self) -> int:
        return self.cache.max_tokens

    @property
    def token_states(self) -> bool:
        return True

    def embed_with_tokens(
        self, texts: Sequence[str]
    ) -> tuple[npt.NDArray[np.float32], list[npt.NDArray[np.float32]]]:
        vectors, states = [], []
        for text in texts:
            digest = _digest(text)
            if digest in self.cache.states:
                vectors.append(self.cache.rows[digest])
                states.append(unpack_states(self.cache.states[digest], self.dim))
                continue
            header, content = split_enriched(text)
            slots = memory_slots(content)
            if slots is None:
                raise ValueError(f"not a corpus text, cannot derive its vector: {text[:80]!r}")
            vectors.append(self.real.model.derive(features(slots, header), int(slots["note"])))
            states.append(unpack_states(self.real.states_for(slots), self.dim))
            self.derived += 1
        return np.stack(vectors), states

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self.embed_with_tokens(texts)[0]


def _mean_offdiagonal(matrix: npt.NDArray[np.float32]) -> float:
    gram = matrix @ matrix.T
    n = len(matrix)
    return float((gram.sum() - np.trace(gram)) / (n * (n - 1)))


def check_model(real: RealRows, query_vectors: npt.NDArray[np.float32]) -> dict[str, Any]:
    """How close derived vectors are to real ones (see the module docstring): a model fitted
    without the last ``HELD_OUT`` real memories derives theirs; and a live query's best
    cosines among the real vectors against among the derived vectors of the same texts."""
    count = len(real.vectors)
    held = list(range(max(1, count - HELD_OUT), count))
    fitted_on = SlotModel(real.vectors[: held[0]], real.features[: held[0]])
    derived = np.stack([fitted_on.derive(real.features[r], r) for r in held])
    truth = real.vectors[held]
    # every real memory derived by the full model, with another memory's residual
    model = real.model
    everyone = np.stack([model.derive(real.features[r], r, own=r) for r in range(count)])
    profile = {}
    for label, matrix in (("real", real.vectors), ("derived", everyone)):
        scores = -np.sort(-(query_vectors @ matrix.T), axis=1)
        profile[label] = {
            f"rank_{r}": round(float(scores[:, r - 1].mean()), 4) for r in (1, 10, 100)
        }
    return {
        "explained_variance": round(model.explained, 4),
        "held_out": len(held),
        "held_out_cosine_to_real": round(float(np.einsum("ij,ij->i", derived, truth).mean()), 4),
        "mean_cosine_between_real": round(_mean_offdiagonal(truth), 4),
        "mean_cosine_between_derived": round(_mean_offdiagonal(derived), 4),
        "query_cosine_profile": profile,
    }
