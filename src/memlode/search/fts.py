"""BM25 candidates from the FTS5 index, and the sanitiser that makes any string a valid query.

User text is never passed raw to ``MATCH``: it is cut into word tokens, each token is quoted,
and the tokens are OR-ed. Quotes, operators (AND, NEAR, ``*``, ``^``, ``:``), brackets and any
unicode are therefore harmless.

Cost, and how it is bounded. FTS5 walks the doclists of an OR query cheaply, but ``bm25()`` on
every matching row is not (it reads the row's size and every position list): at 100k memories
a query whose words each occur in 5-15% of the rows matches half the store and spends ~80 ms
scoring it, 15 times what walking the same doclists costs. So a query whose terms match more
rows than ``SCORING_BUDGET`` altogether is split the way Lucene's common-terms query (and
Elasticsearch's ``cutoff_frequency``) splits one: its rarest terms - enough of them to supply
the candidates asked for, and as many more as fit in the budget - choose the rows, and every
term of the query scores those rows. The scores are exactly the full query's (same phrases,
same statistics); what is given up is a row that contains none of the rare terms, only common
ones - unless vectors or the graph bring it in, and then ``Bm25Query.ranks`` scores it with the
whole query. Stores smaller than the budget, and queries whose terms all fit in it, run the
plain query.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from memlode.search.word_forms import with_word_forms
from memlode.storage.fts_match import (
    BM25_WEIGHTS,
    SCORING_BUDGET,
    best_scored,
    choose_expressions,
    document_frequency,
    filtered_ids,
    ranks_of,
    rowids_of,
)
from memlode.storage.fts_match import OVERFETCH as _OVERFETCH
from memlode.storage.fts_match import match_expression as fts_query
from memlode.storage.sql import dialect_of
from memlode.storage.values import MemoryFilter
from memlode.textutil import STOPWORDS, query_terms

__all__ = [
    "BM25_WEIGHTS",
    "SCORING_BUDGET",
    "STOPWORDS",
    "Bm25Query",
    "FtsHit",
    "RowScores",
    "TermFrequencies",
    "bm25_search",
    "bm25_terms",
    "fts_query",
    "query_terms",
    "rank_ids",
]

# A cached document frequency is reused until the store has grown by this share: frequencies
# only decide which terms choose candidates, never a score, so a slightly stale one is harmless.
_STALE_GROWTH = 0.1
_MAX_CACHED_TERMS = 50_000


@dataclass(slots=True, frozen=True)
class FtsHit:
    id: str
    rank: float  # higher is better (negated bm25)


def bm25_terms(text: str, *, drop_stopwords: bool = True) -> list[str]:
    """The terms BM25 ORs for a query: ``query_terms`` plus the other forms of its irregular
    verbs (``search/word_forms.py``), so "went" also finds "go"."""
    terms = query_terms(text, drop_stopwords=drop_stopwords)
    return with_word_forms(terms, STOPWORDS if drop_stopwords else ())


class TermFrequencies:
    """How many rows of one store's FTS index contain each term, cached between queries.

    Owned by whoever keeps a store open (the engine), so that a term's frequency is counted
    once and not on every query; a count is refreshed when the store has grown by
    ``_STALE_GROWTH`` since it was taken.
    """

    def __init__(self, max_terms: int = _MAX_CACHED_TERMS) -> None:
        self.max_terms = max_terms
        self._counts: dict[str, tuple[int, int]] = {}  # term -> (rows containing it, store size)
        self._lock = threading.Lock()

    def get(self, conn: sqlite3.Connection, terms: list[str], size: int) -> dict[str, int]:
        out: dict[str, int] = {}
        with self._lock:
            for term in terms:
                cached = self._counts.get(term)
                if cached is not None and size <= cached[1] * (1 + _STALE_GROWTH):
                    out[term] = cached[0]
        counted = {t: document_frequency(conn, t) for t in terms if t not in out}
        if counted:
            with self._lock:
                if len(self._counts) + len(counted) > self.max_terms:
                    self._counts.clear()
                for term, count in counted.items():
                    self._counts[term] = (count, size)
        return out | counted


def bm25_search(
    conn: sqlite3.Connection,
    query: str,
    flt: MemoryFilter,
    limit: int,
    *,
    drop_stopwords: bool = True,
    budget: int = SCORING_BUDGET,
    frequencies: TermFrequencies | None = None,
) -> list[FtsHit]:
    """The ``limit`` best BM25 matches of ``query`` that pass ``flt``, best first.

    ``budget`` bounds how many rows are scored (see the module docstring); ``frequencies``
    caches the document frequencies that decision needs (counted afresh without it).
    """
    terms = bm25_terms(query, drop_stopwords=drop_stopwords)
    return Bm25Query(conn, terms, limit, budget=budget, frequencies=frequencies).top(flt)


class RowScores(Protocol):
    """A query's BM25 rank of every row, computed outside FTS5 (``search/text_index.py``)."""

    def best(self, limit: int, skip: int = 0) -> list[tuple[int, float]]:
        """(rowid, rank) of the matching rows ranked ``skip`` to ``skip + limit`` (fewer when
        fewer rows match)."""
        ...

    def ranks(self, rowids: Iterable[int]) -> dict[int, float]:
        """The rank of each of ``rowids`` that matches a term."""
        ...


