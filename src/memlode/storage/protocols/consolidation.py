"""Repository contracts: consolidation's log, decay bookkeeping, clusters and demotions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from memlode.storage.protocols import Connection, Row

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["ConsolidationRows", "PatternRows", "ReflectionRows"]


class ConsolidationRows(Protocol):
    """What the consolidation cycles read and keep beside the memories.

    SQLite: ``memlode.storage.consolidation``.
    """

    def log_start(
        self, conn: Connection, kind: str, namespace: str, started_at: str, details: dict[str, Any]
    ) -> int:
        """A new consolidation_log row for a cycle starting now; its id."""
        ...

    def log_finish(
        self, conn: Connection, log_id: int, finished_at: str, details: dict[str, Any]
    ) -> None: ...

    def log_rows(self, conn: Connection, limit: int) -> list[Row]:
        """(id, kind, namespace, started_at, finished_at, details), newest first."""
        ...

    def latest_start(self, conn: Connection, kinds: Sequence[str]) -> str | None:
        """started_at of the latest run of one of ``kinds`` (finished or not), or None."""
        ...

    def namespaces_with_rows(self, conn: Connection) -> list[str]: ...

    def decay_candidates(
        self,
        conn: Connection,
        namespace: str,
        exempt_sources: Sequence[str],
        exempt_user_type: str,
    ) -> list[Row]:
        """(id, importance, created_at, last_accessed_at, base, written) of what may decay."""
        ...

    def write_decay(self, conn: Connection, rows: Iterable[tuple[str, float, float]]) -> int:
        """Set (memory id, new importance, base); rows written."""
        ...

    def observation_rows(self, conn: Connection, namespace: str, source: str) -> list[Row]:
        """(id, content, tags, metadata, session_id, created_at, importance), oldest first."""
        ...

    def cluster_record(
        self, conn: Connection, namespace: str, kind: str, key: str
    ) -> tuple[str, str] | None: ...

    def save_cluster(
        self,
        conn: Connection,
        namespace: str,
        kind: str,
        key: str,
        summary_id: str,
        members: str,
    ) -> None: ...

    def set_demotions(self, conn: Connection, summary_id: str, member_ids: Sequence[str]) -> None:
        """The members ``summary_id`` stands for, replacing what it stood for before."""
        ...

    def demoted(self, conn: Connection, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` a summary stands for."""
        ...


class PatternRows(Protocol):
    """What the patterns cycle reads beyond the observations, and the patterns it stored.

    SQLite: ``memlode.storage.patterns``.
    """

    def decision_rows(self, conn: Connection, namespace: str, exclude_source: str) -> list[Row]:
        """(id, content, session_id, created_at) of the namespace's decisions, oldest first."""
        ...

    def seen_rows(self, conn: Connection, namespace: str, source: str) -> list[Row]:
        """(memory id, session id) of the namespace's memories met again in other sessions."""
        ...

    def stored_patterns(
        self,
        conn: Connection,
        namespace: str | None,
        source: str,
        kind: str | None,
        min_strength: float,
        limit: int,
    ) -> list[Row]:
        """(id, namespace, memory_type, content, metadata, created_at, updated_at), strongest
        first."""
        ...


class ReflectionRows(Protocol):
    """What the reflect cycle reads: sessions, their rows, its records.

    SQLite: ``memlode.storage.reflection``.
    """

    def sessions_to_reflect(self, conn: Connection, namespace: str, idle_before: str) -> list[Row]:
        """(id, started_at, ended_at, last activity) of ended or idle sessions, oldest first."""
        ...

    def session_evidence(
        self, conn: Connection, namespace: str, session_id: str, exclude_source: str
    ) -> list[Row]:
        """(id, content, memory_type, source, tags, metadata, created_at), oldest first."""
        ...

    def reflection_records(self, conn: Connection, namespace: str) -> list[Row]:
        """(kind, key, insight id, members hash, what stands for the insight or None)."""
        ...

    def drop_record(self, conn: Connection, namespace: str, kind: str, key: str) -> None: ...

    def sessions_ended_since(self, conn: Connection, kind: str) -> int:
        """Sessions ended since the latest finished ``kind`` run started."""
        ...
