"""The ingest state of transcript files on PostgreSQL: ``transcript_files``,
``transcript_units``, ``transcript_chunks`` (the counterpart of
``memlode.storage.transcript_store``; Protocol ``TranscriptRows``). Every write runs inside the
caller's transaction."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.transcript_store import _FILE_COLUMNS

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    import psycopg

__all__ = [
    "add_unit",
    "chunk_linked",
    "content_hashes",
    "drop_unit",
    "file_state",
    "link_chunk",
    "save_file_state",
    "stored_threads",
    "stored_units",
    "unit_chunks",
]


def file_state(conn: psycopg.Connection[Any], path: str) -> Any:
    """The file's ingest row (columns by name), or None for a file never ingested."""
    return conn.execute(
        f"SELECT {', '.join(_FILE_COLUMNS)} FROM transcript_files WHERE path = %s", (path,)
    ).fetchone()


def save_file_state(conn: psycopg.Connection[Any], state: dict[str, Any]) -> None:
    """Insert or replace the file's ingest row (``state`` holds every column by name)."""
    columns = ", ".join(_FILE_COLUMNS)
    marks = ", ".join(["%s"] * len(_FILE_COLUMNS))
    updates = ", ".join(f"{c} = excluded.{c}" for c in _FILE_COLUMNS[1:])
    conn.execute(
        f"INSERT INTO transcript_files ({columns}) VALUES ({marks})"
        f" ON CONFLICT (path) DO UPDATE SET {updates}",
        [state[c] for c in _FILE_COLUMNS],
    )


def stored_threads(conn: psycopg.Connection[Any], path: str) -> set[str]:
    """The threads (main, subagents, summary, ...) with units stored for the file."""
    rows = conn.execute("SELECT DISTINCT thread FROM transcript_units WHERE path = %s", (path,))
    return {r[0] for r in rows}


def stored_units(conn: psycopg.Connection[Any], path: str) -> list[tuple[str, int, str]]:
    """(thread, unit, fingerprint) of every unit stored for the file."""
    rows = conn.execute(
        "SELECT thread, unit, fingerprint FROM transcript_units WHERE path = %s", (path,)
    )
    return [(r[0], r[1], r[2]) for r in rows]


def unit_chunks(conn: psycopg.Connection[Any], path: str) -> dict[tuple[str, int], list[str]]:
    """The memory ids of each stored unit's chunks, in chunk order."""
    out: dict[tuple[str, int], list[str]] = {}
    rows = conn.execute(
        "SELECT thread, unit, memory_id FROM transcript_chunks WHERE path = %s"
        " ORDER BY thread, unit, chunk",
        (path,),
    )
    for row in rows:
        out.setdefault((row[0], row[1]), []).append(row[2])
    return out


def drop_unit(conn: psycopg.Connection[Any], path: str, thread: str, unit: int) -> None:
    """Forget a stored unit (its chunk links go with it; the memories stay)."""
    conn.execute(
        "DELETE FROM transcript_units WHERE path = %s AND thread = %s AND unit = %s",
        (path, thread, unit),
    )


def add_unit(
    conn: psycopg.Connection[Any],
    path: str,
    thread: str,
    unit: int,
    fingerprint: str,
    provisional: bool,
) -> None:
    conn.execute(
        "INSERT INTO transcript_units (path, thread, unit, fingerprint, provisional)"
        " VALUES (%s, %s, %s, %s, %s)",
        (path, thread, unit, fingerprint, int(provisional)),
    )


def link_chunk(
    conn: psycopg.Connection[Any], path: str, thread: str, unit: int, chunk: int, memory_id: str
) -> None:
    """Record that chunk ``chunk`` of a unit is memory ``memory_id``."""
    conn.execute(
        "INSERT INTO transcript_chunks (path, thread, unit, chunk, memory_id)"
        " VALUES (%s, %s, %s, %s, %s)",
        (path, thread, unit, chunk, memory_id),
    )


def chunk_linked(conn: psycopg.Connection[Any], memory_id: str) -> bool:
    """Whether any unit's chunk is ``memory_id``."""
    row = conn.execute(
        "SELECT 1 FROM transcript_chunks WHERE memory_id = %s LIMIT 1", (memory_id,)
    ).fetchone()
    return row is not None


def content_hashes(
    conn: psycopg.Connection[Any], ids: Sequence[str], namespace: str
) -> Iterator[tuple[str, str]]:
    """(id, content hash) of those of ``ids`` in ``namespace``."""
    if not ids:
        return iter(())
    rows = conn.execute(
        "SELECT id, content_hash FROM memories WHERE id = ANY(%s) AND namespace = %s",
        (list(ids), namespace),
    ).fetchall()
    return iter([(r[0], r[1]) for r in rows])
