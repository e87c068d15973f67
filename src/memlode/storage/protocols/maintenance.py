"""Repository contracts: backup, row checks, re-keying."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from memlode.storage.protocols import Connection

if TYPE_CHECKING:
    from memlode.storage.namespaces import MoveReport
    from memlode.storage.row_checks import BadRow

__all__ = [
    "BackupRows",
    "NamespaceRekeyRows",
    "RowCheckRows",
]


class BackupRows(Protocol):
    """Backups and restores of the store.

    SQLite: ``memlode.storage.backup``.
    """

    def settle_journal(self, conn: Connection) -> None:
        """Make a copied database self-contained: the copy carries its source's WAL flag, and a
        backup file must be one file."""
        ...

    def check(self, conn: Connection, pragma: str = "integrity_check") -> list[str]:
        """SQLite's own check (``integrity_check`` or ``quick_check``): ["ok"] when sound."""
        ...

    def memory_count(self, conn: Connection) -> int: ...

    def schema_versions(self, conn: Connection) -> list[int]: ...

    def invalidate_copies_of(self, conn: Connection, live: Connection) -> None:
        """In one transaction on ``conn``, mark stale every derived copy ``live`` has seen."""
        ...


class RowCheckRows(Protocol):
    """Checks of stored rows (doctor --repair).

    SQLite: ``memlode.storage.row_checks``.
    """

    def bad_embeddings(self, conn: Connection) -> list[BadRow]:
        """Vectors whose blob is not ``dim`` float32 values, or whose ``dim`` differs from the
        one most of their model's vectors have (the vector index reads one size per
        model)."""
        ...

    def bad_token_states(self, conn: Connection) -> list[BadRow]:
        """Token states that are not a whole number of tokens of their vector's dimension, or
        that belong to no vector of their model."""
        ...

    def delete_embeddings(self, conn: Connection, ids: list[str]) -> int:
        """Delete vectors (and, by trigger, their token states); they are made again by embed."""
        ...

    def delete_token_states(self, conn: Connection, ids: list[str]) -> int: ...

    def unreadable_memories(self, conn: Connection) -> list[BadRow]: ...

    def unreadable_json(self, conn: Connection) -> list[BadRow]:
        """Graph and session rows whose JSON column is not a JSON object."""
        ...


class NamespaceRekeyRows(Protocol):
    """Moving a namespace's rows to a new key.

    SQLite: ``memlode.storage.namespace_rekey``.
    """

    def legacy_namespaces(self, conn: Connection) -> list[str]:
        """Namespaces that are neither reserved nor project keys (folder names, or names a user
        chose with ``-n`` / ``MEMLODE_NAMESPACE``)."""
        ...

    def rekey_legacy(self, conn: Connection, now: str) -> dict[str, MoveReport]:
        """Re-key every folder-name namespace (inside the caller's transaction); record each in
        ``namespace_legacy``. Returns what moved, by old namespace."""
        ...
