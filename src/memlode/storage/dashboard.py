"""The reads only the dashboard (``memlode viz``) needs: memories in a chosen order, the graph's
most central nodes with the edges between them, memory vectors for a projection, a session's
edited files and a cheap mark that changes when memories are added.

Every function only reads; the engine (``memlode.engine.dashboard``) composes them. One module
for both backends (``memlode.storage.sql``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memlode.storage.memories import MEMORY_COLUMNS, row_to_memory
from memlode.storage.sql import dialect_of
from memlode.storage.values import MemoryFilter
from memlode.types import Memory

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = [
    "SORT_COLUMNS",
    "change_mark",
    "data_version",
    "edges_among",
    "memory_vectors",
    "select_sorted",
    "session_files",
    "session_memory_counts",
    "session_prompts",
    "top_nodes",
]

# sort key -> ORDER BY clause (a whitelist: the key comes from a request)
SORT_COLUMNS = {
    "newest": "m.created_at DESC, m.id",
    "oldest": "m.created_at ASC, m.id",
    "updated": "m.updated_at DESC, m.id",
    "importance": "m.importance DESC, m.created_at DESC, m.id",
    "accessed": "m.access_count DESC, m.created_at DESC, m.id",
    "confidence": "m.confidence DESC, m.created_at DESC, m.id",
}


def select_sorted(
    conn: Connection, flt: MemoryFilter, sort: str, limit: int, offset: int
) -> tuple[int, list[Memory]]:
    """(how many match, one page of them in ``sort`` order: a key of SORT_COLUMNS)."""
    where, params = flt.where("m", dialect_of(conn))
    total = int(
        conn.execute(f"SELECT count(*) FROM memories m WHERE {where}", params).fetchone()[0]
    )
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE {where}"
        f" ORDER BY {SORT_COLUMNS[sort]} LIMIT ? OFFSET ?",
        [*params, limit, offset],
    )
    return total, [row_to_memory(r) for r in rows]


def data_version(conn: Connection) -> int:
    """A number that changes when another connection commits, read without touching a table:
    SQLite's data version; on PostgreSQL the oldest transaction still running or to come (it
    moves on with every commit on the server, so it may change with nothing of ours)."""
    return int(conn.execute(dialect_of(conn).data_version()).fetchone()[0])


def change_mark(conn: Connection, namespace: str | None) -> tuple[int, str | None]:
    """(memories, the latest created_at) of a namespace (None: all): changes when one is added
    or deleted."""
    if namespace is None:
        row = conn.execute("SELECT count(*), max(created_at) FROM memories").fetchone()
    else:
        row = conn.execute(
            "SELECT count(*), max(created_at) FROM memories WHERE namespace = ?", (namespace,)
        ).fetchone()
    return int(row[0]), row[1]


def top_nodes(
    conn: Connection, namespace: str | None, kinds: Sequence[str], limit: int
) -> list[tuple[Any, ...]]:
    """(id, kind, name, memory_id, degree, cached pagerank or None, cached cluster or None) of
    the ``limit`` best-connected nodes (cached PageRank first, then degree)."""
    clauses: list[str] = []
    params: list[object] = []
    if namespace is not None:
        clauses.append("n.namespace = ?")
        params.append(namespace)
    if kinds:
        clauses.append(f"n.kind IN ({','.join('?' * len(kinds))})")
        params.extend(kinds)
    where = " AND ".join(clauses) or "TRUE"
    found: list[tuple[Any, ...]] = conn.execute(
        "WITH deg AS (SELECT id, sum(c) AS d FROM ("
        " SELECT source_id AS id, count(*) AS c FROM graph_edges GROUP BY source_id"
        " UNION ALL SELECT target_id, count(*) FROM graph_edges GROUP BY target_id)"
        " GROUP BY id)"
        " SELECT n.id, n.kind, n.name, n.memory_id, coalesce(deg.d, 0), c.pagerank, c.cluster"
        " FROM graph_nodes n LEFT JOIN deg ON deg.id = n.id"
        " LEFT JOIN graph_centrality c ON c.node_id = n.id"
        f" WHERE {where}"
        " ORDER BY coalesce(c.pagerank, 0) DESC, coalesce(deg.d, 0) DESC, n.id LIMIT ?",
        [*params, limit],
    ).fetchall()
    return [tuple(r) for r in found]


def edges_among(conn: Connection, node_ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """(source, target, relationship, weight) of the edges with both ends in ``node_ids``."""
    # By source through the (source, target, relationship) index, 500 ids a query; the target
    # is checked here: SQLite's plan for two IN (json_each) lists took 9 s on 5,000 nodes.
    wanted = set(node_ids)
    ids = list(wanted)
    out: list[tuple[Any, ...]] = []
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        out.extend(
            tuple(row)
            for row in conn.execute(
                "SELECT source_id, target_id, relationship, weight FROM graph_edges"
                f" WHERE source_id IN ({marks})",
                chunk,
            )
            if row[1] in wanted
        )
    return out


def memory_vectors(conn: Connection, namespace: str | None, limit: int) -> list[tuple[Any, ...]]:
    """(id, memory_type, source, created_at, first 100 characters, dim, float32 vector bytes)
    of the newest ``limit`` embedded memories (of one namespace, None: all)."""
    where = "m.namespace = ?" if namespace is not None else "TRUE"
    params: list[object] = [namespace] if namespace is not None else []
    rows = dialect_of(conn).fetch_vectors(
        conn,
        "SELECT m.id, m.memory_type, m.source, m.created_at, substr(m.content, 1, 100),"
        " e.dim, e.vector FROM memories m JOIN memory_embeddings e ON e.memory_id = m.id"
        f" WHERE {where} ORDER BY m.created_at DESC, m.id LIMIT ?",
        [*params, limit],
    )
    return [tuple(r) for r in rows]


def session_files(conn: Connection, session_id: str) -> list[tuple[str, str]]:
    """(path, last change) of the files a session's hooks observed, newest first."""
    rows = conn.execute(
        "SELECT path, updated_at FROM session_files WHERE session_id = ?"
        " ORDER BY updated_at DESC, path",
        (session_id,),
    )
    return [(str(r[0]), str(r[1])) for r in rows]


def session_memory_counts(
    conn: Connection, session_ids: Sequence[str]
) -> dict[str, dict[str, int]]:
    """session id -> {source: memories} for these sessions."""
    out: dict[str, dict[str, int]] = {}
    ids = list(session_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = conn.execute(
            "SELECT session_id, source, count(*) FROM memories"
            f" WHERE session_id IN ({','.join('?' * len(chunk))}) GROUP BY session_id, source",
            chunk,
        )
        for sid, source, n in rows:
            out.setdefault(str(sid), {})[str(source)] = int(n)
    return out


def session_prompts(
    conn: Connection, session_id: str, tags: Sequence[str], limit: int
) -> list[Memory]:
    """The session's memories carrying any of ``tags`` (the prompts the hooks stored), oldest
    first."""
    if not tags:
        return []
    has_any = dialect_of(conn).json_has_any("m.tags", len(tags))
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.session_id = ? AND {has_any}"
        " ORDER BY m.created_at, m.id LIMIT ?",
        (session_id, *tags, limit),
    )
    return [row_to_memory(r) for r in rows]
