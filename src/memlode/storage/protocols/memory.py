"""Repository contracts: memories, capture, embeddings, settings, namespaces, counts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from memlode.storage.protocols import Connection, Row

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from memlode.storage.namespaces import LegacyNamespace, MoveReport, Selection
    from memlode.storage.values import MemoryFilter, NewMemory
    from memlode.types import Memory

__all__ = [
    "CaptureRows",
    "EmbeddingRows",
    "MemoryRows",
    "NamespaceRows",
    "SettingRows",
    "StatsRows",
]


class MemoryRows(Protocol):
    """Stored memories: insert, read, filter, update, delete.

    SQLite: ``memlode.storage.memories``.
    """

    def insert(self, conn: Connection, new: NewMemory) -> tuple[str, bool]:
        """Insert unless the same content exists in the namespace and source
        (``memlode.storage.capture.insert_memory``, the one insert every writer
        uses)."""
        ...

    def fetch(self, conn: Connection, memory_id: str) -> Memory | None: ...

    def fetch_many(self, conn: Connection, ids: Iterable[str]) -> dict[str, Memory]: ...

    def touch(self, conn: Connection, memory_ids: Sequence[str]) -> None:
        """Record an access: bump access_count and last_accessed_at."""
        ...

    def update(self, conn: Connection, memory_id: str, changes: dict[str, Any]) -> bool:
        """Apply ``changes`` (already validated); returns False if the id does not exist."""
        ...

    def delete(self, conn: Connection, memory_ids: Sequence[str]) -> int:
        """Delete memories; embeddings, memory nodes and their edges go with them (cascades)."""
        ...

    def select(
        self,
        conn: Connection,
        flt: MemoryFilter,
        *,
        limit: int | None = None,
        offset: int = 0,
        newest_first: bool = True,
    ) -> list[Memory]: ...

    def count(self, conn: Connection, flt: MemoryFilter) -> int: ...

    def set_metadata(self, conn: Connection, memory_id: str, metadata: dict[str, Any]) -> bool:
        """Replace a memory's metadata and nothing else (``updated_at`` stays)."""
        ...

    def insert_exact(self, conn: Connection, memory: Memory) -> bool:
        """Insert a memory with every other field as given (import); its text is redacted like
        any other write. False if the id or content exists."""
        ...

    def find_duplicate(
        self,
        conn: Connection,
        namespace: str,
        source: str,
        content: str,
    ) -> str | None: ...


class CaptureRows(Protocol):
    """The import-light capture path of the hooks: one memory insert, its graph rows.

    SQLite: ``memlode.storage.capture``.
    """

    def find_by_hash(
        self,
        conn: Connection,
        namespace: str,
        source: str,
        digest: str,
    ) -> str | None:
        """The id of the memory of ``namespace`` and ``source`` whose content hashes to
        ``digest``."""
        ...

    def insert_memory(
        self,
        conn: Connection,
        *,
        content: str,
        memory_type: str,
        importance: float,
        tags: Sequence[str],
        metadata: Mapping[str, Any] | None,
        namespace: str,
        source: str,
        session_id: str | None,
        confidence: float = 1.0,
        memory_id: str | None = None,
        created_at: str | None = None,
    ) -> tuple[str, bool]:
        """Insert unless the same content exists in (namespace, source); returns (id, created)."""
        ...

    def update_memory_content(
        self,
        conn: Connection,
        memory_id: str,
        content: str,
        metadata: Mapping[str, Any],
    ) -> bool:
        """Replace a memory's text and metadata (a refreshed session summary); drop its vector."""
        ...

    def stored_hash(self, conn: Connection, memory_id: str) -> str | None:
        """The content hash of a stored memory; None when it does not exist."""
        ...

    def touch(self, conn: Connection, memory_ids: Sequence[str]) -> None:
        """Record an access: bump access_count and last_accessed_at."""
        ...

    def node_exists(self, conn: Connection, node_id: str) -> bool: ...

    def ensure_memory_node(
        self,
        conn: Connection,
        memory_id: str,
        name: str,
        namespace: str,
    ) -> None:
        """The memory's graph node (kind ``memory``, named by its first 80 characters)."""
        ...

    def upsert_file_node(self, conn: Connection, path: str, namespace: str, name: str) -> str:
        """The file's node (kind ``file``, id ``file:<abs path>``); existing properties are
        kept."""
        ...

    def add_edge(
        self,
        conn: Connection,
        source_id: str,
        target_id: str,
        relationship: str,
        properties: Mapping[str, Any] | None = None,
        weight: float = 1.0,
    ) -> bool:
        """Add the edge unless it exists (the stored one is kept); True when added."""
        ...


