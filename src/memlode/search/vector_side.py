"""The vector half of a hybrid query, run on a worker thread while BM25 runs on the caller's.

A hybrid query's two candidate sources are independent: BM25 needs only SQLite, the vector side
needs the query's embedding (a forward pass of the model), one product with every stored
vector, and then the BM25 scores of the neighbours it found (every candidate is scored on
every signal). onnxruntime, numpy and SQLite all release the GIL, so on two cores the vector
side costs next to nothing on top of BM25. The worker reads through its own read-only
connection (two statements on one connection cannot run at once); a store without a file
(``:memory:``) leaves those scores to the caller.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memlode.errors import StorageError
from memlode.search.fts import rank_ids

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from memlode.storage.sql import Connection
    from memlode.storage.store import Store
    from memlode.vector.index import VectorIndex

__all__ = ["Nearest", "NearestVectors", "VectorWorker"]

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Nearest:
    vector: npt.NDArray[np.float32] | None  # the query's embedding
    hits: list[tuple[str, float]]  # (memory id, cosine), best first
    bm25: dict[str, float] | None  # BM25 rank of the neighbours asked about (0.0: no term)
    states: npt.NDArray[np.float32] | None = None  # the query's token states (search/late.py)


@dataclass(slots=True)
class NearestVectors:
    """A query's nearest memories in ``index``, possibly still being computed (``result``
    waits for them; an embedder's error surfaces there)."""

    index: VectorIndex
    result: Callable[[], Nearest]


class VectorWorker:
    """One worker thread (and its read-only connection to ``store``) for vector sides."""

    def __init__(self, store: Store | None) -> None:
        self.store = store
        self._pool: ThreadPoolExecutor | None = None
        self._reader: Connection | None = None
        self._reader_failed = False

    def start(
        self,
        query: str,
        k: int,
        namespace: str | Sequence[str] | None,
        index: VectorIndex,
        embed: Callable[
            [str], tuple[npt.NDArray[np.float32], npt.NDArray[np.float32] | None] | None
        ],
        min_similarity: float,
        *,
        bm25: bool = True,
    ) -> NearestVectors:
        """Embed ``query`` (``embed`` gives its vector and token states, or None), find its
        ``k`` nearest memories, and BM25-score those at least
        ``min_similarity`` close (the ones that can become candidates by their vector) unless
        ``bm25`` is off (the caller has every row's BM25 score already)."""

        def work() -> Nearest:
            embedded = embed(query)
            if embedded is None:
                return Nearest(None, [], None)
            vector, states = embedded
            hits = index.search(vector, k, namespace)
            reader = self._connection() if bm25 else None
            if reader is None:
                return Nearest(vector, hits, None, states)
            close = [memory_id for memory_id, cosine in hits if cosine >= min_similarity]
            ranks = rank_ids(reader, query, close)
            return Nearest(vector, hits, {i: ranks.get(i, 0.0) for i in close}, states)

        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="memlode-vectors")
        return NearestVectors(index, self._pool.submit(work).result)

    def _connection(self) -> Connection | None:
        if self._reader is None and self.store is not None and not self._reader_failed:
            try:
                self._reader = self.store.reader()
            except StorageError as exc:  # the caller's thread scores them instead
                log.info("no second connection for vector candidates: %s", exc)
            self._reader_failed = self._reader is None
        return self._reader

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None
