"""Exact BM25 from an in-memory copy of the FTS index, for a process that searches again.

FTS5 walks doclists fast but its ``bm25()`` costs about 2 us for every matching row, and a
hybrid query at 100k memories matches thousands: 30 ms of a query's 45 went there (pruned, see
``search/fts.py``). This module keeps what ``bm25()`` reads - for every token the rows holding
it with their column-weighted frequency, every row's length, the row and token totals - in
numpy arrays, and scores a whole query over every row in a few milliseconds with FTS5's own
formula (``fts5Bm25Function``: k1 1.2, b 0.75, IDF floored at 1e-6, ``BM25_WEIGHTS`` per
column). Nothing is pruned, and the scores are ``bm25()``'s (up to the order of a sum).

Tokens are FTS5's own: text is cut at ASCII separators (where unicode61 always cuts), and each
distinct piece is tokenised once by a temporary FTS5 table with the same tokenizer, whose
``fts5vocab`` instance table gives the piece's tokens. Stemming, case and diacritic folding
and unicode separators are therefore SQLite's. A query word that makes a phrase of several
tokens (``snake_case`` words, ``Caroline's``) is scored by FTS5 itself: ``bm25()`` is a sum over
phrases, so the phrase's share is exactly a one-phrase query's score.

Freshness: migration 0007 logs the rowid of every memory whose text is inserted, updated or
deleted. Before each query the index applies the rows logged since it was read (tokenised
again, in an overlay); past ``_OVERLAY_SHARE`` of the store it is rebuilt in the background.
Building reads the whole store (0.6 s at 10k rows, 5-8 s at 100k on the project's 2-core
machine), so it starts only when a process searches for the second time (a one-shot CLI search
never pays for it), on its own connection and thread; until it is ready BM25 runs in FTS5.
"""

from __future__ import annotations

import logging
import math
import re
import sqlite3
import threading
import time
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memlode.errors import StorageError
from memlode.search.fts import BM25_WEIGHTS, fts_query, query_terms
from memlode.storage.db import connect

__all__ = ["FtsTokenizer", "Postings", "QueryScores", "TextIndex", "build_postings"]

log = logging.getLogger(__name__)

# fts5Bm25Function's constants.
K1 = 1.2
B = 0.75
_MIN_IDF = 1e-6
TOKENIZER = "porter unicode61 remove_diacritics 2"  # memories_fts's (migration 0006)
_TEXT_COLUMNS = "content, tags, search_terms, context_near, context_far"  # BM25_WEIGHTS' order
# unicode61 cuts at every ASCII character that is not a letter or digit; everything else
# (non-ASCII separators included) is left to FTS5 inside a piece.
_PIECE = re.compile(r"[0-9A-Za-z\x80-\U0010ffff]+")
_BATCH = 2_000
# Rows changed since the build that the overlay may hold before a rebuild: a share of the
# store, at least a floor (small stores rebuild in milliseconds anyway).
_OVERLAY_SHARE = 0.05
_OVERLAY_FLOOR = 2_000
# A phrase (a query word of several tokens) is scored by FTS5; one that matches more rows than
# this would cost more than the whole FTS5 query, so the query goes to FTS5.
PHRASE_BUDGET = 6_000
# rowids much larger than the row count would make the dense per-row arrays wasteful.
_MAX_SPARSITY = 4
_MAX_CACHED_PIECES = 500_000
# A process that searches this many times builds the index (see the module docstring).
BUILD_AFTER_SEARCHES = 2
# After a build that failed (an unreadable store, rowids too sparse), wait this long to retry.
_RETRY_SECONDS = 60.0


