"""Rows of ``code_symbol_vectors`` (migration 0016): the vectors behind semantic code search,
and the symbol rows the embedding pass reads to make their texts. ``memlode.engine.code.vectors``
decides what to embed; ``memlode.code.search`` reads the vectors back."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from memlode.storage import scrub
from memlode.storage.code_symbol_search import SYMBOL_COLUMNS, SYMBOL_JOINS
from memlode.storage.store_settings import get_setting

__all__ = [
    "StoredVector",
    "SymbolSource",
    "VectorRow",
    "call_pairs",
    "code_generation",
    "delete_vanished",
    "has_vectors",
    "keep_vectors",
    "pending_count",
    "stored_vectors",
    "symbol_count",
    "symbol_rows",
    "symbol_sources",
    "text_matches",
    "vector_matrix_rows",
    "vectors_by_text_hash",
    "vectors_stamp",
    "write_vectors",
]

_CHUNK = 500  # ids per IN (...) list


class SymbolSource(NamedTuple):
    """What a symbol's enriched text is made from."""

    node_id: str
    namespace: str
    name: str
    qualified_name: str
    kind: str
    signature: str
    doc: str
    line_start: int
    line_end: int
    root: str
    path: str
    module: str
    file_hash: str
    size: int
    mtime_ns: int
    parent: str | None


class StoredVector(NamedTuple):
    text_hash: str
    file_hash: str
    context_hash: str
    dim: int


def symbol_sources(conn: sqlite3.Connection, namespace: str | None) -> list[SymbolSource]:
    """Every symbol of ``namespace`` (all namespaces with None), by file and line."""
    where, params = ("WHERE s.namespace = ?", [namespace]) if namespace is not None else ("", [])
    rows = conn.execute(
        "SELECT s.node_id, s.namespace, s.name, s.qualified_name, s.kind, s.signature, s.doc,"
        " s.line_start, s.line_end, f.root, f.path, f.module, f.hash, f.size, f.mtime_ns,"
        " s.parent"
        f" FROM code_symbols s JOIN code_files f ON f.id = s.file_id {where}"
        " ORDER BY f.id, s.line_start",
        params,
    ).fetchall()
    return [SymbolSource(*row) for row in rows]


def call_pairs(conn: sqlite3.Connection, namespace: str | None) -> list[tuple[str, str]]:
    """(caller node id, callee node id) of the CALLS edges between symbols of ``namespace``."""
    where, params = ("AND s.namespace = ?", [namespace]) if namespace is not None else ("", [])
    rows = conn.execute(
        "SELECT e.source_id, e.target_id FROM graph_edges e"
        " JOIN code_symbols s ON s.node_id = e.source_id"
        f" WHERE e.relationship = 'CALLS' AND e.target_id LIKE 'sym:%' {where}",
        params,
    ).fetchall()
    return [(str(a), str(b)) for a, b in rows]


def stored_vectors(
    conn: sqlite3.Connection, model: str, namespace: str | None
) -> dict[str, StoredVector]:
    """node id -> what its stored vector was made from."""
    where, params = ("AND namespace = ?", [model, namespace]) if namespace else ("", [model])
    rows = conn.execute(
        "SELECT node_id, text_hash, file_hash, context_hash, dim FROM code_symbol_vectors"
        f" WHERE model = ? {where}",
        params,
    ).fetchall()
    return {row[0]: StoredVector(*row[1:]) for row in rows}


