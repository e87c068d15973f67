"""Exact BM25 from an in-memory copy of the FTS index, for a process that searches again.

FTS5 walks doclists fast but its ``bm25()`` costs about 2 us for every matching row, and a
hybrid query at 100k memories matches thousands: 30 ms of a query's 45 went there (pruned, see
``search/fts.py``). This module keeps what ``bm25()`` reads - for every token the rows holding
it with their column-weighted frequency, every row's length, the row and token totals - in
numpy arrays, and scores a whole query over every row in a few milliseconds with FTS5's own
formula (``fts5Bm25Function``: k1 1.2, b 0.75, IDF floored at 1e-6, ``BM25_WEIGHTS`` per
column). Nothing is pruned, and the scores are ``bm25()``'s (up to the order of a sum).

The arrays and the tokens (FTS5's own) are ``search/postings.py``'s. A query word that makes a
phrase of several
tokens (``snake_case`` words, ``Caroline's``) is scored by FTS5 itself: ``bm25()`` is a sum over
phrases, so the phrase's share is exactly a one-phrase query's score.

Freshness: migration 0007 logs the rowid of every memory whose text is inserted, updated or
deleted. Before each query the index applies the rows logged since it was read (tokenised
again, in an overlay); past ``_OVERLAY_SHARE`` of the store it is rebuilt in the background.
Building reads the whole store (0.6 s at 10k rows, 5-8 s at 100k on the project's 2-core
machine), so it starts only when a process searches for the second time (a one-shot CLI search
never pays for it), on its own connection and thread; until it is ready BM25 runs in FTS5.
A PostgreSQL store has no FTS5 index: there the copy is built on the caller's connection at the
first search (a one-shot search reads the store's text), and a phrase is scored from the rows'
text (``search/phrases.py``).
"""

from __future__ import annotations

import logging
import math
import sqlite3
import sys
import threading
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from memlode.errors import StorageError
from memlode.search.postings import FtsTokenizer, Postings, build_postings, changed_rows, log_seq
from memlode.search.topk import at_least
from memlode.storage import fts_log
from memlode.storage.fts_match import phrase_scores
from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from memlode.storage.sql import Connection
    from memlode.storage.store import Store

__all__ = ["QueryScores", "TextIndex", "score_query"]

log = logging.getLogger(__name__)

# fts5Bm25Function's constants.
K1 = 1.2
B = 0.75
_MIN_IDF = 1e-6
# Rows changed since the build that the overlay may hold before a rebuild: a share of the
# store, at least a floor (small stores rebuild in milliseconds anyway).
_OVERLAY_SHARE = 0.05
_OVERLAY_FLOOR = 2_000
# A phrase (a query word of several tokens) is scored by FTS5; one that matches more rows than
# this would cost more than the whole FTS5 query, so the query goes to FTS5.
PHRASE_BUDGET = 6_000
# A process that searches this many times builds the index (see the module docstring).
BUILD_AFTER_SEARCHES = 2
# After a build that failed (an unreadable store, rowids too sparse), wait this long to retry.
_RETRY_SECONDS = 60.0

# One copy per database in a process, while an engine holds it (see TextIndex.shared).
_SHARED: weakref.WeakValueDictionary[str, TextIndex] = weakref.WeakValueDictionary()
_SHARED_LOCK = threading.Lock()


@dataclass(slots=True)
class QueryScores:
    """A query's BM25 rank (negated bm25(), higher is better) of every row, 0 where no term
    matches."""

    scores: npt.NDArray[np.float64]
    _matched: int | None = None  # rows with a rank, counted once

    def best(self, limit: int, skip: int = 0) -> list[tuple[int, float]]:
        """The (rowid, rank) of the matching rows ranked ``skip`` to ``skip + limit``, best
        first; ties by rowid, as FTS5's ``ORDER BY score`` with rowid order."""
        scores = self.scores
        want = skip + limit
        # every row scoring at least the cut's score (a tie across the cut included)
        rows = at_least(scores, want)
        if rows is not None:
            rows = rows[scores[rows] > 0]
        if rows is None or len(rows) < want:
            rows = np.flatnonzero(scores > 0)
            if len(rows) > want:
                part = np.argpartition(-scores[rows], want - 1)[:want]
                rows = rows[scores[rows] >= scores[rows[part]].min()]
        order = np.lexsort((rows, -scores[rows]))[skip:want]
        return [(int(r), float(scores[r])) for r in rows[order]]

    def matched(self) -> int:
        if self._matched is None:
            self._matched = int(np.count_nonzero(self.scores))  # every rank is > 0
        return self._matched

    def ranks(self, rowids: Iterable[int]) -> dict[int, float]:
        scores, size = self.scores, len(self.scores)
        return {r: float(scores[r]) for r in rowids if 0 <= r < size and scores[r] > 0}


