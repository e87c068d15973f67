"""The forget cycle's archive (``memory_archive``, migration 0014): which rows may be forgotten,
moving them into the archive whole (the row, its vector, its graph edges, its decay and
demotion records) and out of the store, putting them back, and purging the archive.

Parameters in, plain rows out; which rows to forget is ``memlode.engine.consolidation.forget``'s.
Serves both backends (``memlode.storage.sql``), keeping an archived row in one shape on both: its
columns as JSON text (tags and metadata as JSON text inside it; PostgreSQL's adds ``created_by``),
edges with their properties as JSON text, the vector as little-endian float32 bytes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.fastjson import dumps, loads
from memlode.storage import scrub
from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memlode.storage.sql import Connection

__all__ = [
    "archive_memories",
    "archived_rows",
    "forget_candidates",
    "live_summarized",
    "purge_archive",
    "restore_memories",
    "set_cluster_members",
]

# Columns PostgreSQL generates (an identity, the text index's tsvector): not archived, since a
# restore may not write them; SQLite's memories have neither.
_GENERATED = ("rowid", "text_vector")
# Edges that say a row was superseded: (relationship, the end that is the superseded row)
_SUPERSEDED = "SELECT target_id FROM graph_edges WHERE relationship = 'SUPERSEDES'" + (
    " UNION SELECT source_id FROM graph_edges WHERE relationship = 'INVALIDATED_BY'"
)


def forget_candidates(
    conn: Connection,
    namespace: str,
    *,
    protected_sources: Sequence[str],
    protected_types: Sequence[str],
    before: str,
    max_importance: float,
) -> list[tuple[str, str]]:
    """(memory id, reason) of the namespace's rows the forget cycle may remove: not from
    ``protected_sources``, not of ``protected_types``, created before ``before``, never opened
    or recalled, and either of low importance (at most ``max_importance``) or superseded (a
    summary stands for it, or a SUPERSEDES / INVALIDATED_BY edge says a newer row replaced it).
    Oldest first."""
    sources = ",".join("?" * len(protected_sources)) or "''"
    types = ",".join("?" * len(protected_types)) or "''"
    rows = conn.execute(
        "SELECT m.id, m.importance <= ?,"
        " EXISTS (SELECT 1 FROM memory_demotions d WHERE d.memory_id = m.id)"
        f" OR m.id IN ({_SUPERSEDED})"
        " FROM memories m WHERE m.namespace = ? AND m.created_at < ?"
        " AND m.access_count = 0 AND m.last_accessed_at IS NULL"
        f" AND m.source NOT IN ({sources}) AND m.memory_type NOT IN ({types})"
        " ORDER BY m.created_at, m.id",
        (max_importance, namespace, before, *protected_sources, *protected_types),
    ).fetchall()
    out = []
    for memory_id, low, superseded in rows:
        if superseded:
            out.append((str(memory_id), "superseded"))
        elif low:
            out.append((str(memory_id), "low importance"))
    return out


def _dicts(rows: list[Any]) -> list[dict[str, Any]]:
    return [dict(zip(row.keys(), row, strict=True)) for row in rows]


def archive_memories(
    conn: Connection,
    items: Sequence[tuple[str, str]],
    run_id: int,
    archived_at: str,
) -> int:
    """Move (memory id, reason) rows into the archive and out of the store (their vectors,
    nodes, edges and records go with them); rows moved. Inside the caller's transaction."""
    d = dialect_of(conn)
    moved = 0
    for memory_id, reason in items:
        found = _dicts(conn.execute("SELECT * FROM memories WHERE id = ?", (memory_id,)).fetchall())
        if not found:
            continue
        memory = found[0]
        for column in _GENERATED:
            memory.pop(column, None)
        vectors = _dicts(
            d.fetch_vectors(
                conn,
                "SELECT model, dim, vector, text_hash, created_at FROM memory_embeddings"
                " WHERE memory_id = ?",
                (memory_id,),
            )
        )
        vector = vectors[0].pop("vector") if vectors else None
        edges = _dicts(
            conn.execute(
                "SELECT source_id, target_id, relationship, weight, properties, created_at"
                " FROM graph_edges WHERE source_id = ? OR target_id = ? ORDER BY id",
                (memory_id, memory_id),
            ).fetchall()
        )
        extra: dict[str, Any] = {}
        decay = conn.execute(
            "SELECT base, written FROM memory_decay WHERE memory_id = ?", (memory_id,)
        ).fetchone()
        if decay is not None:
            extra["decay"] = [decay[0], decay[1]]
        demoted_by = conn.execute(
            "SELECT summary_id FROM memory_demotions WHERE memory_id = ?", (memory_id,)
        ).fetchone()
        if demoted_by is not None:
            extra["demoted_by"] = demoted_by[0]
        conn.execute(
            "INSERT INTO memory_archive (memory_id, namespace, run_id, archived_at, reason,"
            " memory, embedding, vector, edges, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (memory_id) DO NOTHING",
            (
                memory_id,
                memory["namespace"],
                run_id,
                archived_at,
                reason,
                dumps(memory),  # copies of rows redacted when they were stored
                dumps(vectors[0]) if vectors else None,
                vector,
                dumps(edges),
                dumps(extra),
            ),
        )
        moved += conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,)).rowcount
    return moved


