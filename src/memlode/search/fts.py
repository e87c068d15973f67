"""BM25 candidates from the FTS5 index, and the sanitiser that makes any string a valid query.

User text is never passed raw to ``MATCH``: it is cut into word tokens, each token is quoted,
and the tokens are OR-ed. Quotes, operators (AND, NEAR, ``*``, ``^``, ``:``), brackets and any
unicode are therefore harmless.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from memlode.storage.memories import MemoryFilter
from memlode.textutil import identifier_parts, words

__all__ = ["BM25_WEIGHTS", "STOPWORDS", "FtsHit", "bm25_search", "fts_query", "query_terms"]

# Function words that carry no topic. Dropping them from OR-queries measurably helps BM25 on
# LoCoMo (turn recall@5 0.489 -> 0.549 in the reference runs).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    s t don didn doesn isn wasn weren won wouldn shouldn couldn ll re ve d m o y""".split()
)

# Column weights for bm25(): content, tags, identifier parts (and dates), then a conversation
# turn's neighbours at distance 1 and 2. The neighbour weights halve with distance: on LoCoMo
# a window of +-2 turns weighted 1/.5/.25 lifted turn recall@5 from 0.54 to 0.68 (research
# table in bench/RESULTS.md).
BM25_WEIGHTS = (1.0, 0.5, 0.4, 0.5, 0.25)
# Rows ranked by the FTS table alone before the filter applies (see bm25_search).
_OVERFETCH = 3


@dataclass(slots=True, frozen=True)
class FtsHit:
    id: str
    rank: float  # higher is better (negated bm25)


def query_terms(text: str, *, drop_stopwords: bool = True) -> list[str]:
    """Lower-cased search terms: words, plus the parts of camelCase/snake_case identifiers."""
    terms: dict[str, None] = {}
    for token in words(text):
        if not any(ch.isalnum() for ch in token):
            continue
        lowered = token.lower()
        terms.setdefault(lowered, None)
        for part in identifier_parts(token):
            terms.setdefault(part, None)
    out = list(terms)
    if drop_stopwords:
        kept = [t for t in out if t not in STOPWORDS]
        if kept:
            return kept
    return out


def fts_query(terms: list[str]) -> str:
    """An FTS5 MATCH expression OR-ing the quoted terms ('' when there are none)."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def bm25_search(
    conn: sqlite3.Connection,
    query: str,
    flt: MemoryFilter,
    limit: int,
    *,
    drop_stopwords: bool = True,
) -> list[FtsHit]:
    expression = fts_query(query_terms(query, drop_stopwords=drop_stopwords))
    if not expression:
        return []
    weights = ", ".join(map(str, BM25_WEIGHTS))
    where, params = flt.where("m")
    # Fast path: rank in the FTS table alone (no join per matching row), then keep the rows
    # that pass the filter. Most stores are mostly one namespace, so a few times the limit is
    # enough; when the filter removes too many, the joined query below decides.
    over = limit * _OVERFETCH
    ranked = conn.execute(
        f"SELECT rowid, bm25(memories_fts, {weights}) AS score FROM memories_fts"
        " WHERE memories_fts MATCH ? ORDER BY score LIMIT ?",
        (expression, over),
    ).fetchall()
    if not ranked:
        return []
    scores = {r[0]: float(r[1]) for r in ranked}
    kept: dict[int, str] = {}
    rowids = list(scores)
    for start in range(0, len(rowids), 500):
        chunk = rowids[start : start + 500]
        rows = conn.execute(
            f"SELECT m.rowid, m.id FROM memories m WHERE m.rowid IN ({','.join('?' * len(chunk))})"
            f" AND {where}",
            [*chunk, *params],
        )
        kept.update((r[0], r[1]) for r in rows)
    if len(kept) >= limit or len(ranked) < over:
        order = sorted(kept, key=lambda rowid: (scores[rowid], rowid))[:limit]
        return [FtsHit(id=kept[rowid], rank=-scores[rowid]) for rowid in order]
    sql = (
        f"SELECT m.id, bm25(memories_fts, {weights}) AS score"
        " FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid"
        f" WHERE memories_fts MATCH ? AND {where} ORDER BY score LIMIT ?"
    )
    joined = conn.execute(sql, [expression, *params, limit]).fetchall()
    return [FtsHit(id=r[0], rank=-float(r[1])) for r in joined]
