"""The data behind ``search/text_index.py``: one store's FTS postings, read with FTS5's tokens.

``Postings`` holds, for every token, the rows containing it and their column-weighted frequency
(``BM25_WEIGHTS``), every row's length and the row and token totals: what FTS5's ``bm25()``
reads. ``build_postings`` reads a whole store into it; ``Postings.apply`` replaces rows that
changed since (from the change log of migration 0007).

Tokens are FTS5's own: text is cut at ASCII separators (where unicode61 always cuts), and each
distinct piece is tokenised once by a temporary FTS5 table with the same tokenizer
(``FtsTokenizer``), whose ``fts5vocab`` instance table gives the piece's tokens. Stemming, case
and diacritic folding and unicode separators are therefore SQLite's.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain
from typing import Any

import numpy as np
import numpy.typing as npt

from memlode.search.fts import BM25_WEIGHTS
from memlode.storage import fts_texts

__all__ = ["FtsTokenizer", "Postings", "build_postings", "changed_rows", "log_seq"]

TOKENIZER = "porter unicode61 remove_diacritics 2"  # memories_fts's (migration 0006)
# unicode61 cuts at every ASCII character that is not a letter or digit; everything else
# (non-ASCII separators included) is left to FTS5 inside a piece.
_PIECE = re.compile(r"[0-9A-Za-z\x80-\U0010ffff]+")
_BATCH = 2_000
# rowids much larger than the row count would make the dense per-row arrays wasteful.
_MAX_SPARSITY = 4
_MAX_CACHED_PIECES = 500_000
# Distinct weighted frequencies kept as uint16 codes (see ``_FreqTable``).
FREQ_CODES = 65_536


class FtsTokenizer:
    """FTS5's tokenizer, run on text pieces through a temporary table of ``conn``."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        fts_texts.create_tokenizer(conn, TOKENIZER)
        self.cache: dict[str, tuple[str, ...]] = {}

    def learn(self, pieces: Iterable[str]) -> None:
        """Tokenise the pieces not yet known (one insert and one read for all of them)."""
        asked = list(dict.fromkeys(pieces))
        if len(self.cache) + len(asked) > _MAX_CACHED_PIECES:
            self.cache.clear()
        new = [p for p in asked if p not in self.cache]
        if not new:
            return
        found = fts_texts.tokenize_pieces(self.conn, new)
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
    ``freqs`` are column-weighted counts, stored as codes into ``freq_table`` (see
    ``_FreqTable``). Per-rowid arrays: ``lengths`` (tokens in the row), ``present`` (the row
    exists), ``dead`` (its base postings are out of date).
    """

    vocab: Vocabulary
    starts: npt.NDArray[np.int64]
    docs: npt.NDArray[Any]  # int32 rowids (int64 past 2**31)
    freqs: npt.NDArray[Any]  # codes into ``freq_table``, or the doubles themselves
    lengths: npt.NDArray[np.float64]
    present: npt.NDArray[np.bool_]
    dead: npt.NDArray[np.bool_]
    rows: int
    tokens: int
    seq: int
    overlay: dict[str, dict[int, float]] = field(default_factory=dict)
    overlay_rows: dict[int, list[str]] = field(default_factory=dict)
    has_dead: bool = False  # some row's base postings are out of date
    freq_table: npt.NDArray[np.float64] | None = None  # the value of each frequency code
    _norms: npt.NDArray[np.float64] | None = None  # see ``norms``

    def norms(self, k1: float, b: float) -> npt.NDArray[np.float64]:
        """Every row's ``k1 * (1 - b + b * length / avgdl)``, the length part of bm25()'s
        denominator, computed once per state of the statistics (rows change them) instead of
        for every posting of every query term; the same expression, so the same doubles."""
        if self._norms is None:
            avgdl = self.tokens / self.rows if self.rows else 1.0
            self._norms = k1 * (1 - b + b * self.lengths / avgdl)
        return self._norms

    def postings(self, token: str) -> tuple[npt.NDArray[Any], npt.NDArray[np.float64]]:
        """(rowids, weighted frequencies) of the rows holding ``token``."""
        t = self.vocab.get(token)
        if t is None:
            docs, freqs = _EMPTY_DOCS, _EMPTY_FREQS
        else:
            begin, end = self.starts[t], self.starts[t + 1]
            docs, freqs = self.docs[begin:end], self.freqs[begin:end]
            if self.freq_table is not None:
                freqs = self.freq_table[freqs]
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
        self._norms = None  # lengths and the average length change
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


class Vocabulary:
    """Token -> token id, the ids being the tokens' places in sorted order; the tokens are
    kept as one UTF-8 blob with offsets and found by binary search (~20 us). A 1M-row store
    has ~1.7M distinct tokens (ticket numbers, identifiers): ~200 MB as a dict, ~30 MB here."""

    def __init__(self, tokens: dict[str, int]) -> None:
        keys = list(tokens)
        by_token = np.argsort(np.array(keys, dtype=object), kind="stable")
        # order[i]: the id of the i-th key of ``tokens`` (in its iteration order)
        self.order = np.empty(len(keys), dtype=np.int32)
        self.order[by_token] = np.arange(len(keys), dtype=np.int32)
        ordered = [keys[i] for i in by_token.tolist()]
        # one encode of the whole text, not a bytes object a token (~70 MB at 1.4M tokens)
        self.blob = "".join(ordered).encode()
        self.offsets: array[int] = array("q", [0])
        self.offsets.extend(accumulate(len(t) if t.isascii() else len(t.encode()) for t in ordered))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def get(self, token: str) -> int | None:
        key = token.encode("utf-8", "surrogatepass")
        blob, offsets = self.blob, self.offsets
        lo, hi = 0, len(offsets) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if blob[offsets[mid] : offsets[mid + 1]] < key:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(offsets) - 1 and blob[offsets[lo] : offsets[lo + 1]] == key:
            return lo
        return None


def build_postings(
    conn: sqlite3.Connection, tokenizer: FtsTokenizer, stop: threading.Event | None = None
) -> Postings | None:
    """Read the whole store into ``Postings`` (None when stopped, or when the rowids are too
    sparse for per-row arrays). One read transaction, so the rows and ``seq`` agree."""
    with fts_texts.read_snapshot(conn):
        seq = log_seq(conn)
        count, top = fts_texts.store_extent(conn)
        if top > _MAX_SPARSITY * count + 100_000:
            return None
        reader = _StoreReader(tokenizer, top)
        cursor = fts_texts.text_rows(conn)
        while batch := cursor.fetchmany(_BATCH):
            if stop is not None and stop.is_set():
                return None
            reader.read(batch)
    return reader.postings(seq)


# Every ASCII byte that is not a letter or digit becomes a space; the rest stay (UTF-8 bytes of
# non-ASCII characters are all >= 0x80, so a cut never falls inside a character).
_ASCII_CUTS = bytes(c if c >= 0x80 or chr(c).isalnum() else 0x20 for c in range(256))


class _StoreReader:
    """The (token, row, weighted frequency) entries of a store, read batch by batch.

    Work per token is kept in C: a cell's text is cut with ``bytes.translate``/``split`` and its
    pieces mapped to token ids with ``map``; a piece FTS5 makes zero or several tokens of is
    stored as a negative reference into ``multi`` and expanded per batch. A batch's rows are
    all its own, so its entries are final once summed per (token, row): only those are kept
    (rowids as int32, frequencies as codes of ``_FreqTable``), which holds a 1M-row store's
    build to about a gigabyte instead of four.
    """

    def __init__(self, tokenizer: FtsTokenizer, top: int) -> None:
        self.tokenizer = tokenizer
        self.vocab: dict[str, int] = {}
        self.ids: dict[bytes, int] = {}
        self.multi: list[tuple[int, ...]] = []
        self.doc_type = np.int32 if top < 2**31 else np.int64
        self.lengths = np.zeros(top + 1, dtype=np.float64)
        self.present = np.zeros(top + 1, dtype=bool)
        self.rows = 0
        self.tokens = 0
        self.terms: list[npt.NDArray[Any]] = []
        self.docs: list[npt.NDArray[Any]] = []
        self.freqs = _FreqTable()

    def read(self, batch: list[tuple[int, str, str, str, str, str]]) -> None:
        cut_all: list[bytes] = []
        cell_rows: array[int] = array("q")
        cell_columns: array[int] = array("b")
        cell_sizes: array[int] = array("q")
        for rowid, *texts in batch:
            self.present[rowid] = True
            for column, text in enumerate(texts):
                if text:
                    cut = text.encode().translate(_ASCII_CUTS).split()
                    if cut:
                        cut_all.extend(cut)
                        cell_rows.append(rowid)
                        cell_columns.append(column)
                        cell_sizes.append(len(cut))
        self.rows += len(batch)
        if not cut_all:
            return
        unknown = set(cut_all) - self.ids.keys()
        if unknown:
            self._learn(unknown)
        pieces = np.fromiter(map(self.ids.__getitem__, cut_all), np.int64, len(cut_all))
        terms, token_cells = self._expand(pieces, _int64(cell_sizes))
        docs = _int64(cell_rows)[token_cells]
        column_weight = np.asarray(BM25_WEIGHTS, dtype=np.float64)
        columns = np.frombuffer(cell_columns, dtype=np.int8).astype(np.int64)
        weights = column_weight[columns][token_cells]
        self.tokens += len(terms)
        if not len(docs):
            return
        low = int(docs.min())
        counts = np.bincount(docs - low)
        self.lengths[low : low + len(counts)] += counts
        # One entry per (token, row). The entries come row by row, column by column, position
        # by position; sorted by (token, place) a token's rows ascend and a row's weights stay
        # in the order bm25() adds them in. The keys are unique, so any sort is stable.
        keys = np.sort((terms << 32) | np.arange(len(terms)))
        order = keys & 0xFFFFFFFF
        sorted_terms, sorted_docs = keys >> 32, docs[order]
        new = np.ones(len(keys), dtype=bool)
        new[1:] = (sorted_terms[1:] != sorted_terms[:-1]) | (sorted_docs[1:] != sorted_docs[:-1])
        starts_at = np.flatnonzero(new)
        self.terms.append(sorted_terms[starts_at].astype(np.int32))
        self.docs.append(sorted_docs[starts_at].astype(self.doc_type))
        self.freqs.add(np.add.reduceat(weights[order], starts_at))

    def _expand(
        self, pieces: npt.NDArray[np.int64], cell_sizes: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Token ids (pieces of zero or several tokens expanded) and the cell of each."""
        cell_of_piece = np.repeat(np.arange(len(cell_sizes)), cell_sizes)
        refs = np.flatnonzero(pieces < 0)
        if not len(refs):
            return pieces, cell_of_piece
        multi = [self.multi[-1 - int(pieces[j])] for j in refs]
        counts = np.ones(len(pieces), dtype=np.int64)
        counts[refs] = [len(m) for m in multi]
        terms = np.repeat(pieces, counts)
        at = np.cumsum(counts) - counts
        for j, tokens in zip(refs, multi, strict=True):
            terms[at[j] : at[j] + len(tokens)] = tokens
        return terms, np.repeat(cell_of_piece, counts)

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
        self.tokenizer.cache.clear()  # ``ids`` knows these pieces now

    def postings(self, seq: int) -> Postings:
        """The entries grouped by token, token ids renumbered in the vocabulary's order: each
        batch's run of a token is copied to where that token's rows continue (batches come in
        rowid order, so rowids ascend within every token), batch after batch, each freed once
        placed. No sort of all the entries, and no copy of them beside the result."""
        self.ids.clear()  # the build's lookups are not needed any more
        vocab = Vocabulary(self.vocab)
        renumber = np.empty(len(self.vocab), dtype=np.int32)
        renumber[np.fromiter(self.vocab.values(), np.int64, len(self.vocab))] = vocab.order
        self.vocab.clear()
        runs = [_runs(terms) for terms in self.terms]
        counts = np.zeros(len(vocab), dtype=np.int64)
        for terms, (at, lengths) in zip(self.terms, runs, strict=True):
            counts[renumber[terms[at]]] += lengths  # a token has one run a batch
        starts = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        freq_parts, table = self.freqs.parts, self.freqs.table()
        docs = np.empty(int(starts[-1]), dtype=self.doc_type)
        freqs = np.empty(int(starts[-1]), dtype=freq_parts[0].dtype if freq_parts else np.uint16)
        offset = starts[:-1].copy()
        for b, (at, lengths) in enumerate(runs):
            tokens = renumber[self.terms[b][at]]
            places = np.repeat(offset[tokens] - at, lengths) + np.arange(len(self.terms[b]))
            docs[places] = self.docs[b]
            freqs[places] = freq_parts[b]
            offset[tokens] += lengths
            self.terms[b] = self.docs[b] = freq_parts[b] = _EMPTY_DOCS
        return Postings(
            vocab=vocab,
            starts=starts,
            docs=docs,
            freqs=freqs,
            lengths=self.lengths,
            present=self.present,
            dead=np.zeros(len(self.present), dtype=bool),
            rows=self.rows,
            tokens=self.tokens,
            seq=seq,
            freq_table=table,
        )


