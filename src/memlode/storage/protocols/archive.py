"""Repository contract: the forget cycle's archive."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from memlode.storage.protocols import Connection, Row

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["ArchiveRows"]


class ArchiveRows(Protocol):
    """Which rows may be forgotten; moving them into the archive and back; purging it.

    SQLite: ``memlode.storage.archive``.
    """

    def forget_candidates(
        self,
        conn: Connection,
        namespace: str,
        *,
        protected_sources: Sequence[str],
        protected_types: Sequence[str],
        before: str,
        max_importance: float,
    ) -> list[tuple[str, str]]:
        """(memory id, reason) of what may be forgotten, oldest first."""
        ...

    def archive_memories(
        self, conn: Connection, items: Sequence[tuple[str, str]], run_id: int, archived_at: str
    ) -> int:
        """Move (memory id, reason) rows into the archive and out of the store; rows moved."""
        ...

    def live_summarized(self, conn: Connection, summary_id: str) -> list[str]: ...

    def set_cluster_members(self, conn: Connection, summary_id: str, members: str) -> None: ...

    def archived_rows(
        self,
        conn: Connection,
        *,
        namespace: str | None,
        run_id: int | None,
        ids: Sequence[str],
        limit: int | None,
    ) -> list[Row]:
        """(memory id, namespace, run id, archived at, reason, memory JSON), newest first."""
        ...

    def restore_memories(self, conn: Connection, ids: Sequence[str]) -> dict[str, str]:
        """Put archived rows back; memory id -> "restored", or why not."""
        ...

    def purge_archive(self, conn: Connection, namespace: str, before: str) -> int: ...
