"""The rows consolidation reads and keeps, on PostgreSQL: its log, the decay bookkeeping, the
clusters of observations with their summaries, the members those summaries demote (the
counterpart of ``memlode.storage.consolidation``; Protocol ``ConsolidationRows``). JSON columns
come back as JSON text, as SQLite's do."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.fastjson import dumps
from memlode.storage import scrub

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    import psycopg

__all__ = [
    "cluster_record",
    "decay_candidates",
    "demoted",
    "latest_start",
    "log_finish",
    "log_rows",
    "log_start",
    "namespaces_with_rows",
    "observation_rows",
    "save_cluster",
    "set_demotions",
    "write_decay",
]


def log_start(
    conn: psycopg.Connection[Any],
    kind: str,
    namespace: str,
    started_at: str,
    details: dict[str, Any],
) -> int:
    """A new consolidation_log row for a cycle starting now; its id."""
    row = conn.execute(
        "INSERT INTO consolidation_log (kind, namespace, started_at, details)"
        " VALUES (%s, %s, %s, %s::jsonb) RETURNING id",
        (kind, namespace, started_at, dumps(scrub.mapping(details))),
    ).fetchone()
    return int(row[0]) if row is not None else 0


def log_finish(
    conn: psycopg.Connection[Any], log_id: int, finished_at: str, details: dict[str, Any]
) -> None:
    conn.execute(
        "UPDATE consolidation_log SET finished_at = %s, details = %s::jsonb WHERE id = %s",
        (finished_at, dumps(scrub.mapping(details)), log_id),
    )


def log_rows(conn: psycopg.Connection[Any], limit: int) -> list[Any]:
    """(id, kind, namespace, started_at, finished_at, details) of the latest runs, newest first."""
    return conn.execute(
        "SELECT id, kind, namespace, started_at, finished_at, details::text AS details"
        " FROM consolidation_log ORDER BY id DESC LIMIT %s",
        (limit,),
    ).fetchall()


def latest_start(conn: psycopg.Connection[Any], kinds: Sequence[str]) -> str | None:
    """started_at of the latest run of one of ``kinds`` (finished or not), or None."""
    row = conn.execute(
        "SELECT started_at FROM consolidation_log WHERE kind = ANY(%s) ORDER BY id DESC LIMIT 1",
        (list(kinds),),
    ).fetchone()
    return None if row is None else str(row[0])


def namespaces_with_rows(conn: psycopg.Connection[Any]) -> list[str]:
    rows = conn.execute("SELECT DISTINCT namespace FROM memories ORDER BY 1").fetchall()
    return [str(r[0]) for r in rows]


def decay_candidates(
    conn: psycopg.Connection[Any],
    namespace: str,
    exempt_sources: Sequence[str],
    exempt_user_type: str,
) -> list[Any]:
    """(id, importance, created_at, last_accessed_at, base, written) of the memories of
    ``namespace`` the decay cycle may lower: not of ``exempt_sources``, not a user-stored
    (source ``memory``) memory of type ``exempt_user_type``."""
    return conn.execute(
        "SELECT m.id, m.importance, m.created_at, m.last_accessed_at, d.base, d.written"
        " FROM memories AS m LEFT JOIN memory_decay AS d ON d.memory_id = m.id"
        " WHERE m.namespace = %s AND NOT (m.source = ANY(%s))"
        " AND NOT (m.source = 'memory' AND m.memory_type = %s)",
        (namespace, list(exempt_sources), exempt_user_type),
    ).fetchall()


def write_decay(conn: psycopg.Connection[Any], rows: Iterable[tuple[str, float, float]]) -> int:
    """Set (memory id, new importance, base): the importance and the bookkeeping; rows written."""
    n = 0
    for memory_id, importance, base in rows:
        conn.execute("UPDATE memories SET importance = %s WHERE id = %s", (importance, memory_id))
        conn.execute(
            "INSERT INTO memory_decay (memory_id, base, written) VALUES (%s, %s, %s)"
            " ON CONFLICT (memory_id) DO UPDATE SET base = excluded.base,"
            " written = excluded.written",
            (memory_id, base, importance),
        )
        n += 1
    return n


def observation_rows(conn: psycopg.Connection[Any], namespace: str, source: str) -> list[Any]:
    """(id, content, tags, metadata, session_id, created_at, importance) of the namespace's
    observations from ``source``, oldest first."""
    return conn.execute(
        "SELECT id, content, tags::text AS tags, metadata::text AS metadata, session_id,"
        " created_at, importance FROM memories"
        " WHERE namespace = %s AND source = %s ORDER BY created_at, rowid",
        (namespace, source),
    ).fetchall()


def cluster_record(
    conn: psycopg.Connection[Any], namespace: str, kind: str, key: str
) -> tuple[str, str] | None:
    """(summary id, members hash) of the cluster, or None."""
    row = conn.execute(
        "SELECT summary_id, members FROM consolidation_clusters"
        " WHERE namespace = %s AND kind = %s AND key = %s",
        (namespace, kind, key),
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def save_cluster(
    conn: psycopg.Connection[Any],
    namespace: str,
    kind: str,
    key: str,
    summary_id: str,
    members: str,
) -> None:
    conn.execute(
        "INSERT INTO consolidation_clusters (namespace, kind, key, summary_id, members)"
        " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (namespace, kind, key) DO UPDATE SET"
        " summary_id = excluded.summary_id, members = excluded.members",
        (namespace, kind, key, summary_id, members),
    )


def set_demotions(
    conn: psycopg.Connection[Any], summary_id: str, member_ids: Sequence[str]
) -> None:
    """The members ``summary_id`` stands for, replacing what it stood for before."""
    conn.execute("DELETE FROM memory_demotions WHERE summary_id = %s", (summary_id,))
    if member_ids:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO memory_demotions (memory_id, summary_id) VALUES (%s, %s)"
                " ON CONFLICT (memory_id) DO UPDATE SET summary_id = excluded.summary_id",
                [(m, summary_id) for m in member_ids],
            )


def demoted(conn: psycopg.Connection[Any], ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` a summary stands for."""
    if not ids:
        return set()
    rows = conn.execute(
        "SELECT memory_id FROM memory_demotions WHERE memory_id = ANY(%s)", (list(ids),)
    ).fetchall()
    return {str(r[0]) for r in rows}
