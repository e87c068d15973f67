"""One hybrid search over one store, as a pipeline: the query split once, the text index and
the vector side started together, then the stages of ``memlode.search.hybrid.recall``
(candidates -> signals -> adjustments -> MMR).

A :class:`SearchPipeline` owns what a search reads: the connection, the in-memory text index
(``search/text_index.py``; FTS5 answers while it builds), the vector side (anything with
``nearest``: the engine's embedding service, which embeds the query on a worker thread), the
cached term frequencies and the ranking parameters. A search only reads: rows stored without a
vector are found by their words until a long-lived process embeds them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from memlode.search.hybrid import RecallParams, ScoredHit, recall
from memlode.search.query import SearchQuery

if TYPE_CHECKING:  # the text index needs numpy: loaded by whoever made it, not by this module
    import sqlite3
    from collections.abc import Sequence
    from datetime import datetime

    from memlode.search.fts import TermFrequencies
    from memlode.search.text_index import TextIndex
    from memlode.search.vector_side import NearestVectors
    from memlode.storage.values import MemoryFilter

__all__ = ["SearchPipeline", "VectorSide"]


class VectorSide(Protocol):
    def nearest(
        self, query: str, k: int, namespace: str | Sequence[str] | None, *, bm25: bool = True
    ) -> NearestVectors | None:
        """Start the query's nearest-neighbour search (None without vectors); ``bm25``: also
        score the neighbours' text, when no in-memory text index does."""
        ...


class SearchPipeline:
    def __init__(
        self,
        conn: sqlite3.Connection,
        text_index: TextIndex,
        vectors: VectorSide,
        frequencies: TermFrequencies,
        params: RecallParams,
    ) -> None:
        self.conn = conn
        self.text_index = text_index
        self.vectors = vectors
        self.frequencies = frequencies
        self.params = params

    def search(self, text: str, flt: MemoryFilter, k: int, now: datetime) -> list[ScoredHit]:
        """The ``k`` best memories for ``text`` that pass ``flt``."""
        query = SearchQuery.parse(text, now)
        postings = self.text_index.scorer(self.conn)
        # the vector side runs on its worker while the text side scores here
        vectors = self.vectors.nearest(
            query.text,
            self.params.vector_candidates(k),
            flt.namespaces() or None,
            bm25=postings is None,
        )
        scores = (
            self.text_index.scores(self.conn, postings, query.fts_terms)
            if postings is not None
            else None
        )
        return recall(
            self.conn,
            query,
            flt,
            k,
            self.params,
            now=now,
            vectors=vectors,
            frequencies=self.frequencies,
            text_scores=scores,
        )
