"""Counts over a PostgreSQL store for ``memlode stats`` and ``memlode doctor`` (the counterpart
of ``memlode.storage.store_stats``; Protocol ``StatsRows``).

``database_state`` answers SQLite's questions as far as PostgreSQL has them: there is no
journal mode (reported as ``"postgresql"``) and no ``PRAGMA quick_check`` (the server checks its
own pages; ``ok`` says the store answered), and every memory is in the text index (the
generated ``text_vector`` column), so ``fts_rows`` counts the memories. The code index stays in
each machine's SQLite store for now, so ``has_indexed_code`` is false unless a ``code_files``
table exists here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.memories import MemoryFilter
from memlode.storage.postgres.memories import where as memory_where

if TYPE_CHECKING:
    import psycopg

__all__ = ["database_state", "has_indexed_code", "namespace_counts", "prompt_recall_paths"]


def _one(conn: psycopg.Connection[Any], sql: str, params: Any = ()) -> Any:
    row = conn.execute(sql, params).fetchone()
    return None if row is None else row[0]


def namespace_counts(conn: psycopg.Connection[Any], ns: str | None) -> dict[str, Any]:
    """Memories (all, by type, by source, with a vector), graph nodes and edges, sessions and
    the newest memory's time, for namespace ``ns`` (None: every namespace)."""
    where, params = memory_where(MemoryFilter(namespace=ns), "m")
    grouped = {
        column: {
            str(r[0]): int(r[1])
            for r in conn.execute(
                f"SELECT {column}, count(*) FROM memories m WHERE {where} GROUP BY 1 ORDER BY 1",
                params,
            )
        }
        for column in ("memory_type", "source")
    }
    node_where = "" if ns is None else " WHERE namespace = %s"
    node_params: list[object] = [] if ns is None else [ns]
    return {
        "memories": int(_one(conn, f"SELECT count(*) FROM memories m WHERE {where}", params)),
        "by_type": grouped["memory_type"],
        "by_source": grouped["source"],
        "embedded": int(
            _one(
                conn,
                "SELECT count(*) FROM memories m JOIN memory_embeddings e ON e.memory_id = m.id"
                f" WHERE {where}",
                params,
            )
        ),
        "graph_nodes": int(
            _one(conn, f"SELECT count(*) FROM graph_nodes{node_where}", node_params)
        ),
        "graph_edges": int(
            _one(
                conn,
                "SELECT count(*) FROM graph_edges e JOIN graph_nodes n ON n.id = e.source_id"
                + (" WHERE n.namespace = %s" if ns is not None else ""),
                node_params,
            )
        ),
        "sessions": int(_one(conn, f"SELECT count(*) FROM sessions{node_where}", node_params)),
        "last_memory_at": _one(
            conn, f"SELECT max(created_at) FROM memories m WHERE {where}", params
        ),
    }


def database_state(conn: psycopg.Connection[Any]) -> dict[str, Any]:
    """Journal mode, schema version, FTS rows, quick-check result, graph nodes and edges."""
    return {
        "journal_mode": "postgresql",
        "schema_version": _one(conn, "SELECT max(version) FROM schema_migrations"),
        "fts_rows": int(_one(conn, "SELECT count(*) FROM memories")),
        "ok": _one(conn, "SELECT true") is True,
        "nodes": int(_one(conn, "SELECT count(*) FROM graph_nodes")),
        "edges": int(_one(conn, "SELECT count(*) FROM graph_edges")),
    }


def has_indexed_code(conn: psycopg.Connection[Any], namespace: str) -> bool:
    """Whether ``memlode index`` stored any file of the namespace (in this store)."""
    if not _one(conn, "SELECT to_regclass('code_files') IS NOT NULL"):
        return False
    found = _one(conn, "SELECT 1 FROM code_files WHERE namespace = %s LIMIT 1", (namespace,))
    return found is not None


def prompt_recall_paths(conn: psycopg.Connection[Any], session_ids: list[str]) -> dict[str, int]:
    """How the stored prompts of these sessions were ranked for injection (their metadata's
    ``recall``: "resident", "lean", or "none" when nothing was recalled), counted."""
    out: dict[str, int] = {}
    if not session_ids:
        return out
    rows = conn.execute(
        "SELECT metadata ->> 'recall' FROM memories WHERE session_id = ANY(%s)"
        " AND (tags @> '[\"prompt\"]' OR tags @> '[\"instruction\"]')",
        (session_ids,),
    )
    for (path,) in rows:
        out[str(path or "none")] = out.get(str(path or "none"), 0) + 1
    return out
