"""Symbol candidates from the code index's FTS table (``code_symbols_fts``), with what symbol
search ranks them by: BM25 over the symbol's columns and the file's cached PageRank.
``memlode.code.search`` builds the MATCH expression and does the ranking."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

__all__ = ["SYMBOL_COLUMNS", "SYMBOL_JOINS", "symbol_candidates"]

# The columns of a search row ({rank} is the BM25 expression, or 0 outside full-text search)
# and the joins they need after ``code_symbols s``; memlode.code.search reads the row by position.
SYMBOL_COLUMNS = (
    "s.node_id, s.name, s.qualified_name, s.kind, f.path, s.line_start, s.line_end,"
    " s.signature, s.doc, s.visibility, {rank} AS rank, coalesce(c.pagerank, 0), s.name_parts"
)
SYMBOL_JOINS = (
    "JOIN code_files f ON f.id = s.file_id LEFT JOIN graph_centrality c ON c.node_id = s.node_id"
)


def symbol_candidates(
    conn: sqlite3.Connection,
    match: str,
    *,
    namespace: str | None,
    kind: str | None,
    weights: Sequence[float],
    limit: int,
) -> list[Any]:
    """(node_id, name, qualified_name, kind, path, line_start, line_end, signature, doc,
    visibility, bm25 rank, pagerank, name_parts) of the best ``limit`` matches, best first."""
    where = ["code_symbols_fts MATCH ?"]
    params: list[object] = [match]
    if namespace is not None:
        where.append("s.namespace = ?")
        params.append(namespace)
    if kind:
        where.append("s.kind = ?")
        params.append(kind)
    bm25_weights = ", ".join(str(float(w)) for w in weights)
    columns = SYMBOL_COLUMNS.format(rank=f"bm25(code_symbols_fts, {bm25_weights})")
    return conn.execute(
        f"SELECT {columns} FROM code_symbols_fts"
        f" JOIN code_symbols s ON s.id = code_symbols_fts.rowid {SYMBOL_JOINS}"
        f" WHERE {' AND '.join(where)} ORDER BY rank LIMIT {int(limit)}",
        params,
    ).fetchall()
