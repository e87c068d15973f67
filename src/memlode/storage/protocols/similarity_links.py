"""Repository contract: the creative consolidation cycle's vectors and links."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from memlode.storage.protocols import Connection, Row

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["SimilarityLinkRows"]


class SimilarityLinkRows(Protocol):
    """Stored vectors by namespace, and the ``SIMILAR_TO``/``SHARES_THEME`` links the creative
    cycle drew. SQLite: ``memlode.storage.similarity_links``."""

    def vector_models(self, conn: Connection, namespace: str) -> list[tuple[str, int, int]]:
        """(model, dim, rows) of the namespace's vectors, most rows first."""
        ...

    def max_vector_rowid(self, conn: Connection, namespace: str, model: str, dim: int) -> int:
        """The newest embedding rowid of the namespace's vectors from ``model`` (0: none)."""
        ...

    def namespace_vectors(
        self, conn: Connection, namespace: str, model: str, dim: int, skip_source: str
    ) -> list[Row]:
        """(embedding rowid, memory id, vector, memory type, source, session id), by rowid."""
        ...

    def memory_texts(self, conn: Connection, ids: Sequence[str]) -> dict[str, str]: ...

    def linked_by_creative(
        self, conn: Connection, namespace: str, relationship: str
    ) -> list[tuple[str, str, float]]:
        """(source id, target id, weight) of the creative cycle's edges in ``namespace``."""
        ...

    def delete_edges(
        self, conn: Connection, relationship: str, pairs: Sequence[tuple[str, str]]
    ) -> int: ...
