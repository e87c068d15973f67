"""The rows consolidation reads and keeps: its log, the decay bookkeeping, the clusters of
observations with their summaries, and the members those summaries demote.

Parameters in, plain rows out; what a cycle does with them is ``memlode.engine.consolidation``'s.
Summaries are memories like any other and are written through ``storage.memories``. Serves both
backends (SQLite and PostgreSQL, ``memlode.storage.sql``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.fastjson import dumps
from memlode.storage import scrub

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from memlode.storage.sql import Connection

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
    conn: Connection, kind: str, namespace: str, started_at: str, details: dict[str, Any]
) -> int:
    """A new consolidation_log row for a cycle starting now; its id."""
    row = conn.execute(
        "INSERT INTO consolidation_log (kind, namespace, started_at, details) VALUES (?, ?, ?, ?)"
        " RETURNING id",
        (kind, namespace, started_at, dumps(scrub.mapping(details))),
    ).fetchone()
    return 0 if row is None else int(row[0])


def log_finish(conn: Connection, log_id: int, finished_at: str, details: dict[str, Any]) -> None:
    conn.execute(
        "UPDATE consolidation_log SET finished_at = ?, details = ? WHERE id = ?",
        (finished_at, dumps(scrub.mapping(details)), log_id),
    )


def log_rows(conn: Connection, limit: int) -> list[Any]:
    """(id, kind, namespace, started_at, finished_at, details) of the latest runs, newest first."""
    rows: list[Any] = conn.execute(
        "SELECT id, kind, namespace, started_at, finished_at, details FROM consolidation_log"
        " ORDER BY id DESC LIMIT ?",
        (limit,),
    ).fetchall()
    return rows


def latest_start(conn: Connection, kinds: Sequence[str]) -> str | None:
    """started_at of the latest run of one of ``kinds`` (finished or not), or None."""
    marks = ",".join("?" * len(kinds)) or "''"
    row = conn.execute(
        f"SELECT started_at FROM consolidation_log WHERE kind IN ({marks})"
        " ORDER BY id DESC LIMIT 1",
        tuple(kinds),
    ).fetchone()
    return None if row is None else str(row[0])


def namespaces_with_rows(conn: Connection) -> list[str]:
    return [str(r[0]) for r in conn.execute("SELECT DISTINCT namespace FROM memories ORDER BY 1")]


def decay_candidates(
    conn: Connection, namespace: str, exempt_sources: Sequence[str], exempt_user_type: str
) -> list[Any]:
    """(id, importance, created_at, last_accessed_at, base, written) of the memories of
    ``namespace`` the decay cycle may lower: not of ``exempt_sources``, not a user-stored
    (source ``memory``) memory of type ``exempt_user_type``."""
    marks = ",".join("?" * len(exempt_sources)) or "''"
    rows: list[Any] = conn.execute(
        "SELECT m.id, m.importance, m.created_at, m.last_accessed_at, d.base, d.written"
        " FROM memories AS m LEFT JOIN memory_decay AS d ON d.memory_id = m.id"
        f" WHERE m.namespace = ? AND m.source NOT IN ({marks})"
        " AND NOT (m.source = 'memory' AND m.memory_type = ?)",
        (namespace, *exempt_sources, exempt_user_type),
    ).fetchall()
    return rows


def write_decay(conn: Connection, rows: Iterable[tuple[str, float, float]]) -> int:
    """Set (memory id, new importance, base): the importance and the bookkeeping; rows written."""
    n = 0
    for memory_id, importance, base in rows:
        conn.execute("UPDATE memories SET importance = ? WHERE id = ?", (importance, memory_id))
        conn.execute(
            "INSERT INTO memory_decay (memory_id, base, written) VALUES (?, ?, ?)"
            " ON CONFLICT (memory_id) DO UPDATE SET base = excluded.base,"
            " written = excluded.written",
            (memory_id, base, importance),
        )
        n += 1
    return n


def observation_rows(conn: Connection, namespace: str, source: str) -> list[Any]:
    """(id, content, tags, metadata, session_id, created_at, importance) of the namespace's
    observations from ``source``, oldest first."""
    rows: list[Any] = conn.execute(
        "SELECT id, content, tags, metadata, session_id, created_at, importance FROM memories"
        " WHERE namespace = ? AND source = ? ORDER BY created_at, rowid",
        (namespace, source),
    ).fetchall()
    return rows


def cluster_record(conn: Connection, namespace: str, kind: str, key: str) -> tuple[str, str] | None:
    """(summary id, members hash) of the cluster, or None."""
    row = conn.execute(
        "SELECT summary_id, members FROM consolidation_clusters"
        " WHERE namespace = ? AND kind = ? AND key = ?",
        (namespace, kind, key),
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def save_cluster(
    conn: Connection, namespace: str, kind: str, key: str, summary_id: str, members: str
) -> None:
    conn.execute(
        "INSERT INTO consolidation_clusters (namespace, kind, key, summary_id, members)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (namespace, kind, key) DO UPDATE SET"
        " summary_id = excluded.summary_id, members = excluded.members",
        (namespace, kind, key, summary_id, members),
    )


def set_demotions(conn: Connection, summary_id: str, member_ids: Sequence[str]) -> None:
    """The members ``summary_id`` stands for, replacing what it stood for before."""
    conn.execute("DELETE FROM memory_demotions WHERE summary_id = ?", (summary_id,))
    conn.executemany(
        "INSERT INTO memory_demotions (memory_id, summary_id) VALUES (?, ?)"
        " ON CONFLICT (memory_id) DO UPDATE SET summary_id = excluded.summary_id",
        [(m, summary_id) for m in member_ids],
    )


def demoted(conn: Connection, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` a summary stands for."""
    out: set[str] = set()
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        out.update(
            str(r[0])
            for r in conn.execute(
                f"SELECT memory_id FROM memory_demotions WHERE memory_id IN ({marks})", chunk
            )
        )
    return out
