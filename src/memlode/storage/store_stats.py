"""Counts over a store, for ``memlode stats`` and ``memlode doctor`` (composed by
``memlode.engine.reports``): rows per namespace by type and source, vectors, graph, sessions,
and the database's own state (journal mode, schema version, FTS rows, a quick integrity check).

One module for both backends. ``database_state`` asks the dialect for SQLite's questions as
far as PostgreSQL has them (``memlode.storage.postgres.dialect``): no journal mode
(``"postgresql"``), no ``PRAGMA quick_check`` (the server checks its own pages; ``ok`` says the
store answered), and every memory is in the text index (a generated column), so ``fts_rows``
counts the memories. The code index stays in each machine's
SQLite store, so on PostgreSQL ``has_indexed_code`` is false unless a ``code_files`` table
exists there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.sql import dialect_of
from memlode.storage.values import MemoryFilter

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = ["database_state", "has_indexed_code", "namespace_counts", "prompt_recall_paths"]


def _one(conn: Connection, sql: str, params: Any = ()) -> Any:
    row = conn.execute(sql, params).fetchone()
    return None if row is None else row[0]


def namespace_counts(conn: Connection, ns: str | None) -> dict[str, Any]:
    """Memories (all, by type, by source, with a vector), graph nodes and edges, sessions and
    the newest memory's time, for namespace ``ns`` (None: every namespace)."""
    where, params = MemoryFilter(namespace=ns).where("m", dialect_of(conn))
    total = conn.execute(f"SELECT count(*) FROM memories m WHERE {where}", params).fetchone()[0]
    by_type = dict(
        conn.execute(
            f"SELECT memory_type, count(*) FROM memories m WHERE {where} GROUP BY 1 ORDER BY 1",
            params,
        ).fetchall()
    )
    by_source = dict(
        conn.execute(
            f"SELECT source, count(*) FROM memories m WHERE {where} GROUP BY 1 ORDER BY 1",
            params,
        ).fetchall()
    )
    embedded = conn.execute(
        f"SELECT count(*) FROM memories m JOIN memory_embeddings e ON e.memory_id = m.id"
        f" WHERE {where}",
        params,
    ).fetchone()[0]
    node_where = "" if ns is None else " WHERE namespace = ?"
    node_params: list[object] = [] if ns is None else [ns]
    nodes = conn.execute(f"SELECT count(*) FROM graph_nodes{node_where}", node_params).fetchone()
    edges = conn.execute(
        "SELECT count(*) FROM graph_edges e JOIN graph_nodes n ON n.id = e.source_id"
        + (" WHERE n.namespace = ?" if ns is not None else ""),
        node_params,
    ).fetchone()
    sessions = conn.execute(f"SELECT count(*) FROM sessions{node_where}", node_params).fetchone()
    last = conn.execute(f"SELECT max(created_at) FROM memories m WHERE {where}", params)
    return {
        "memories": total,
        "by_type": by_type,
        "by_source": by_source,
        "embedded": embedded,
        "graph_nodes": nodes[0],
        "graph_edges": edges[0],
        "sessions": sessions[0],
        "last_memory_at": last.fetchone()[0],
    }


def database_state(conn: Connection) -> dict[str, Any]:
    """Journal mode, schema version, FTS rows, quick-check result, graph nodes and edges."""
    d = dialect_of(conn)
    return {
        "journal_mode": _one(conn, d.journal_mode()),
        "schema_version": _one(conn, "SELECT max(version) FROM schema_migrations"),
        "fts_rows": int(_one(conn, d.text_index_rows())),
        "ok": _one(conn, d.quick_check()) == "ok",
        "nodes": int(_one(conn, "SELECT count(*) FROM graph_nodes")),
        "edges": int(_one(conn, "SELECT count(*) FROM graph_edges")),
    }


def has_indexed_code(conn: Connection, namespace: str) -> bool:
    """Whether ``memlode index`` stored any file of the namespace."""
    d = dialect_of(conn)
    if not d.has_code_tables and not _one(conn, "SELECT to_regclass('code_files') IS NOT NULL"):
        return False
    row = conn.execute("SELECT 1 FROM code_files WHERE namespace = ? LIMIT 1", (namespace,))
    return row.fetchone() is not None


def prompt_recall_paths(conn: Connection, session_ids: list[str]) -> dict[str, int]:
    """How the stored prompts of these sessions were ranked for injection (their metadata's
    ``recall``: "resident", "lean", or "none" when nothing was recalled), counted."""
    out: dict[str, int] = {}
    if not session_ids:
        return out
    d = dialect_of(conn)
    marks = ",".join("?" * len(session_ids))
    for (path,) in conn.execute(
        f"SELECT {d.json_text('metadata', 'recall')} FROM memories"
        f" WHERE session_id IN ({marks})"
        f" AND ({d.json_has('tags')} OR {d.json_has('tags')})",
        [*session_ids, "prompt", "instruction"],
    ):
        out[str(path or "none")] = out.get(str(path or "none"), 0) + 1
    return out
