"""Repository contracts: memory files and doc folders."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from memlode.storage.protocols import Connection

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "DocFileRows",
    "DocFolderRows",
]


class DocFileRows(Protocol):
    """Indexed memory files and docs, and their chunks.

    SQLite: ``memlode.storage.doc_files``.
    """

    def file_row(self, conn: Connection, namespace: str, path: str) -> Any:
        """(id, hash) of the file's record, or None."""
        ...

    def insert_file(
        self,
        conn: Connection,
        values: Sequence[object],
        namespace: str,
        path: str,
    ) -> int:
        """A new record from (root, scope, hash, mtime, size, chunks, indexed_at); its id."""
        ...

    def update_file(self, conn: Connection, file_id: int, values: Sequence[object]) -> None:
        """Replace (root, scope, hash, mtime, size, chunks, indexed_at) of a record."""
        ...

    def chunk_memory_ids(self, conn: Connection, file_id: int) -> list[str]: ...

    def clear_chunks(self, conn: Connection, file_id: int) -> None: ...

    def remove_file(self, conn: Connection, file_id: int) -> None: ...

    def is_chunk(self, conn: Connection, memory_id: str) -> bool:
        """Whether some file has ``memory_id`` as one of its chunks."""
        ...

    def link_chunk(self, conn: Connection, file_id: int, index: int, memory_id: str) -> None: ...

    def reset_updated_at(self, conn: Connection, memory_id: str) -> None:
        """A chunk's memory is as old as its file's text (``created_at`` is the file's mtime)."""
        ...

    def files_of_root(self, conn: Connection, root: str, namespace: str) -> list[Any]:
        """(id, path) of the records of files indexed under ``root``."""
        ...


class DocFolderRows(Protocol):
    """The doc folders a namespace indexes.

    SQLite: ``memlode.storage.doc_folders``.
    """

    def folders(self, conn: Connection) -> list[tuple[str, str]]:
        """(path, namespace) of every added folder, by path."""
        ...

    def add_folder(self, conn: Connection, path: str, namespace: str, added_at: str) -> bool:
        """Record the folder for ``namespace``; False when it was there already."""
        ...

    def folder_namespaces(self, conn: Connection, path: str) -> list[str]:
        """The namespaces the folder was added to."""
        ...

    def folder_file_ids(self, conn: Connection, path: str, namespace: str) -> list[int]:
        """Ids of the indexed files under an added folder in ``namespace``."""
        ...

    def remove_folder(self, conn: Connection, path: str) -> None:
        """Forget the folder in every namespace (its files are dropped by the caller)."""
        ...

    def folders_with_counts(self, conn: Connection) -> list[tuple[str, str, str, int, int]]:
        """(path, namespace, added at, files, chunks) of every added folder."""
        ...

    def root_counts(self, conn: Connection, root: str, namespace: str) -> tuple[Any, Any, Any]:
        """(files, chunks, last indexed at) under ``root`` in ``namespace``."""
        ...