def _runs(values: npt.NDArray[Any]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]:
    """Where each run of equal values starts in ``values``, and its length."""
    if not len(values):
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.int64)
    at = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    return at, np.diff(np.r_[at, len(values)])


def _int64(values: array[int]) -> npt.NDArray[np.int64]:
    return np.frombuffer(values, dtype=np.int64) if len(values) else _EMPTY_DOCS


class _FreqTable:
    """Weighted frequencies as small codes into a table of their distinct values (a store has
    a few dozen: sums of a handful of column weights), exact: the table holds the doubles.
    A store with more than ``FREQ_CODES`` distinct values keeps the doubles themselves."""

    def __init__(self) -> None:
        self.values: dict[float, int] = {}
        self.parts: list[Any] = []
        self.coded = True

    def add(self, freqs: npt.NDArray[np.float64]) -> None:
        if self.coded:
            distinct, inverse = np.unique(freqs, return_inverse=True)
            for value in distinct.tolist():
                self.values.setdefault(value, len(self.values))
            if len(self.values) <= FREQ_CODES:
                lookup = np.fromiter(
                    (self.values[v] for v in distinct.tolist()), np.uint16, len(distinct)
                )
                self.parts.append(lookup[inverse])
                return
            table = self._table()  # too many: back to the doubles
            self.parts = [table[part] for part in self.parts]
            self.coded = False
        self.parts.append(freqs)

    def _table(self) -> npt.NDArray[np.float64]:
        table = np.empty(len(self.values), dtype=np.float64)
        for value, code in self.values.items():
            table[code] = value
        return table

    def table(self) -> npt.NDArray[np.float64] | None:
        """What the codes in ``parts`` stand for (None: ``parts`` hold the doubles)."""
        return self._table() if self.coded else None


def log_seq(conn: sqlite3.Connection) -> int:
    return fts_texts.latest_seq(conn)


def changed_rows(
    conn: sqlite3.Connection, tokenizer: FtsTokenizer, rowids: Sequence[int]
) -> dict[int, list[tuple[int, str]] | None]:
    """rowid -> its (column, token) list now, or None for a row that no longer exists."""
    out: dict[int, list[tuple[int, str]] | None] = dict.fromkeys(rowids)
    for rowid, *texts in fts_texts.text_rows_of(conn, rowids):
        out[rowid] = [
            (column, token)
            for column, text in enumerate(texts)
            if text
            for token in tokenizer.tokens(text)
        ]
    return out
