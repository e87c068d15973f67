"""FTS5 MATCH queries over ``memories_fts``: the expression, its column weights, how a large
store's query is pruned to its rare terms, and the BM25 reads the prompt hook makes.

One implementation for every caller: the engine's BM25 (``memlode.search.fts``) and the
UserPromptSubmit hook's lean recall (``memlode.hooks._recall``) build their queries here, so
both send FTS5 the same expressions. Import-light (a hook process imports it): no ``re``, no
``json``, no ``sqlite3`` module.

Pruning (why and how: ``memlode.search.fts``'s docstring): on a store larger than the scoring
budget, the rarest terms - enough of them to supply the candidates wanted, and as many more as
fit in the budget - choose the rows, and every term of the query scores them.
"""

from __future__ import annotations

from memlode.storage.sql import dialect_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any

__all__ = [
    "BM25_WEIGHTS",
    "OVERFETCH",
    "SCORING_BUDGET",
    "WEIGHTS_SQL",
    "best_scored",
    "bm25_rows",
    "choose_expressions",
    "document_frequency",
    "filtered_ids",
    "match_expression",
    "memory_count",
    "phrase_scores",
    "ranks_of",
    "rowids_of",
    "rows_by_id",
    "session_texts_tagged",
    "split_by_rarity",
    "store_size",
]

# Column weights for bm25(): content, tags, identifier parts (and dates), then a conversation
# turn's neighbours at distance 1 and 2. The neighbour weights halve with distance: on LoCoMo
# a window of +-2 turns weighted 1/.5/.25 lifted turn recall@5 from 0.54 to 0.68 (research
# table in bench/RESULTS.md).
BM25_WEIGHTS = (1.0, 0.5, 0.4, 0.5, 0.25)
WEIGHTS_SQL = ", ".join(map(str, BM25_WEIGHTS))
# Rows ranked by the FTS table alone before a filter applies, per row wanted.
OVERFETCH = 3
# Rows one query may score with bm25() before its common terms stop choosing candidates.
# bm25() costs ~2 us a row on the project's 2-core machine, so this bounds scoring to ~12 ms.
# On bench/corpus.py at 100k memories (200 queries, hash vectors) 4,000 kept 96% of the
# unpruned hybrid top 10 and 6,000 99.8% (BM25 alone: 81% and 98%).
SCORING_BUDGET = 6_000


