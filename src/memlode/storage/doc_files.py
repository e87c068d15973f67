"""The index of memory files and docs: ``doc_files`` (one row per indexed file, with the hash
of what was indexed) and ``doc_chunks`` (which memory is which chunk of which file).
``memlode.sources.docindex`` decides what to index; every statement is here, for SQLite and
PostgreSQL alike."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memlode.storage.sql import Connection

__all__ = [
    "chunk_memory_ids",
    "clear_chunks",
    "file_row",
    "files_of_root",
    "insert_file",
    "is_chunk",
    "link_chunk",
    "remove_file",
    "reset_updated_at",
    "update_file",
]


def file_row(conn: Connection, namespace: str, path: str) -> Any:
    """(id, hash) of the file's record, or None."""
    return conn.execute(
        "SELECT id, hash FROM doc_files WHERE namespace = ? AND path = ?", (namespace, path)
    ).fetchone()


def insert_file(conn: Connection, values: Sequence[object], namespace: str, path: str) -> int:
    """A new record from (root, scope, hash, mtime, size, chunks, indexed_at); its id."""
    row = conn.execute(
        "INSERT INTO doc_files (root, scope, hash, mtime, size, chunks, indexed_at,"
        " namespace, path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (*values, namespace, path),
    ).fetchone()
    return int(row[0])


def update_file(conn: Connection, file_id: int, values: Sequence[object]) -> None:
    """Replace (root, scope, hash, mtime, size, chunks, indexed_at) of a record."""
    conn.execute(
        "UPDATE doc_files SET root = ?, scope = ?, hash = ?, mtime = ?, size = ?,"
        " chunks = ?, indexed_at = ? WHERE id = ?",
        (*values, file_id),
    )


def chunk_memory_ids(conn: Connection, file_id: int) -> list[str]:
    rows = conn.execute("SELECT memory_id FROM doc_chunks WHERE file_id = ?", (file_id,))
    return [r[0] for r in rows]


def clear_chunks(conn: Connection, file_id: int) -> None:
    conn.execute("DELETE FROM doc_chunks WHERE file_id = ?", (file_id,))


def remove_file(conn: Connection, file_id: int) -> None:
    conn.execute("DELETE FROM doc_files WHERE id = ?", (file_id,))  # cascades to doc_chunks


def is_chunk(conn: Connection, memory_id: str) -> bool:
    """Whether some file has ``memory_id`` as one of its chunks."""
    row = conn.execute("SELECT 1 FROM doc_chunks WHERE memory_id = ? LIMIT 1", (memory_id,))
    return row.fetchone() is not None


def link_chunk(conn: Connection, file_id: int, index: int, memory_id: str) -> None:
    conn.execute(
        "INSERT INTO doc_chunks (file_id, chunk, memory_id) VALUES (?, ?, ?)"
        " ON CONFLICT (file_id, chunk) DO UPDATE SET memory_id = excluded.memory_id",
        (file_id, index, memory_id),
    )


def reset_updated_at(conn: Connection, memory_id: str) -> None:
    """A chunk's memory is as old as its file's text (``created_at`` is the file's mtime)."""
    conn.execute("UPDATE memories SET updated_at = created_at WHERE id = ?", (memory_id,))


def files_of_root(conn: Connection, root: str, namespace: str) -> list[Any]:
    """(id, path) of the records of files indexed under ``root``."""
    rows: list[Any] = conn.execute(
        "SELECT id, path FROM doc_files WHERE root = ? AND namespace = ?", (root, namespace)
    ).fetchall()
    return rows