def score_query(
    postings: Postings,
    tokenizer: FtsTokenizer,
    conn: sqlite3.Connection,
    terms: list[str],
    *,
    phrase_budget: int = PHRASE_BUDGET,
) -> QueryScores | None:
    """bm25() of the OR of ``terms`` (each a phrase) for every row; None when FTS5 should score
    it (a phrase of more than ``phrase_budget`` rows, or a word with no token)."""
    rows = postings.rows
    scores = np.zeros(len(postings.lengths), dtype=np.float64)
    if rows == 0:
        return QueryScores(scores)
    in_sql = dialect_of(conn).has_fts5  # else phrases are scored from the rows' text
    if not in_sql:
        from memlode.search.phrases import phrase_ranks
    row_norms = postings.norms(K1, B)
    for term in terms:
        tokens = tokenizer.tokens(term)
        if len(tokens) == 1:
            docs, freqs = postings.postings(tokens[0])
            if not len(docs):
                continue
            idf = math.log((rows - len(docs) + 0.5) / (len(docs) + 0.5))
            if idf <= 0.0:
                idf = _MIN_IDF
            # fts5Bm25Function's expression, term for term, so the doubles come out the same.
            # Rowids as intp first: fancy indexing with the int32 rowids kept in the postings
            # is slower (at 1M rows: 6.9 against 8.0 ms a query; np.add.at took 24)
            at = docs.astype(np.intp)
            scores[at] += idf * ((freqs * (K1 + 1.0)) / (freqs + row_norms[at]))
        elif not tokens:
            if not in_sql:  # no FTS5 to ask: a word without a token matches nothing
                continue
            return None
        elif not in_sql:
            for rowid, rank in phrase_ranks(
                postings, tokenizer, conn, tokens, k1=K1, b=B, min_idf=_MIN_IDF
            ):
                scores[rowid] += rank
        else:
            phrase = _phrase_scores(conn, term, phrase_budget)
            if phrase is None:
                return None
            for rowid, rank in phrase:
                if rowid < len(scores):
                    scores[rowid] += rank
    return QueryScores(scores)