class FtsTokenizer:
    """FTS5's tokenizer, run on text pieces through a temporary table of ``conn``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memlode_tokenizer USING fts5"
            f"(piece, content='', tokenize='{TOKENIZER}')"
        )
        conn.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.memlode_tokenizer_vocab"
            " USING fts5vocab(temp, memlode_tokenizer, instance)"
        )
        self.cache: dict[str, tuple[str, ...]] = {}

    def learn(self, pieces: Iterable[str]) -> None:
        """Tokenise the pieces not yet known (one insert and one read for all of them)."""
        asked = list(dict.fromkeys(pieces))
        if len(self.cache) + len(asked) > _MAX_CACHED_PIECES:
            self.cache.clear()
        new = [p for p in asked if p not in self.cache]
        if not new:
            return
        conn = self.conn
        clear = "INSERT INTO temp.memlode_tokenizer (memlode_tokenizer) VALUES ('delete-all')"
        conn.execute(clear)  # in case an earlier call stopped half way
        conn.executemany(
            "INSERT INTO temp.memlode_tokenizer (rowid, piece) VALUES (?, ?)", enumerate(new)
        )
        found: dict[int, list[str]] = {}
        rows = conn.execute(
            "SELECT doc, term FROM temp.memlode_tokenizer_vocab ORDER BY doc, offset"
        )
        for doc, term in rows:
            found.setdefault(doc, []).append(term)
        conn.execute(clear)
        for i, piece in enumerate(new):
            self.cache[piece] = tuple(found.get(i, ()))

    def tokens(self, text: str) -> list[str]:
        """``text``'s tokens as memories_fts stores them, in order."""
        pieces = _PIECE.findall(text)
        self.learn(pieces)
        return list(chain.from_iterable(self.cache[p] for p in pieces))


