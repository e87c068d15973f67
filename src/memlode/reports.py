"""Reports on a store: counts per namespace and a health check (the namespaces themselves:
``memlode.storage.namespaces.listing``).

What ``memlode stats``, ``memlode doctor``, the MCP ``namespace_stats`` / ``memlode_health``
tools and the dashboard show. L3 beside the engine, which calls these with its connection; they
only read.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.config import Settings
from memlode.errors import StorageError
from memlode.storage.memories import MemoryFilter

if TYPE_CHECKING:
    from memlode.embedding import EmbeddingService

__all__ = ["file_size", "health", "stats"]


def stats(conn: sqlite3.Connection, db_path: Path, ns: str | None) -> dict[str, Any]:
    """Counts for namespace ``ns`` (None: every namespace)."""
    where, params = MemoryFilter(namespace=ns).where("m")
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
        "namespace": "*" if ns is None else ns,
        "memories": total,
        "by_type": by_type,
        "by_source": by_source,
        "embedded": embedded,
        "pending_embeddings": total - embedded,
        "graph_nodes": nodes[0],
        "graph_edges": edges[0],
        "sessions": sessions[0],
        "last_memory_at": last.fetchone()[0],
        "database": str(db_path),
        "database_bytes": file_size(db_path),
    }


def health(
    conn: sqlite3.Connection, db_path: Path, settings: Settings, embeddings: EmbeddingService
) -> dict[str, Any]:
    """What works and what does not: storage, embedder, vectors, graph, pending rows."""
    fts = conn.execute("SELECT count(*) FROM memories_fts").fetchone()[0]
    embedder = embeddings.embedder
    index = embeddings.index if embedder is not None else None
    return {
        "storage": {
            "database": str(db_path),
            "bytes": file_size(db_path),
            "sqlite_version": sqlite3.sqlite_version,
            "journal_mode": conn.execute("PRAGMA journal_mode").fetchone()[0],
            "schema_version": conn.execute("SELECT max(version) FROM schema_migrations").fetchone()[
                0
            ],
            "fts_rows": fts,
            "ok": conn.execute("PRAGMA quick_check").fetchone()[0] == "ok",
        },
        "embedder": {
            "provider": settings.embed_provider,
            "model": embedder.name if embedder is not None else None,
            "dim": embedder.dim if embedder is not None else None,
            "available": embedder is not None,
            "error": embeddings.error,
        },
        "vectors": {
            "indexed": len(index) if index is not None else 0,
            "models": embeddings.models_in_store(),
        },
        "graph": {
            "nodes": conn.execute("SELECT count(*) FROM graph_nodes").fetchone()[0],
            "edges": conn.execute("SELECT count(*) FROM graph_edges").fetchone()[0],
        },
        "pending_embeddings": embeddings.pending(),
        "pending_token_states": embeddings.pending_states(),
    }


def file_size(path: Path) -> int:
    """The database's bytes, with its WAL and shared-memory files."""
    try:
        total = path.stat().st_size
        for suffix in ("-wal", "-shm"):
            extra = path.with_name(path.name + suffix)
            if extra.exists():
                total += extra.stat().st_size
        return total
    except OSError as exc:
        raise StorageError(f"cannot stat {path}: {exc.strerror}") from None
