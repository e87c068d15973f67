"""The ingest state of transcript files: one row per file (``transcript_files``: size, mtime,
how far it was read, its provisional last turn), its units with their fingerprints
(``transcript_units``) and the memories each unit's chunks are (``transcript_chunks``).
``memlode.engine.transcript_units.reconcile`` and ``memlode.engine.transcripts`` drive these;
every write runs inside the caller's transaction. One module for SQLite and PostgreSQL."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from memlode.storage.sql import Connection, Row

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

_FILE_COLUMNS = (
    "path",
    "session_id",
    "namespace",
    "file_size",
    "mtime_ns",
    "read_offset",
    "read_lines",
    "malformed_lines",
    "provisional_offset",
    "provisional_line",
    "provisional_uuid",
    "prefix_malformed",
    "turns",
    "sidechain_turns",
    "ingested_at",
)


def file_state(conn: Connection, path: str) -> Row | None:
    """The file's ingest row (columns by name), or None for a file never ingested."""
    row: Row | None = conn.execute(
        "SELECT * FROM transcript_files WHERE path = ?", (path,)
    ).fetchone()
    return row


def save_file_state(conn: Connection, state: dict[str, Any]) -> None:
    """Insert or replace the file's ingest row (``state`` holds every column by name)."""
    columns = ", ".join(_FILE_COLUMNS)
    marks = ",".join("?" * len(_FILE_COLUMNS))
    updates = ", ".join(f"{c} = excluded.{c}" for c in _FILE_COLUMNS[1:])
    conn.execute(
        f"INSERT INTO transcript_files ({columns}) VALUES ({marks})"
        f" ON CONFLICT (path) DO UPDATE SET {updates}",
        [state[c] for c in _FILE_COLUMNS],
    )


def stored_threads(conn: Connection, path: str) -> set[str]:
    """The threads (main, subagents, summary, ...) with units stored for the file."""
    rows = conn.execute("SELECT DISTINCT thread FROM transcript_units WHERE path = ?", (path,))
    return {r[0] for r in rows}


def stored_units(conn: Connection, path: str) -> list[tuple[str, int, str]]:
    """(thread, unit, fingerprint) of every unit stored for the file."""
    rows = conn.execute(
        "SELECT thread, unit, fingerprint FROM transcript_units WHERE path = ?", (path,)
    )
    return [(r[0], r[1], r[2]) for r in rows]


def unit_chunks(conn: Connection, path: str) -> dict[tuple[str, int], list[str]]:
    """The memory ids of each stored unit's chunks, in chunk order."""
    out: dict[tuple[str, int], list[str]] = {}
    rows = conn.execute(
        "SELECT thread, unit, memory_id FROM transcript_chunks WHERE path = ?"
        " ORDER BY thread, unit, chunk",
        (path,),
    )
    for row in rows:
        out.setdefault((row[0], row[1]), []).append(row[2])
    return out


def drop_unit(conn: Connection, path: str, thread: str, unit: int) -> None:
    """Forget a stored unit (its chunk links go with it; the memories stay)."""
    conn.execute(
        "DELETE FROM transcript_units WHERE path = ? AND thread = ? AND unit = ?",
        (path, thread, unit),
    )


def add_unit(
    conn: Connection,
    path: str,
    thread: str,
    unit: int,
    fingerprint: str,
    provisional: bool,
) -> None:
    conn.execute(
        "INSERT INTO transcript_units (path, thread, unit, fingerprint, provisional)"
        " VALUES (?, ?, ?, ?, ?)",
        (path, thread, unit, fingerprint, int(provisional)),
    )


def link_chunk(
    conn: Connection, path: str, thread: str, unit: int, chunk: int, memory_id: str
) -> None:
    """Record that chunk ``chunk`` of a unit is memory ``memory_id``."""
    conn.execute(
        "INSERT INTO transcript_chunks (path, thread, unit, chunk, memory_id)"
        " VALUES (?, ?, ?, ?, ?)",
        (path, thread, unit, chunk, memory_id),
    )


def chunk_linked(conn: Connection, memory_id: str) -> bool:
    """Whether any unit's chunk is ``memory_id``."""
    row = conn.execute(
        "SELECT 1 FROM transcript_chunks WHERE memory_id = ? LIMIT 1", (memory_id,)
    ).fetchone()
    return row is not None


def content_hashes(
    conn: Connection, ids: Sequence[str], namespace: str
) -> Iterator[tuple[str, str]]:
    """(id, content hash) of those of ``ids`` in ``namespace``, 500 ids a query."""
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        yield from conn.execute(
            f"SELECT id, content_hash FROM memories WHERE id IN ({marks}) AND namespace = ?",
            [*chunk, namespace],
        )