def match_expression(terms: Sequence[str]) -> str:
    """An FTS5 MATCH expression OR-ing the quoted terms ('' when there are none). Every term is
    quoted, so operators, brackets and quotes in user text are harmless."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def store_size(conn: sqlite3.Connection) -> int:
    """The largest rowid of ``memories``: a cheap upper bound on its rows."""
    return int(conn.execute("SELECT coalesce(max(rowid), 0) FROM memories").fetchone()[0])


def memory_count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])


def document_frequency(conn: sqlite3.Connection, term: str) -> int:
    """Rows whose FTS columns contain ``term`` (a walk of its doclist, no scoring). On
    PostgreSQL, the rows whose ``text_vector`` (GIN) matches it: the same columns, stemmed by
    the server's ``memlode_text`` configuration rather than FTS5's tokenizer."""
    if not dialect_of(conn).has_fts5:
        sql = (
            "SELECT count(*) FROM memories WHERE text_vector @@ plainto_tsquery('memlode_text', ?)"
        )
        return int(conn.execute(sql, (term,)).fetchone()[0])
    row = conn.execute(
        "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (match_expression([term]),)
    ).fetchone()
    return int(row[0])


def split_by_rarity(
    terms: Sequence[str], counts: Mapping[str, int], wanted: int, budget: int
) -> tuple[list[str], list[str]]:
    """(rare, common): the terms that choose candidates and those that only score them.

    Terms are taken rarest first while their rows fit in ``budget``, and always until they can
    supply ``wanted`` rows. Terms no row contains are in neither list (they score nothing).
    """
    present = sorted((t for t in terms if counts[t] > 0), key=lambda t: (counts[t], t))
    rare: list[str] = []
    rows = 0
    for term in present:
        if rows >= wanted and rows + counts[term] > budget:
            break
        rare.append(term)
        rows += counts[term]
    return rare, present[len(rare) :]


def choose_expressions(
    conn: sqlite3.Connection,
    terms: list[str],
    wanted: int,
    budget: int,
    counts_of: Callable[[list[str], int], Mapping[str, int]] | None = None,
) -> list[str]:
    """The MATCH expressions whose scored rows, merged, rank like the whole OR query.

    ``counts_of(terms, size)`` gives document frequencies (a cache may serve them); by default
    they are counted. Small stores and single terms get the whole query.
    """
    if len(terms) < 2:
        return [match_expression(terms)]
    size = store_size(conn)
    if size <= budget:
        return [match_expression(terms)]
    counts = (
        counts_of(terms, size)
        if counts_of is not None
        else {t: document_frequency(conn, t) for t in terms}
    )
    rare, common = split_by_rarity(terms, counts, wanted, budget)
    # The query's own order: bm25() sums over phrases in it, so ties stay as they were.
    rare_query = match_expression([t for t in terms if t in rare])
    if not common:
        return [rare_query] if rare else []
    # Two halves: rows with a rare and a common term, scored by the whole query (exact), and
    # rows with a rare term scored by the rare terms alone (exact for those without a common
    # term, a lower bound for the others). A row's best score over both halves is its full
    # score, and the best ``wanted`` of each half hold the best ``wanted`` overall: a row above
    # another in the rare half is above it in the full ranking too. Scoring the second half by
    # the rare terms alone spares bm25() a second walk of the common terms' long doclists.
    return [f"({rare_query}) AND ({match_expression(common)})", rare_query]


# ---- the engine's BM25 reads ------------------------------------------------------------------

_SCORED = (
    f"SELECT rowid, bm25(memories_fts, {WEIGHTS_SQL}) AS score FROM memories_fts"
    " WHERE memories_fts MATCH ?"
)
_SCORED_JOINED = (
    f"SELECT m.rowid, bm25(memories_fts, {WEIGHTS_SQL}) AS score"
    " FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid"
    " WHERE memories_fts MATCH ?"
)


def best_scored(
    conn: sqlite3.Connection,
    expressions: Sequence[str],
    limit: int,
    where: str = "",
    params: Sequence[object] = (),
) -> list[tuple[int, float]]:
    """The best ``limit`` (rowid, bm25) over the expressions, a row keeping its best score;
    with ``where`` (a ``memories`` condition, alias ``m``) only rows that satisfy it."""
    sql = f"{_SCORED_JOINED} AND {where}" if where else _SCORED
    best: dict[int, float] = {}
    for expression in expressions:
        rows = conn.execute(f"{sql} ORDER BY score LIMIT ?", [expression, *params, limit])
        for rowid, score in rows:
            if rowid not in best or score < best[rowid]:
                best[rowid] = float(score)
    return sorted(best.items(), key=lambda item: (item[1], item[0]))[:limit]


def ranks_of(conn: sqlite3.Connection, expression: str, rowids: Sequence[int]) -> dict[int, float]:
    """The rank (negated bm25) ``expression`` gives each of ``rowids`` that matches it."""
    if not rowids or not expression:
        return {}
    # +rowid: FTS5 walks its doclists once and bm25() scores only these rows. Without the plus
    # FTS5 would be re-run for each rowid, counting every term's rows again each time.
    rows = conn.execute(
        f"{_SCORED} AND +rowid IN ({','.join('?' * len(rowids))})", [expression, *rowids]
    )
    return {rowid: -float(score) for rowid, score in rows}


def rowids_of(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[int, str]:
    """rowid -> id of the memories among ``ids``."""
    rows = conn.execute(
        f"SELECT rowid, id FROM memories WHERE id IN ({','.join('?' * len(ids))})", list(ids)
    )
    return dict(rows.fetchall())


def filtered_ids(
    conn: sqlite3.Connection, rowids: Sequence[int], where: str, params: Sequence[object]
) -> dict[int, str]:
    """rowid -> id of the rows among ``rowids`` that satisfy ``where`` (alias ``m``)."""
    memories = dialect_of(conn).by_rowid("memories m")
    out: dict[int, str] = {}
    for start in range(0, len(rowids), 500):
        chunk = list(rowids[start : start + 500])
        # NOT INDEXED: look the rows up by rowid. Left to itself the planner (no ANALYZE
        # statistics) walks the namespace index instead: 30 ms at 100k rows instead of 1.
        rows = conn.execute(
            f"SELECT m.rowid, m.id FROM {memories}"
            f" WHERE m.rowid IN ({','.join('?' * len(chunk))}) AND {where}",
            [*chunk, *params],
        )
        out.update((r[0], r[1]) for r in rows)
    return out


def phrase_scores(conn: sqlite3.Connection, term: str, limit: int) -> list[tuple[int, float]]:
    """(rowid, rank: negated bm25) of up to ``limit`` rows matching ``term``, unordered."""
    rows = conn.execute(
        f"SELECT rowid, bm25(memories_fts, {WEIGHTS_SQL}) FROM memories_fts"
        " WHERE memories_fts MATCH ? LIMIT ?",
        (match_expression([term]), limit),
    ).fetchall()
    return [(int(rowid), -float(score)) for rowid, score in rows]


# ---- the prompt hook's reads -------------------------------------------------------------------

_HIT_COLUMNS = "m.id, m.content, m.memory_type, m.importance, m.created_at, m.tags, m.source"


def bm25_rows(
    conn: sqlite3.Connection,
    expression: str,
    namespaces: tuple[str, str],
    exclude_session: str,
    limit: int,
) -> list[Any]:
    """(id, content, memory_type, importance, created_at, tags, source, bm25) of the best ``limit``
    matches of ``expression`` in ``namespaces`` outside ``exclude_session``, best first."""
    return conn.execute(
        f"SELECT {_HIT_COLUMNS}, bm25(memories_fts, {WEIGHTS_SQL}) AS score"
        " FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid"
        " WHERE memories_fts MATCH ? AND m.namespace IN (?, ?)"
        " AND (m.session_id IS NULL OR m.session_id != ?)"
        " ORDER BY score LIMIT ?",
        (expression, *namespaces, exclude_session, limit),
    ).fetchall()


def rows_by_id(
    conn: sqlite3.Connection,
    ids: Sequence[str],
    namespaces: tuple[str, str],
    exclude_session: str,
) -> list[Any]:
    """The same columns as ``bm25_rows`` (score 0.0) for memories found by id."""
    marks = ",".join("?" * len(ids))
    return conn.execute(
        f"SELECT {_HIT_COLUMNS}, 0.0 FROM memories m WHERE m.id IN ({marks})"
        " AND m.namespace IN (?, ?) AND (m.session_id IS NULL OR m.session_id != ?)",
        (*ids, *namespaces, exclude_session),
    ).fetchall()


def session_texts_tagged(
    conn: sqlite3.Connection, session_id: str, tags: Sequence[str]
) -> list[str]:
    """The contents of the session's memories that carry one of ``tags``."""
    if not tags:
        return []
    where, values = dialect_of(conn).json_has_any_quick("tags", tuple(tags))
    rows = conn.execute(
        f"SELECT content FROM memories WHERE session_id = ? AND ({where})", (session_id, *values)
    )
    return [str(r[0]) for r in rows]
