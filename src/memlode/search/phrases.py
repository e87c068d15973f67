"""BM25 of a phrase from the in-memory postings and the rows' own text, where no FTS5 index
can score it (a PostgreSQL store: ``memlode.storage.postgres``).

A query word of several tokens (``snake_case``, ``Caroline's``) is a phrase: FTS5 counts the
rows where its tokens follow each other in one column. The postings hold no positions, so the
rows holding every token are read again (``fts_texts.text_rows_of``), tokenised by FTS5's own
tokenizer (``postings.FtsTokenizer``) and searched for the sequence; the score is
``fts5Bm25Function``'s for one phrase, as ``text_index.score_query`` computes it for a token
(the phrase's IDF over the rows holding it, its column-weighted count, the row's length), so a
phrase ranks as it does in FTS5 over a SQLite store.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from memlode.search.fts import BM25_WEIGHTS
from memlode.storage import fts_texts

if TYPE_CHECKING:
    from memlode.search.postings import FtsTokenizer, Postings
    from memlode.storage.sql import Connection

__all__ = ["phrase_ranks"]


def phrase_ranks(
    postings: Postings,
    tokenizer: FtsTokenizer,
    conn: Connection,
    tokens: list[str],
    *,
    k1: float,
    b: float,
    min_idf: float,
) -> list[tuple[int, float]]:
    """(rowid, rank: negated bm25) of every row holding the phrase ``tokens``."""
    rows: set[int] | None = None
    for token in dict.fromkeys(tokens):
        docs, _ = postings.postings(token)
        found = {int(d) for d in docs.tolist()}
        rows = found if rows is None else rows & found
        if not rows:
            return []
    width = len(tokens)
    counts: dict[int, float] = {}
    for rowid, *texts in fts_texts.text_rows_of(conn, sorted(rows or ())):
        freq = 0.0
        for column, text in enumerate(texts):
            if not text:
                continue
            cell = tokenizer.tokens(str(text))
            hits = sum(cell[i : i + width] == tokens for i in range(len(cell) - width + 1))
            freq += hits * BM25_WEIGHTS[column]
        if freq > 0.0:
            counts[int(rowid)] = freq
    if not counts:
        return []
    idf = math.log((postings.rows - len(counts) + 0.5) / (len(counts) + 0.5))
    if idf <= 0.0:
        idf = min_idf
    norms = postings.norms(k1, b)
    return [
        (rowid, idf * ((freq * (k1 + 1.0)) / (freq + norms[rowid])))
        for rowid, freq in counts.items()
        if rowid < len(norms)
    ]
