"""Repository contracts: sessions, the hooks' capture state, transcript ingest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from memlode.storage.protocols import Connection, Row

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from memlode.types import Session

__all__ = [
    "SessionCaptureRows",
    "SessionRows",
    "TranscriptRows",
]


class SessionRows(Protocol):
    """Sessions as the engine reads and writes them.

    SQLite: ``memlode.storage.sessions``.
    """

    def start(
        self,
        conn: Connection,
        session_id: str,
        namespace: str,
        source: str,
        metadata: dict[str, Any] | None = None,
    ) -> tuple[Session, bool]:
        """Start a session, or resume it (clearing ended_at) if it exists. Returns (session,
        new)."""
        ...

    def end(self, conn: Connection, session_id: str, summary: str | None) -> bool: ...

    def set_summary(
        self,
        conn: Connection,
        session_id: str,
        summary: str,
        *,
        only_if_empty: bool = False,
        limit: int | None = None,
    ) -> bool:
        """Set the session's summary (only where it has none, with ``only_if_empty``), cut to
        ``limit`` characters after redaction (a cut first could leave half a secret
        unrecognised)."""
        ...

    def insert_exact(self, conn: Connection, session: Session) -> bool:
        """Insert a session with every field as given (import, a transcript's session); its text
        is redacted like any other write. False if the id exists (the stored row is
        left alone)."""
        ...

    def fetch(self, conn: Connection, session_id: str) -> Session | None: ...

    def list_sessions(
        self,
        conn: Connection,
        namespace: str | None,
        limit: int = 50,
    ) -> list[Session]: ...


class SessionCaptureRows(Protocol):
    """Per-session capture state the hooks keep (seen ids, files read).

    SQLite: ``memlode.storage.capture_session``.
    """

    def start_session(
        self,
        conn: Connection,
        session_id: str,
        namespace: str,
        source: str,
        metadata: Mapping[str, Any] | None = None,
    ) -> bool:
        """Start or resume (clear ``ended_at``) a session, merging ``metadata``; True when new."""
        ...

    def end_session(self, conn: Connection, session_id: str, summary: str | None) -> bool:
        """End the session, keeping its summary unless a new one is given."""
        ...

    def set_session_summary(self, conn: Connection, session_id: str, summary: str) -> bool: ...

    def session_started_at(self, conn: Connection, session_id: str) -> str:
        """When the session started ("" when there is no such session)."""
        ...

    def session_metadata(self, conn: Connection, session_id: str) -> dict[str, Any] | None:
        """The session's metadata object; None when there is no such session."""
        ...

    def update_session_metadata(
        self,
        conn: Connection,
        session_id: str,
        changes: Mapping[str, Any],
    ) -> None:
        """Set top-level keys of the session's metadata (each value replaced whole)."""
        ...

    def remember_seen(self, conn: Connection, session_id: str, memory_id: str) -> bool:
        """Note that ``memory_id`` was met again in the session, if another session stored it;
        True when noted now."""
        ...

    def last_file_observation(self, conn: Connection, session_id: str, path: str) -> str | None:
        """The id of the session's last observation of the file at ``path``."""
        ...

    def remember_file(self, conn: Connection, session_id: str, path: str, memory_id: str) -> None:
        """Make ``memory_id`` the session's last observation of ``path`` (at most ``MAX_FILES``
        files per session: the least recently observed one goes)."""
        ...

    def session_memories(
        self,
        conn: Connection,
        session_id: str,
    ) -> list[tuple[str, str, str, str, str]]:
        """(id, content, memory_type, tags, metadata) of the memories the session stored or met
        again, oldest first."""
        ...


class TranscriptRows(Protocol):
    """Transcript ingest offsets, units and the chunks they became.

    SQLite: ``memlode.storage.transcript_store``.
    """

    def file_state(self, conn: Connection, path: str) -> Row | None:
        """The file's ingest row (columns by name), or None for a file never ingested."""
        ...

    def save_file_state(self, conn: Connection, state: dict[str, Any]) -> None:
        """Insert or replace the file's ingest row (``state`` holds every column by name)."""
        ...

    def stored_threads(self, conn: Connection, path: str) -> set[str]:
        """The threads (main, subagents, summary, ...) with units stored for the file."""
        ...

    def stored_units(self, conn: Connection, path: str) -> list[tuple[str, int, str]]:
        """(thread, unit, fingerprint) of every unit stored for the file."""
        ...

    def unit_chunks(self, conn: Connection, path: str) -> dict[tuple[str, int], list[str]]:
        """The memory ids of each stored unit's chunks, in chunk order."""
        ...

    def drop_unit(self, conn: Connection, path: str, thread: str, unit: int) -> None:
        """Forget a stored unit (its chunk links go with it; the memories stay)."""
        ...

    def add_unit(
        self,
        conn: Connection,
        path: str,
        thread: str,
        unit: int,
        fingerprint: str,
        provisional: bool,
    ) -> None: ...

    def link_chunk(
        self,
        conn: Connection,
        path: str,
        thread: str,
        unit: int,
        chunk: int,
        memory_id: str,
    ) -> None:
        """Record that chunk ``chunk`` of a unit is memory ``memory_id``."""
        ...

    def chunk_linked(self, conn: Connection, memory_id: str) -> bool:
        """Whether any unit's chunk is ``memory_id``."""
        ...

    def content_hashes(
        self,
        conn: Connection,
        ids: Sequence[str],
        namespace: str,
    ) -> Iterator[tuple[str, str]]:
        """(id, content hash) of those of ``ids`` in ``namespace``, 500 ids a query."""
        ...