def release_free_memory() -> None:
    """Hand the heap pages freed by a build back to the system. A build makes millions of
    small strings (pieces, tokens) and frees them; glibc keeps the fragmented arenas, so the
    process stayed ~330 MB larger after a 1M-row build than it needed to be (781 MB against
    452 MB after ``malloc_trim``). Only where glibc's ``malloc_trim`` exists."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # another C library (musl): nothing to do
        return
    trim(0)


def _phrase_scores(
    conn: sqlite3.Connection, term: str, budget: int
) -> list[tuple[int, float]] | None:
    rows = phrase_scores(conn, term, budget + 1)
    return None if len(rows) > budget else rows


class TextIndex:
    """The in-memory FTS copy of one store, kept for the engines that search it.

    ``scorer(conn)`` is called on the engine's thread before each query: it brings the copy up
    to date (or starts building it) and returns what can score the query, or None.

    ``TextIndex.shared`` gives every engine of a process on one database the same copy: the
    MCP server searches from its tools' engine and from the resident's it hosts, and two
    copies of a 1M-memory store were ~0.4 GB more (and two builds' peaks). Refreshes and
    scoring take turns under a lock; ``close`` lets the copy go with its last holder.
    """

    @classmethod
    def shared(cls, store: Store | None) -> TextIndex:
        """The process's copy for ``store`` (a new one if nobody holds it)."""
        key = store.key if store is not None else None
        if store is None or key is None:
            return cls(store)  # each in-memory store is its own
        with _SHARED_LOCK:
            found = _SHARED.get(key)
            if found is None or found._holders == 0:
                found = _SHARED[key] = cls(store)
            else:
                found._holders += 1
            return found

    def __init__(self, store: Store | None) -> None:
        self._holders = 1
        self._use = threading.RLock()  # refresh and scoring, for engines on several threads
        # what opens the builder's own connection (None: build on the caller's)
        self.store = store if store is not None and store.key is not None else None
        self._current: Postings | None = None
        self._tokenizers: dict[int, FtsTokenizer] = {}
        self._searches = 0
        self._lock = threading.Lock()
        self._builder: threading.Thread | None = None
        self._built: Postings | None = None
        self._stop = threading.Event()
        self._retry_at = 0.0
        self.builds = 0

    def tokenizer(self, conn: sqlite3.Connection) -> FtsTokenizer:
        """The tokenizer of ``conn`` (its temporary tables belong to that connection)."""
        with self._lock:
            found = self._tokenizers.get(id(conn))
            if found is None or found.conn is not conn:
                found = self._tokenizers[id(conn)] = FtsTokenizer(conn)
            return found

    def scorer(self, conn: sqlite3.Connection) -> Postings | None:
        """Up-to-date postings for a query on ``conn``, or None (FTS5 scores this one)."""
        with self._use:
            return self._scorer(conn)

    def _scorer(self, conn: sqlite3.Connection) -> Postings | None:
        self._searches += 1
        with self._lock:
            if self._built is not None:
                self._current, self._built = self._built, None
        current = self._current
        if not dialect_of(conn).has_fts5:  # no FTS5 to answer meanwhile: this index, now
            found = self._refresh(conn, current) if current is not None else None
            return found if found is not None else self._build_here(conn)
        if current is None:
            if self._searches >= BUILD_AFTER_SEARCHES:
                self._start_build(conn)
            return None
        try:
            return self._refresh(conn, current)
        except sqlite3.Error as exc:  # a damaged or locked store: FTS5 answers
            log.info("in-memory text index not refreshed: %s", exc)
            return None

    def _build_here(self, conn: Connection) -> Postings:
        """Build the index on the caller's connection and thread (a PostgreSQL store, where
        nothing else can score a query: every search of a one-shot command reads the store)."""
        built = build_postings(conn, self.tokenizer(conn))
        if built is None:
            raise StorageError(
                "the store's text index cannot be built in memory (its row ids are too sparse)"
            )
        self._current = built
        self._built_or_failed(built)
        return built

    def scores(
        self, conn: sqlite3.Connection, postings: Postings, terms: list[str]
    ) -> QueryScores | None:
        """Every row's BM25 rank for the OR of ``terms`` (a query's ``fts_terms``), or None."""
        if not terms:
            return None
        with self._use:  # another engine's refresh may be applying changes to ``postings``
            return score_query(postings, self.tokenizer(conn), conn, terms)

    def document_frequencies(
        self, conn: sqlite3.Connection, terms: list[str]
    ) -> tuple[int, dict[str, int]] | None:
        """(rows, {term: rows holding it}) from the up-to-date postings, as FTS5 counts a
        quoted term (a term of several tokens: its rarest token's rows); None without them."""
        postings = self.scorer(conn)
        if postings is None:
            return None
        tokenizer = self.tokenizer(conn)
        with self._use:
            counts = {
                term: min((len(postings.postings(t)[0]) for t in tokenizer.tokens(term)), default=0)
                for term in terms
            }
            return postings.rows, counts

    def _refresh(self, conn: sqlite3.Connection, current: Postings) -> Postings | None:
        seq = log_seq(conn)
        if seq == current.seq:
            return current
        oldest = fts_log.oldest_seq(conn)
        limit = max(_OVERLAY_FLOOR, int(current.rows * _OVERLAY_SHARE))
        rowids = fts_log.changed_rowids(conn, current.seq, seq, limit + 1)
        if (oldest is not None and oldest > current.seq + 1) or len(rowids) > limit:
            self._current = None  # too far behind: read it again
            self._start_build(conn)
            return None
        current.apply(changed_rows(conn, self.tokenizer(conn), rowids), seq)
        if len(current.overlay_rows) > limit // 2:
            self._start_build(conn)  # the overlay is used until the new copy is ready
        return current

    def _start_build(self, conn: sqlite3.Connection) -> None:
        if self._builder is not None and self._builder.is_alive():
            return
        if time.monotonic() < self._retry_at:
            return
        if self.store is None:  # no second connection to an in-memory store: build here
            self._current = build_postings(conn, self.tokenizer(conn))
            self._built_or_failed(self._current)
            return
        self._builder = threading.Thread(target=self._build, name="memlode-text-index", daemon=True)
        self._builder.start()

    def _build(self) -> None:
        assert self.store is not None
        try:
            reader = self.store.reader()
        except StorageError as exc:
            log.info("no connection to build the in-memory text index: %s", exc)
            reader = None
        if reader is None:
            with self._lock:
                self._built_or_failed(None)
            return
        try:
            built = build_postings(reader, FtsTokenizer(reader), self._stop)
        except sqlite3.Error as exc:
            log.info("in-memory text index not built: %s", exc)
            built = None
        finally:
            reader.close()
        release_free_memory()
        with self._lock:
            if built is not None:
                self._built = built
            if not self._stop.is_set():
                self._built_or_failed(built)

    def _built_or_failed(self, built: Postings | None) -> None:
        if built is None:
            self._retry_at = time.monotonic() + _RETRY_SECONDS
        else:
            self.builds += 1

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for a build under way; True when none is running any more."""
        builder = self._builder
        if builder is not None:
            builder.join(timeout)
            return not builder.is_alive()
        return True

    def close(self) -> None:
        """Let go of the copy (its last holder stops a build and drops it)."""
        with _SHARED_LOCK:
            if self._holders <= 0:  # closed already
                return
            self._holders -= 1
            if self._holders > 0:
                return
        self._stop.set()
        self.wait()
        self._current = self._built = None
        self._tokenizers.clear()
