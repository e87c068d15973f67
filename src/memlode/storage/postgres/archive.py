"""The forget cycle's archive on PostgreSQL (``memory_archive``, migration 0005; the counterpart
of ``memlode.storage.archive``; Protocol ``ArchiveRows``): which rows may be forgotten, moving
them into the archive whole and out of the store, putting them back, purging the archive.

An archived row is kept in SQLite's shape (``ARCHIVED_COLUMNS`` with tags and metadata as JSON
text, edges with their properties as JSON text, the vector as little-endian float32 bytes), so
an archive means the same on both backends; ``created_by`` is kept beside them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.fastjson import dumps, loads
from memlode.storage import scrub
from memlode.storage.postgres.rows import vector_bytes_cursor

if TYPE_CHECKING:
    from collections.abc import Sequence

    import psycopg

__all__ = [
    "archive_memories",
    "archived_rows",
    "forget_candidates",
    "live_summarized",
    "purge_archive",
    "restore_memories",
    "set_cluster_members",
]

# SQLite's memories columns (what its SELECT * archives), then who stored the row.
ARCHIVED_COLUMNS = (
    "id, content, memory_type, importance, confidence, access_count, content_hash,"
    " tags::text AS tags, metadata::text AS metadata, namespace, source, session_id, created_at,"
    " updated_at, last_accessed_at, search_terms, context_near, context_far, created_by"
)
_JSON_COLUMNS = ("tags", "metadata")
_SUPERSEDED = (
    "SELECT target_id FROM graph_edges WHERE relationship = 'SUPERSEDES'"
    " UNION SELECT source_id FROM graph_edges WHERE relationship = 'INVALIDATED_BY'"
)


def forget_candidates(
    conn: psycopg.Connection[Any],
    namespace: str,
    *,
    protected_sources: Sequence[str],
    protected_types: Sequence[str],
    before: str,
    max_importance: float,
) -> list[tuple[str, str]]:
    """(memory id, reason) of the namespace's rows the forget cycle may remove (see the SQLite
    module): never opened, not protected, old, and of low importance or superseded. Oldest
    first."""
    rows = conn.execute(
        "SELECT m.id, m.importance <= %s,"
        " EXISTS (SELECT 1 FROM memory_demotions d WHERE d.memory_id = m.id)"
        f" OR m.id IN ({_SUPERSEDED})"
        " FROM memories m WHERE m.namespace = %s AND m.created_at < %s"
        " AND m.access_count = 0 AND m.last_accessed_at IS NULL"
        " AND NOT (m.source = ANY(%s)) AND NOT (m.memory_type = ANY(%s))"
        " ORDER BY m.created_at, m.id",
        (max_importance, namespace, before, list(protected_sources), list(protected_types)),
    ).fetchall()
    out = []
    for memory_id, low, superseded in rows:
        if superseded:
            out.append((str(memory_id), "superseded"))
        elif low:
            out.append((str(memory_id), "low importance"))
    return out


def _dicts(cur: Any) -> list[dict[str, Any]]:
    names = [d.name for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def archive_memories(
    conn: psycopg.Connection[Any],
    items: Sequence[tuple[str, str]],
    run_id: int,
    archived_at: str,
) -> int:
    """Move (memory id, reason) rows into the archive and out of the store (their vectors,
    nodes, edges and records go with them); rows moved. Inside the caller's transaction."""
    moved = 0
    for memory_id, reason in items:
        found = _dicts(
            conn.execute(f"SELECT {ARCHIVED_COLUMNS} FROM memories WHERE id = %s", (memory_id,))
        )
        if not found:
            continue
        memory = found[0]
        with vector_bytes_cursor(conn) as cur:
            cur.execute(
                "SELECT model, dim, vector, text_hash, created_at FROM memory_embeddings"
                " WHERE memory_id = %s",
                (memory_id,),
            )
            vectors = _dicts(cur)
        vector = vectors[0].pop("vector") if vectors else None
        edges = _dicts(
            conn.execute(
                "SELECT source_id, target_id, relationship, weight,"
                " properties::text AS properties, created_at"
                " FROM graph_edges WHERE source_id = %s OR target_id = %s ORDER BY id",
                (memory_id, memory_id),
            )
        )
        extra: dict[str, Any] = {}
        decay = conn.execute(
            "SELECT base, written FROM memory_decay WHERE memory_id = %s", (memory_id,)
        ).fetchone()
        if decay is not None:
            extra["decay"] = [decay[0], decay[1]]
        demoted_by = conn.execute(
            "SELECT summary_id FROM memory_demotions WHERE memory_id = %s", (memory_id,)
        ).fetchone()
        if demoted_by is not None:
            extra["demoted_by"] = demoted_by[0]
        conn.execute(
            "INSERT INTO memory_archive (memory_id, namespace, run_id, archived_at, reason,"
            " memory, embedding, vector, edges, extra)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (memory_id) DO NOTHING",
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
        moved += conn.execute("DELETE FROM memories WHERE id = %s", (memory_id,)).rowcount
    return moved


def live_summarized(conn: psycopg.Connection[Any], summary_id: str) -> list[str]:
    """The memory ids a summary's SUMMARIZES edges still lead to."""
    rows = conn.execute(
        "SELECT target_id FROM graph_edges WHERE source_id = %s AND relationship = 'SUMMARIZES'",
        (summary_id,),
    ).fetchall()
    return [str(r[0]) for r in rows]


def set_cluster_members(conn: psycopg.Connection[Any], summary_id: str, members: str) -> None:
    """Record ``members`` (a hash) as what the cluster of ``summary_id`` last summarised."""
    conn.execute(
        "UPDATE consolidation_clusters SET members = %s WHERE summary_id = %s",
        (members, summary_id),
    )


def archived_rows(
    conn: psycopg.Connection[Any],
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
        where.append("namespace = %s")
        params.append(namespace)
    if run_id is not None:
        where.append("run_id = %s")
        params.append(run_id)
    if ids:
        where.append("memory_id = ANY(%s)")
        params.append(list(ids))
    sql = (
        "SELECT memory_id, namespace, run_id, archived_at, reason, memory FROM memory_archive"
        f" WHERE {' AND '.join(where)} ORDER BY archived_at DESC, memory_id"
    )
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return conn.execute(sql, params).fetchall()


def restore_memories(conn: psycopg.Connection[Any], ids: Sequence[str]) -> dict[str, str]:
    """Put archived rows back (the row, its vector, the edges whose other end still exists,
    its records) and drop them from the archive; memory id -> "restored", or why not."""
    out: dict[str, str] = {}
    for memory_id in ids:
        found = conn.execute(
            "SELECT memory, embedding, vector, edges, extra FROM memory_archive"
            " WHERE memory_id = %s",
            (memory_id,),
        ).fetchone()
        if found is None:
            out[memory_id] = "not in the archive"
            continue
        memory = loads(found[0])
        same = conn.execute(
            "SELECT id FROM memories WHERE id = %s OR (namespace = %s AND source = %s"
            " AND content_hash = %s)",
            (memory_id, memory["namespace"], memory["source"], memory["content_hash"]),
        ).fetchone()
        if same is not None:
            out[memory_id] = f"already in the store as {same[0]}"
            continue
        for column in ("content", "tags", "metadata"):  # redacted when stored: unchanged
            memory[column] = scrub.text(memory[column])
        columns = list(memory)
        values = ", ".join("%s::jsonb" if c in _JSON_COLUMNS else "%s" for c in columns)
        conn.execute(
            f"INSERT INTO memories ({', '.join(columns)}) VALUES ({values})",
            [memory[c] for c in columns],
        )
        _restore_links(conn, memory_id, memory, found)
        conn.execute("DELETE FROM memory_archive WHERE memory_id = %s", (memory_id,))
        out[memory_id] = "restored"
    return out


def _restore_links(conn: psycopg.Connection[Any], memory_id: str, memory: Any, found: Any) -> None:
    if found[1] is not None and found[2] is not None:
        import numpy as np

        vec = loads(found[1])
        conn.execute(
            "INSERT INTO memory_embeddings (memory_id, model, dim, vector, text_hash, created_at)"
            " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (
                memory_id,
                vec["model"],
                vec["dim"],
                np.frombuffer(bytes(found[2]), dtype="<f4").astype(np.float32),
                vec["text_hash"],
                vec["created_at"],
            ),
        )
    edges = loads(found[3])
    if edges:
        conn.execute(
            "INSERT INTO graph_nodes (id, kind, name, namespace, memory_id, created_at,"
            " updated_at) VALUES (%s, 'memory', %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (
                memory_id,
                scrub.text(str(memory["content"]))[:80],
                memory["namespace"],
                memory_id,
                memory["created_at"],
                memory["updated_at"],
            ),
        )
    for e in edges:
        conn.execute(
            "INSERT INTO graph_edges (source_id, target_id, relationship, weight, properties,"
            " created_at) SELECT %s, %s, %s, %s, %s::jsonb, %s"
            " WHERE EXISTS (SELECT 1 FROM graph_nodes WHERE id = %s)"
            " AND EXISTS (SELECT 1 FROM graph_nodes WHERE id = %s) ON CONFLICT DO NOTHING",
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
            "INSERT INTO memory_decay (memory_id, base, written) VALUES (%s, %s, %s)"
            " ON CONFLICT DO NOTHING",
            (memory_id, *extra["decay"]),
        )
    if "demoted_by" in extra:
        conn.execute(
            "INSERT INTO memory_demotions (memory_id, summary_id)"
            " SELECT %s, %s WHERE EXISTS (SELECT 1 FROM memories WHERE id = %s)"
            " ON CONFLICT DO NOTHING",
            (memory_id, extra["demoted_by"], extra["demoted_by"]),
        )


def purge_archive(conn: psycopg.Connection[Any], namespace: str, before: str) -> int:
    """Delete for good the namespace's archived rows archived before ``before``; rows deleted."""
    return conn.execute(
        "DELETE FROM memory_archive WHERE namespace = %s AND archived_at < %s", (namespace, before)
    ).rowcount