@dataclass(slots=True)
class Postings:
    """One store's FTS postings: a base read at ``seq`` plus an overlay of rows changed since.

    ``starts[t]:starts[t+1]`` slices ``docs``/``freqs`` for token id ``t`` (rowids ascending);
    ``freqs`` are column-weighted counts. Per-rowid arrays: ``lengths`` (tokens in the row),
    ``present`` (the row exists), ``dead`` (its base postings are out of date).
    """

    vocab: dict[str, int]
    starts: npt.NDArray[np.int64]
    docs: npt.NDArray[np.int64]
    freqs: npt.NDArray[np.float64]
    lengths: npt.NDArray[np.float64]
    present: npt.NDArray[np.bool_]
    dead: npt.NDArray[np.bool_]
    rows: int
    tokens: int
    seq: int
    overlay: dict[str, dict[int, float]] = field(default_factory=dict)
    overlay_rows: dict[int, list[str]] = field(default_factory=dict)
    has_dead: bool = False  # some row's base postings are out of date

    def postings(self, token: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """(rowids, weighted frequencies) of the rows holding ``token``."""
        t = self.vocab.get(token)
        if t is None:
            docs, freqs = _EMPTY_DOCS, _EMPTY_FREQS
        else:
            docs, freqs = (
                self.docs[self.starts[t] : self.starts[t + 1]],
                self.freqs[self.starts[t] : self.starts[t + 1]],
            )
            if self.has_dead:
                alive = ~self.dead[docs]
                if not alive.all():
                    docs, freqs = docs[alive], freqs[alive]
        extra = self.overlay.get(token)
        if extra:
            docs = np.concatenate([docs, np.fromiter(extra, np.int64, len(extra))])
            freqs = np.concatenate([freqs, np.fromiter(extra.values(), np.float64, len(extra))])
        return docs, freqs

    def apply(self, changed: dict[int, list[tuple[int, str]] | None], seq: int) -> None:
        """Replace the rows in ``changed`` (rowid -> (column, token) list; None: deleted)."""
        top = max(changed, default=0)
        if top >= len(self.lengths):
            grow = max(top + 1, len(self.lengths) * 2) - len(self.lengths)
            self.lengths = np.concatenate([self.lengths, np.zeros(grow)])
            self.present = np.concatenate([self.present, np.zeros(grow, dtype=bool)])
            self.dead = np.concatenate([self.dead, np.zeros(grow, dtype=bool)])
        for rowid, tokens in changed.items():
            old = self.overlay_rows.pop(rowid, None)
            if old is not None:
                for token in old:
                    self.overlay[token].pop(rowid, None)
            else:  # its base postings, if it has any, no longer count
                self.dead[rowid] = self.has_dead = True
            if self.present[rowid]:
                self.rows -= 1
                self.tokens -= int(self.lengths[rowid])
            self.present[rowid], self.lengths[rowid] = False, 0.0
            if tokens is None:
                continue
            freqs: dict[str, float] = {}
            for column, token in tokens:
                freqs[token] = freqs.get(token, 0.0) + BM25_WEIGHTS[column]
            for token, freq in freqs.items():
                self.overlay.setdefault(token, {})[rowid] = freq
            self.overlay_rows[rowid] = list(freqs)
            self.present[rowid], self.lengths[rowid] = True, float(len(tokens))
            self.rows += 1
            self.tokens += len(tokens)
        self.seq = seq


_EMPTY_DOCS: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
_EMPTY_FREQS: npt.NDArray[np.float64] = np.zeros(0, dtype=np.float64)


def build_postings(
    conn: sqlite3.Connection, tokenizer: FtsTokenizer, stop: threading.Event | None = None
) -> Postings | None:
    """Read the whole store into ``Postings`` (None when stopped, or when the rowids are too
    sparse for per-row arrays). One read transaction, so the rows and ``seq`` agree."""
    conn.execute("BEGIN")
    try:
        seq = _log_seq(conn)
        count, top = conn.execute(
            "SELECT count(*), coalesce(max(rowid), 0) FROM memories"
        ).fetchone()
        if top > _MAX_SPARSITY * count + 100_000:
            return None
        reader = _StoreReader(tokenizer)
        cursor = conn.execute(f"SELECT rowid, {_TEXT_COLUMNS} FROM memories")
        while batch := cursor.fetchmany(_BATCH):
            if stop is not None and stop.is_set():
                return None
            reader.read(batch)
    finally:
        conn.execute("COMMIT")
    return reader.postings(seq, top)


# Every ASCII byte that is not a letter or digit becomes a space; the rest stay (UTF-8 bytes of
# non-ASCII characters are all >= 0x80, so a cut never falls inside a character).
_ASCII_CUTS = bytes(c if c >= 0x80 or chr(c).isalnum() else 0x20 for c in range(256))


class _StoreReader:
    """The token ids of every row's columns, read batch by batch (see ``build_postings``).

    Work per token is kept in C: a cell's text is cut with ``bytes.translate``/``split`` and its
    pieces mapped to token ids with ``map``; a piece FTS5 makes zero or several tokens of is
    stored as a negative reference into ``multi`` and expanded once at the end.
    """

    def __init__(self, tokenizer: FtsTokenizer) -> None:
        self.tokenizer = tokenizer
        self.vocab: dict[str, int] = {}
        self.ids: dict[bytes, int] = {}
        self.multi: list[tuple[int, ...]] = []
        self.pieces: array[int] = array("q")
        self.cell_rows: array[int] = array("q")
        self.cell_columns: array[int] = array("b")
        self.cell_sizes: array[int] = array("q")
        self.rowids: array[int] = array("q")

    def read(self, batch: list[tuple[int, str, str, str, str, str]]) -> None:
        cells: list[tuple[int, int, list[bytes]]] = []
        for rowid, *texts in batch:
            self.rowids.append(rowid)
            for column, text in enumerate(texts):
                if text:
                    pieces = text.encode().translate(_ASCII_CUTS).split()
                    if pieces:
                        cells.append((rowid, column, pieces))
        unknown = set().union(*(pieces for _, _, pieces in cells)) - self.ids.keys()
        if unknown:
            self._learn(unknown)
        lookup = self.ids.__getitem__
        for rowid, column, pieces in cells:
            self.pieces.extend(map(lookup, pieces))
            self.cell_rows.append(rowid)
            self.cell_columns.append(column)
            self.cell_sizes.append(len(pieces))

    def _learn(self, pieces: set[bytes]) -> None:
        text = {piece: piece.decode() for piece in pieces}
        self.tokenizer.learn(text.values())
        vocab = self.vocab
        for piece, decoded in text.items():
            tokens = tuple(vocab.setdefault(t, len(vocab)) for t in self.tokenizer.cache[decoded])
            if len(tokens) == 1:
                self.ids[piece] = tokens[0]
            else:
                self.ids[piece] = -1 - len(self.multi)
                self.multi.append(tokens)

    def postings(self, seq: int, top: int) -> Postings:
        pieces = _int64(self.pieces)
        cell_of_piece = np.repeat(np.arange(len(self.cell_sizes)), _int64(self.cell_sizes))
        refs = np.flatnonzero(pieces < 0)
        if len(refs):  # expand the pieces of zero or several tokens
            multi = [self.multi[-1 - int(pieces[j])] for j in refs]
            counts = np.ones(len(pieces), dtype=np.int64)
            counts[refs] = [len(m) for m in multi]
            terms = np.repeat(pieces, counts)
            at = np.cumsum(counts) - counts
            for j, tokens in zip(refs, multi, strict=True):
                terms[at[j] : at[j] + len(tokens)] = tokens
            token_cells = np.repeat(cell_of_piece, counts)
        else:
            terms, token_cells = pieces, cell_of_piece
        docs = _int64(self.cell_rows)[token_cells]
        column_weight = np.asarray(BM25_WEIGHTS, dtype=np.float64)
        columns = np.frombuffer(self.cell_columns, dtype=np.int8).astype(np.int64)
        weights = column_weight[columns][token_cells]
        return _aggregate(self.vocab, terms, docs, weights, _int64(self.rowids), seq, top)


def _int64(values: array[int]) -> npt.NDArray[np.int64]:
    return np.frombuffer(values, dtype=np.int64) if len(values) else _EMPTY_DOCS


def _aggregate(
    vocab: dict[str, int],
    terms: npt.NDArray[np.int64],
    docs: npt.NDArray[np.int64],
    weights: npt.NDArray[np.float64],
    rowids: npt.NDArray[np.int64],
    seq: int,
    top: int,
) -> Postings:
    # One entry per (token, row): sorted stably, so a row's weights add up in the order of its
    # columns and positions, as bm25() adds them.
    keys = (terms << 32) | docs
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    if len(keys):
        starts_at = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        freqs = np.add.reduceat(weights[order], starts_at)
    else:
        starts_at, freqs = _EMPTY_DOCS, _EMPTY_FREQS
    first = keys[starts_at]
    post_terms, post_docs = first >> 32, first & 0xFFFFFFFF
    size = top + 1
    present = np.zeros(size, dtype=bool)
    present[rowids] = True
    return Postings(
        vocab=vocab,
        starts=np.searchsorted(post_terms, np.arange(len(vocab) + 1)).astype(np.int64),
        docs=post_docs.astype(np.int64),
        freqs=freqs.astype(np.float64),
        lengths=np.bincount(docs, minlength=size).astype(np.float64),
        present=present,
        dead=np.zeros(size, dtype=bool),
        rows=len(rowids),
        tokens=len(terms),
        seq=seq,
    )


def _log_seq(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT coalesce(max(seq), 0) FROM memories_fts_log").fetchone()[0])


def changed_rows(
    conn: sqlite3.Connection, tokenizer: FtsTokenizer, rowids: Sequence[int]
) -> dict[int, list[tuple[int, str]] | None]:
    """rowid -> its (column, token) list now, or None for a row that no longer exists."""
    out: dict[int, list[tuple[int, str]] | None] = dict.fromkeys(rowids)
    for start in range(0, len(rowids), 500):
        chunk = list(rowids[start : start + 500])
        rows = conn.execute(
            f"SELECT rowid, {_TEXT_COLUMNS} FROM memories"
            f" WHERE rowid IN ({','.join('?' * len(chunk))})",
            chunk,
        ).fetchall()
        for rowid, *texts in rows:
            out[rowid] = [
                (column, token)
                for column, text in enumerate(texts)
                if text
                for token in tokenizer.tokens(text)
            ]
    return out


@dataclass(slots=True)
class QueryScores:
    """A query's BM25 rank (negated bm25(), higher is better) of every row, 0 where no term
    matches."""

    scores: npt.NDArray[np.float64]

    def best(self, limit: int, skip: int = 0) -> list[tuple[int, float]]:
        """The (rowid, rank) of the matching rows ranked ``skip`` to ``skip + limit``, best
        first; ties by rowid, as FTS5's ``ORDER BY score`` with rowid order."""
        scores = self.scores
        matched = np.flatnonzero(scores > 0)
        want = skip + limit
        if len(matched) > want:
            part = np.argpartition(-scores[matched], want - 1)[:want]
            # the cut may split a tie: keep every row scoring at least the cut's score
            floor = scores[matched[part]].min()
            matched = matched[scores[matched] >= floor]
        order = np.lexsort((matched, -scores[matched]))[skip:want]
        return [(int(r), float(scores[r])) for r in matched[order]]

    def matched(self) -> int:
        return int(np.count_nonzero(self.scores > 0))

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
    avgdl = postings.tokens / rows
    for term in terms:
        tokens = tokenizer.tokens(term)
        if len(tokens) == 1:
            docs, freqs = postings.postings(tokens[0])
            if not len(docs):
                continue
            idf = math.log((rows - len(docs) + 0.5) / (len(docs) + 0.5))
            if idf <= 0.0:
                idf = _MIN_IDF
            # fts5Bm25Function's expression, term for term, so the doubles come out the same
            norm = K1 * (1 - B + B * postings.lengths[docs] / avgdl)
            scores[docs] += idf * ((freqs * (K1 + 1.0)) / (freqs + norm))
        elif not tokens:
            return None
        else:
            phrase = _phrase_scores(conn, term, phrase_budget)
            if phrase is None:
                return None
            for rowid, rank in phrase:
                if rowid < len(scores):
                    scores[rowid] += rank
    return QueryScores(scores)


def _phrase_scores(
    conn: sqlite3.Connection, term: str, budget: int
) -> list[tuple[int, float]] | None:
    weights = ", ".join(map(str, BM25_WEIGHTS))
    rows = conn.execute(
        f"SELECT rowid, bm25(memories_fts, {weights}) FROM memories_fts"
        " WHERE memories_fts MATCH ? LIMIT ?",
        (fts_query([term]), budget + 1),
    ).fetchall()
    if len(rows) > budget:
        return None
    return [(int(rowid), -float(score)) for rowid, score in rows]


class TextIndex:
    """The in-memory FTS copy of one store, kept by the engine that searches it.

    ``scorer(conn)`` is called on the engine's thread before each query: it brings the copy up
    to date (or starts building it) and returns what can score the query, or None.
    """

    def __init__(self, database: Path | None) -> None:
        self.database = database if database is not None and str(database) != ":memory:" else None
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
        self._searches += 1
        with self._lock:
            if self._built is not None:
                self._current, self._built = self._built, None
        current = self._current
        if current is None:
            if self._searches >= BUILD_AFTER_SEARCHES:
                self._start_build(conn)
            return None
        try:
            return self._refresh(conn, current)
        except sqlite3.Error as exc:  # a damaged or locked store: FTS5 answers
            log.info("in-memory text index not refreshed: %s", exc)
            return None

    def scores(
        self, conn: sqlite3.Connection, postings: Postings, query: str
    ) -> QueryScores | None:
        """Every row's BM25 rank for ``query`` (the terms ``Bm25Query`` would OR), or None."""
        terms = query_terms(query)
        if not terms:
            return None
        return score_query(postings, self.tokenizer(conn), conn, terms)

    def _refresh(self, conn: sqlite3.Connection, current: Postings) -> Postings | None:
        seq = _log_seq(conn)
        if seq == current.seq:
            return current
        oldest = conn.execute("SELECT min(seq) FROM memories_fts_log").fetchone()[0]
        limit = max(_OVERLAY_FLOOR, int(current.rows * _OVERLAY_SHARE))
        rowids = [
            r
            for (r,) in conn.execute(
                "SELECT DISTINCT row FROM memories_fts_log WHERE seq > ? AND seq <= ? LIMIT ?",
                (current.seq, seq, limit + 1),
            )
        ]
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
        if self.database is None:  # no second connection to an in-memory store: build here
            self._current = build_postings(conn, self.tokenizer(conn))
            self._built_or_failed(self._current)
            return
        self._builder = threading.Thread(target=self._build, name="memlode-text-index", daemon=True)
        self._builder.start()

    def _build(self) -> None:
        assert self.database is not None
        try:
            reader = connect(self.database, readonly=True)
        except StorageError as exc:
            log.info("no connection to build the in-memory text index: %s", exc)
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
        self._stop.set()
        self.wait()
        self._current = self._built = None
        self._tokenizers.clear()