def live_summarized(conn: Connection, summary_id: str) -> list[str]:
    """The memory ids a summary's SUMMARIZES edges still lead to."""
    return [
        str(r[0])
        for r in conn.execute(
            "SELECT target_id FROM graph_edges WHERE source_id = ? AND relationship = 'SUMMARIZES'",
            (summary_id,),
        )
    ]


def set_cluster_members(conn: Connection, summary_id: str, members: str) -> None:
    """Record ``members`` (a hash) as what the cluster of ``summary_id`` last summarised."""
    conn.execute(
        "UPDATE consolidation_clusters SET members = ? WHERE summary_id = ?", (members, summary_id)
    )


def archived_rows(
    conn: Connection,
    *,
    namespace: str | None,
    run_id: int | None,
    ids: Sequence[str],
    limit: int | None,
) -> list[Any]:
    """(memory id, namespace, run id, archived at, reason, memory JSON) of archived rows,
    newest first; filtered by namespace, run and ids when given."""
    where: list[str] = ["TRUE"]
    params: list[object] = []
    if namespace is not None:
        where.append("namespace = ?")
        params.append(namespace)
    if run_id is not None:
        where.append("run_id = ?")
        params.append(run_id)
    if ids:
        where.append(f"memory_id IN ({','.join('?' * len(ids))})")
        params.extend(ids)
    sql = (
        "SELECT memory_id, namespace, run_id, archived_at, reason, memory FROM memory_archive"
        f" WHERE {' AND '.join(where)} ORDER BY archived_at DESC, memory_id"
    )
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    rows: list[Any] = conn.execute(sql, params).fetchall()
    return rows


def restore_memories(conn: Connection, ids: Sequence[str]) -> dict[str, str]:
    """Put archived rows back (the row, its vector, the edges whose other end still exists,
    its records) and drop them from the archive; memory id -> "restored", or why not."""
    out: dict[str, str] = {}
    for memory_id in ids:
        found = conn.execute(
            "SELECT memory, embedding, vector, edges, extra FROM memory_archive"
            " WHERE memory_id = ?",
            (memory_id,),
        ).fetchone()
        if found is None:
            out[memory_id] = "not in the archive"
            continue
        memory = loads(found[0])
        same = conn.execute(
            "SELECT id FROM memories WHERE id = ? OR (namespace = ? AND source = ?"
            " AND content_hash = ?)",
            (memory_id, memory["namespace"], memory["source"], memory["content_hash"]),
        ).fetchone()
        if same is not None:
            out[memory_id] = f"already in the store as {same[0]}"
            continue
        for column in ("content", "tags", "metadata"):  # redacted when stored: unchanged
            memory[column] = scrub.text(memory[column])
        columns = list(memory)
        conn.execute(
            f"INSERT INTO memories ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
            [memory[c] for c in columns],
        )
        _restore_links(conn, memory_id, memory, found)
        conn.execute("DELETE FROM memory_archive WHERE memory_id = ?", (memory_id,))
        out[memory_id] = "restored"
    return out


def _restore_links(conn: Connection, memory_id: str, memory: Any, found: Any) -> None:
    if found[1] is not None and found[2] is not None:
        vec = loads(found[1])
        conn.execute(
            "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (
                memory_id,
                vec["model"],
                vec["dim"],
                dialect_of(conn).vector_param(bytes(found[2])),
                vec["text_hash"],
                vec["created_at"],
            ),
        )
    edges = loads(found[3])
    if edges:
        name = scrub.text(str(memory["content"]))[:80]
        conn.execute(
            "INSERT INTO graph_nodes (id, kind, name, namespace, memory_id, created_at,"
            " updated_at) VALUES (?, 'memory', ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (
                memory_id,
                name,
                memory["namespace"],
                memory_id,
                memory["created_at"],
                memory["updated_at"],
            ),
        )
    for e in edges:
        conn.execute(
            "INSERT INTO graph_edges (source_id, target_id, relationship, weight,"
            " properties, created_at) SELECT ?, ?, ?, ?, ?, ?"
            " WHERE EXISTS (SELECT 1 FROM graph_nodes WHERE id = ?)"
            " AND EXISTS (SELECT 1 FROM graph_nodes WHERE id = ?) ON CONFLICT DO NOTHING",
            (
                e["source_id"],
                e["target_id"],
                e["relationship"],
                e["weight"],
                scrub.text(e["properties"]),
                e["created_at"],
                e["source_id"],
                e["target_id"],
            ),
        )
    extra = loads(found[4]) or {}
    if "decay" in extra:
        conn.execute(
            "INSERT INTO memory_decay (memory_id, base, written) VALUES (?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            (memory_id, *extra["decay"]),
        )
    if "demoted_by" in extra:
        conn.execute(
            "INSERT INTO memory_demotions (memory_id, summary_id)"
            " SELECT ?, ? WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?)"
            " ON CONFLICT DO NOTHING",
            (memory_id, extra["demoted_by"], extra["demoted_by"]),
        )


def purge_archive(conn: Connection, namespace: str, before: str) -> int:
    """Delete for good the namespace's archived rows archived before ``before``; rows deleted."""
    cur = conn.execute(
        "DELETE FROM memory_archive WHERE namespace = ? AND archived_at < ?", (namespace, before)
    )
    return int(cur.rowcount)