class EmbeddingRows(Protocol):
    """Stored vectors and token states, by model.

    SQLite: ``memlode.storage.embeddings``.
    """

    def memory_count(self, conn: Connection) -> int: ...

    def change_marks(self, conn: Connection, model: str) -> tuple[Any, Any]:
        """What moves when a memory's text changes (the FTS change log's last sequence) or the
        model's vectors do (``vector_state``): both one indexed lookup."""
        ...

    def rows_by_model(self, conn: Connection, table: str, model: str) -> int:
        """Rows of ``memory_embeddings`` or ``memory_tokens`` made by ``model`` (an index
        count)."""
        ...

    def relationships_of(self, conn: Connection, ids: Sequence[str]) -> list[tuple[Any, ...]]:
        """(memory id, edge id, relationship, name of the other end, whether the other end is
        a memory consolidation derived) of every edge touching one of ``ids``."""
        ...

    def rows_to_embed(
        self,
        conn: Connection,
        model: str,
        below: int,
        take: int,
        *,
        states_only: bool,
    ) -> list[Row]: ...

    def write_vectors(self, conn: Connection, rows: Sequence[tuple[Any, ...]]) -> None:
        """Store (memory id, model, dim, vector bytes, text hash, created at) rows, each only if
        its memory still exists, replacing a memory's older vector."""
        ...

    def write_states(self, conn: Connection, rows: Sequence[tuple[str, str, bytes]]) -> None:
        """Store (memory id, model, packed states) rows, each only beside a vector of that
        model: a row whose content changed meanwhile lost its vector, and its states
        wait for the new one."""
        ...

    def delete_vectors(self, conn: Connection, *, keep_model: str | None) -> int:
        """Delete the vectors of every model but ``keep_model`` (None: all vectors and token
        states); the number of vectors deleted."""
        ...

    def models(self, conn: Connection) -> dict[str, int]:
        """Vectors stored per model."""
        ...


class SettingRows(Protocol):
    """The store's own key/value settings.

    SQLite: ``memlode.storage.store_settings``.
    """

    def get_setting(self, conn: Connection, key: str) -> str | None:
        """The value stored under ``key``, or None."""
        ...

    def put_setting(self, conn: Connection, key: str, value: str) -> None:
        """Store ``value`` under ``key``, replacing what was there (inside the caller's write)."""
        ...

    def delete_setting(self, conn: Connection, key: str) -> None:
        """Forget ``key`` (inside the caller's write)."""
        ...


class NamespaceRows(Protocol):
    """Namespaces: list, count, delete, move.

    SQLite: ``memlode.storage.namespaces``.
    """

    def exists(self, conn: Connection, namespace: str) -> bool:
        """Whether any row of the store is in ``namespace``."""
        ...

    def keys_named(self, conn: Connection, name: str) -> list[str]:
        """The project keys in the store whose readable name is ``name`` (``app`` -> ``app-…``)."""
        ...

    def listing(self, conn: Connection) -> list[dict[str, object]]:
        """Every namespace that holds memories, sessions or a code index, with counts and times."""
        ...

    def delete(self, conn: Connection, namespace: str) -> int: ...

    def forget_legacy(self, conn: Connection, namespace: str, *, keep: bool = False) -> bool:
        """Drop the note on a folder-name namespace once nothing is left in it (or, ``keep``,
        when the user keeps the name on purpose); True if there was one."""
        ...

    def legacy_left(self, conn: Connection) -> list[LegacyNamespace]:
        """Folder-name namespaces that migration 0010 could not (wholly) re-key and that still
        hold rows."""
        ...

    def move(
        self,
        conn: Connection,
        old: str,
        new: str,
        selection: Selection | None = None,
    ) -> MoveReport: ...


class StatsRows(Protocol):
    """Counts and sizes for stats and doctor.

    SQLite: ``memlode.storage.store_stats``.
    """

    def namespace_counts(self, conn: Connection, ns: str | None) -> dict[str, Any]:
        """Memories (all, by type, by source, with a vector), graph nodes and edges, sessions
        and the newest memory's time, for namespace ``ns`` (None: every namespace)."""
        ...

    def database_state(self, conn: Connection) -> dict[str, Any]:
        """Journal mode, schema version, FTS rows, quick-check result, graph nodes and edges."""
        ...

    def has_indexed_code(self, conn: Connection, namespace: str) -> bool:
        """Whether ``memlode index`` stored any file of the namespace."""
        ...

    def prompt_recall_paths(self, conn: Connection, session_ids: list[str]) -> dict[str, int]:
        """How the stored prompts of these sessions were ranked for injection (their metadata's
        ``recall``: "resident", "lean", or "none" when nothing was recalled),
        counted."""
        ...