def vectors_by_text_hash(
    conn: sqlite3.Connection, model: str, hashes: Iterable[str]
) -> dict[str, tuple[int, bytes]]:
    """text hash -> (dim, vector) of vectors already made for that text by ``model``."""
    wanted = list(dict.fromkeys(hashes))
    out: dict[str, tuple[int, bytes]] = {}
    for i in range(0, len(wanted), _CHUNK):
        chunk = wanted[i : i + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for text_hash, dim, vector in conn.execute(
            "SELECT text_hash, dim, vector FROM code_symbol_vectors"
            f" WHERE model = ? AND dim > 0 AND text_hash IN ({marks})",
            [model, *chunk],
        ):
            out.setdefault(text_hash, (dim, vector))
    return out


VectorRow = tuple[str, str, str, str, str, str, str, int, bytes]


# A counter in store_settings, raised by every write that changes vectors: a process that keeps
# the vectors in memory (memlode.code.search) reloads them when it moved.
STAMP_KEY = "code_symbol_vectors.stamp"


def vectors_stamp(conn: sqlite3.Connection) -> str:
    """The current value of the vectors' change counter ('' before the first write)."""
    return get_setting(conn, STAMP_KEY) or ""


def _bump(conn: sqlite3.Connection) -> None:
    conn.execute(
        "INSERT INTO store_settings (key, value) VALUES (?, '1') ON CONFLICT (key)"
        " DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)",
        (STAMP_KEY,),
    )


def write_vectors(conn: sqlite3.Connection, rows: Sequence[VectorRow]) -> None:
    """(node_id, model, namespace, text, text_hash, file_hash, context_hash, dim, vector) rows;
    an upsert, so that the text index's triggers see every change."""
    if not rows:
        return
    _bump(conn)
    # the text holds a slice of the symbol's body, read from the file: redacted like any text
    rows = [(r[0], r[1], r[2], scrub.text(r[3]), *r[4:]) for r in rows]
    conn.executemany(
        "INSERT INTO code_symbol_vectors (node_id, model, namespace, text, text_hash,"
        " file_hash, context_hash, dim, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (node_id, model) DO UPDATE SET namespace = excluded.namespace,"
        " text = excluded.text, text_hash = excluded.text_hash,"
        " file_hash = excluded.file_hash, context_hash = excluded.context_hash,"
        " dim = excluded.dim, vector = excluded.vector",
        rows,
    )


def delete_vanished(conn: sqlite3.Connection, model: str, namespace: str | None) -> int:
    """Delete the vectors of symbols that no longer exist; returns how many went."""
    where, params = ("AND v.namespace = ?", [model, namespace]) if namespace else ("", [model])
    cursor = conn.execute(
        "DELETE FROM code_symbol_vectors AS v WHERE v.model = ?"
        f" {where} AND NOT EXISTS (SELECT 1 FROM code_symbols s WHERE s.node_id = v.node_id)",
        params,
    )
    if cursor.rowcount:
        _bump(conn)
    return cursor.rowcount


def pending_count(conn: sqlite3.Connection, model: str) -> int:
    """Symbols with no vector from ``model`` or one made from an older version of their file."""
    row = conn.execute(
        "SELECT count(*) FROM code_symbols s JOIN code_files f ON f.id = s.file_id"
        " LEFT JOIN code_symbol_vectors v ON v.node_id = s.node_id AND v.model = ?"
        " WHERE v.node_id IS NULL OR v.file_hash != f.hash",
        [model],
    ).fetchone()
    return int(row[0])


def symbol_count(conn: sqlite3.Connection) -> int:
    """Indexed symbols, every namespace's."""
    return int(conn.execute("SELECT count(*) FROM code_symbols").fetchone()[0])


def code_generation(conn: sqlite3.Connection) -> int:
    """A number that moves whenever any namespace's indexed files change (the sum of the graph
    generations the ``code_files`` triggers bump, migration 0011): a plan of what to embed made
    at one value is still the plan while it holds."""
    row = conn.execute(
        "SELECT coalesce(sum(generation), 0) FROM derived_state WHERE name LIKE 'graph:%'"
    ).fetchone()
    return int(row[0])


def vector_matrix_rows(
    conn: sqlite3.Connection, model: str, namespace: str | None
) -> list[tuple[str, bytes]]:
    """(node id, vector) of every embedded, still existing symbol of ``namespace``."""
    where, params = ("AND v.namespace = ?", [model, namespace]) if namespace else ("", [model])
    return conn.execute(
        "SELECT v.node_id, v.vector FROM code_symbol_vectors v"
        " JOIN code_symbols s ON s.node_id = v.node_id"
        f" WHERE v.model = ? AND v.dim > 0 {where}",
        params,
    ).fetchall()


def symbol_rows(conn: sqlite3.Connection, node_ids: Sequence[str]) -> list[Any]:
    """The search row (as ``symbol_candidates`` gives it, BM25 rank 0) of each node id."""
    out: list[Any] = []
    for i in range(0, len(node_ids), _CHUNK):
        chunk = list(node_ids[i : i + _CHUNK])
        marks = ",".join("?" * len(chunk))
        out.extend(
            conn.execute(
                f"SELECT {SYMBOL_COLUMNS.format(rank='0.0')} FROM code_symbols s {SYMBOL_JOINS}"
                f" WHERE s.node_id IN ({marks})",
                chunk,
            )
        )
    return out


def keep_vectors(conn: sqlite3.Connection, rows: Sequence[tuple[str, str, str, str]]) -> None:
    """(file_hash, context_hash, node_id, model): the vector stands for the symbol as it is."""
    conn.executemany(
        "UPDATE code_symbol_vectors SET file_hash = ?, context_hash = ?"
        " WHERE node_id = ? AND model = ?",
        rows,
    )


def has_vectors(conn: sqlite3.Connection, namespace: str | None) -> bool:
    """Whether any symbol of ``namespace`` (any namespace with None) has a vector."""
    where, params = ("AND namespace = ?", [namespace]) if namespace else ("", [])
    row = conn.execute(
        f"SELECT 1 FROM code_symbol_vectors WHERE dim > 0 {where} LIMIT 1", params
    ).fetchone()
    return row is not None


def text_matches(
    conn: sqlite3.Connection, match: str, model: str | None, namespace: str | None, limit: int
) -> list[tuple[str, float]]:
    """(node id, BM25 rank; lower is better) of the symbol texts (of ``model``'s rows, of any
    model's with None) matching an FTS5 expression, best first."""
    where = ["code_symbol_texts_fts MATCH ?", "v.dim > 0"]
    params: list[object] = [match]
    if model is not None:
        where.append("v.model = ?")
        params.append(model)
    if namespace is not None:
        where.append("v.namespace = ?")
        params.append(namespace)
    rows = conn.execute(
        "SELECT v.node_id, bm25(code_symbol_texts_fts) AS rank FROM code_symbol_texts_fts"
        " JOIN code_symbol_vectors v ON v.id = code_symbol_texts_fts.rowid"
        f" WHERE {' AND '.join(where)} ORDER BY rank LIMIT {int(limit)}",
        params,
    ).fetchall()
    return [(str(node), float(rank)) for node, rank in rows]