class Bm25Query:
    """One query against the FTS index: the expressions that stand for it (the whole query, or
    its two halves when pruned), its best rows, and the scores of rows found elsewhere.

    Given ``scores`` (every row's rank, from the in-memory copy of the index), FTS5 is only
    asked which of the best rows pass the filter."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        terms: list[str],
        limit: int,
        *,
        budget: int = SCORING_BUDGET,
        frequencies: TermFrequencies | None = None,
        scores: RowScores | None = None,
    ) -> None:
        """``terms``: what BM25 ORs (``bm25_terms`` of the query, or ``SearchQuery.fts_terms``)."""
        self.conn = conn
        self.limit = limit
        self.scores = scores
        self.expressions = (
            _expressions(conn, terms, limit * _OVERFETCH, budget, frequencies)
            if terms and scores is None
            else []
        )
        self.whole_query = fts_query(terms)

    def top(self, flt: MemoryFilter) -> list[FtsHit]:
        """The ``limit`` best rows that pass ``flt``, best first."""
        if self.scores is not None:
            return self._top_scored(self.scores, flt)
        conn, limit, over = self.conn, self.limit, self.limit * _OVERFETCH
        # Fast path: rank in the FTS table alone (no join per matching row), then keep the
        # rows that pass the filter. Most stores are mostly one namespace, so a few times the
        # limit is enough; when the filter removes too many, the joined query below decides.
        ranked = best_scored(conn, self.expressions, over)
        if not ranked:
            return []
        where, params = flt.where("m", dialect_of(self.conn))
        scores = dict(ranked)
        kept = filtered_ids(conn, list(scores), where, params)
        if len(kept) < limit and len(ranked) >= over:
            scores = dict(best_scored(conn, self.expressions, limit, where, params))
            kept = filtered_ids(conn, list(scores), "1", [])
        order = sorted(kept, key=lambda rowid: (scores[rowid], rowid))[:limit]
        return [FtsHit(id=kept[rowid], rank=-scores[rowid]) for rowid in order]

    def _top_scored(self, scores: RowScores, flt: MemoryFilter) -> list[FtsHit]:
        # The best rows in windows growing fourfold until enough pass the filter (or no row
        # is left). The first window is the limit and a quarter: most stores are mostly one
        # namespace, and every row read is a random read of a large store.
        where, params = flt.where("m", dialect_of(self.conn))
        limit = self.limit
        hits: list[FtsHit] = []
        seen, window = 0, limit + limit // 4
        while len(hits) < limit:
            ranked = scores.best(window, skip=seen)
            kept = filtered_ids(self.conn, [rowid for rowid, _ in ranked], where, params)
            hits.extend(FtsHit(id=kept[r], rank=rank) for r, rank in ranked if r in kept)
            if len(ranked) < window:
                break
            seen += window
            window *= 4
        return hits[:limit]

    def ranks(self, rowids: list[int]) -> dict[int, float]:
        """The rank (negated bm25, as ``FtsHit.rank``) the whole query gives each of
        ``rowids`` that matches a term: for candidates found another way (vectors, the graph),
        whether or not pruning left them out of ``top``."""
        if self.scores is not None:
            return self.scores.ranks(rowids)
        return ranks_of(self.conn, self.whole_query, rowids)


def rank_ids(
    conn: sqlite3.Connection, query: str, ids: list[str], *, drop_stopwords: bool = True
) -> dict[str, float]:
    """``Bm25Query.ranks`` by memory id: the whole query's rank of each id matching a term."""
    expression = fts_query(bm25_terms(query, drop_stopwords=drop_stopwords))
    if not ids or not expression:
        return {}
    id_of = rowids_of(conn, ids)
    return {id_of[rowid]: rank for rowid, rank in ranks_of(conn, expression, list(id_of)).items()}


def _expressions(
    conn: sqlite3.Connection,
    terms: list[str],
    wanted: int,
    budget: int,
    frequencies: TermFrequencies | None,
) -> list[str]:
    """The MATCH expressions whose scored rows, merged, rank like the whole query."""
    counts_of = None
    if frequencies is not None:

        def counts_of(terms: list[str], size: int) -> dict[str, int]:
            return frequencies.get(conn, terms, size)

    return choose_expressions(conn, terms, wanted, budget, counts_of)
