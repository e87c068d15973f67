"""Folders of markdown docs a user added (``doc_folders``) and what is indexed under a root
(``doc_files``): what ``memlode docs add / remove / list / status`` read and write, on SQLite
and PostgreSQL alike."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = [
    "add_folder",
    "folder_file_ids",
    "folder_namespaces",
    "folders",
    "folders_with_counts",
    "remove_folder",
    "root_counts",
]


def folders(conn: Connection) -> list[tuple[str, str]]:
    """(path, namespace) of every added folder, by path."""
    return [
        (r[0], r[1]) for r in conn.execute("SELECT path, namespace FROM doc_folders ORDER BY path")
    ]


def add_folder(conn: Connection, path: str, namespace: str, added_at: str) -> bool:
    """Record the folder for ``namespace``; False when it was there already."""
    cur = conn.execute(
        "INSERT INTO doc_folders (path, namespace, added_at) VALUES (?, ?, ?)"
        " ON CONFLICT (path, namespace) DO NOTHING",
        (path, namespace, added_at),
    )
    return int(cur.rowcount) > 0


def folder_namespaces(conn: Connection, path: str) -> list[str]:
    """The namespaces the folder was added to."""
    rows = conn.execute("SELECT namespace FROM doc_folders WHERE path = ?", (path,))
    return [r[0] for r in rows]


def folder_file_ids(conn: Connection, path: str, namespace: str) -> list[int]:
    """Ids of the indexed files under an added folder in ``namespace``."""
    rows = conn.execute(
        "SELECT id FROM doc_files WHERE root = ? AND namespace = ? AND scope = 'folder'",
        (path, namespace),
    )
    return [r[0] for r in rows]


def remove_folder(conn: Connection, path: str) -> None:
    """Forget the folder in every namespace (its files are dropped by the caller)."""
    conn.execute("DELETE FROM doc_folders WHERE path = ?", (path,))


def folders_with_counts(conn: Connection) -> list[tuple[str, str, str, int, int]]:
    """(path, namespace, added at, files, chunks) of every added folder."""
    rows = conn.execute(
        "SELECT f.path, f.namespace, f.added_at, count(d.id), coalesce(sum(d.chunks), 0)"
        " FROM doc_folders f LEFT JOIN doc_files d ON d.root = f.path AND d.namespace = f.namespace"
        " GROUP BY f.path, f.namespace, f.added_at ORDER BY f.path, f.namespace"
    )
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def root_counts(conn: Connection, root: str, namespace: str) -> tuple[Any, Any, Any]:
    """(files, chunks, last indexed at) under ``root`` in ``namespace``."""
    row = conn.execute(
        "SELECT count(*), coalesce(sum(chunks), 0), max(indexed_at) FROM doc_files"
        " WHERE root = ? AND namespace = ?",
        (root, namespace),
    ).fetchone()
    return row[0], row[1], row[2]
