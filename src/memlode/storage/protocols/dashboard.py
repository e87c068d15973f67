"""Repository contract: the reads of the dashboard (``memlode viz``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from memlode.storage.protocols import Connection

if TYPE_CHECKING:
    from collections.abc import Sequence

    from memlode.storage.values import MemoryFilter
    from memlode.types import Memory

__all__ = ["DashboardRows"]


class DashboardRows(Protocol):
    """Sorted pages of memories, the central part of the graph, vectors, session files.

    SQLite: ``memlode.storage.dashboard``.
    """

    def select_sorted(
        self, conn: Connection, flt: MemoryFilter, sort: str, limit: int, offset: int
    ) -> tuple[int, list[Memory]]: ...

    def data_version(self, conn: Connection) -> int: ...

    def change_mark(self, conn: Connection, namespace: str | None) -> tuple[int, str | None]: ...

    def top_nodes(
        self, conn: Connection, namespace: str | None, kinds: Sequence[str], limit: int
    ) -> list[tuple[Any, ...]]: ...

    def edges_among(self, conn: Connection, node_ids: Sequence[str]) -> list[tuple[Any, ...]]: ...

    def memory_vectors(
        self, conn: Connection, namespace: str | None, limit: int
    ) -> list[tuple[Any, ...]]: ...

    def session_files(self, conn: Connection, session_id: str) -> list[tuple[str, str]]: ...

    def session_memory_counts(
        self, conn: Connection, session_ids: Sequence[str]
    ) -> dict[str, dict[str, int]]: ...

    def session_prompts(
        self, conn: Connection, session_id: str, tags: Sequence[str], limit: int
    ) -> list[Memory]: ...
