"""Repository contract: the compress cycle's candidates and records, and the language model's
usage ledger."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from memlode.storage.protocols import Connection, Row

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["CompressionRows"]


class CompressionRows(Protocol):
    """SQLite: ``memlode.storage.compression``."""

    def compress_candidates(
        self, conn: Connection, namespace: str, source: str, tags: Sequence[str]
    ) -> list[Row]:
        """(id, content, tags, metadata) of the memories from ``source`` with any of ``tags``."""
        ...

    def compress_records(self, conn: Connection, namespace: str, kind: str) -> dict[str, str]:
        """memory id -> hash of the text the cycle last wrote."""
        ...

    def record_usage(
        self,
        conn: Connection,
        day: str,
        provider: str,
        model: str,
        input_tokens: int,
        output_tokens: int,
        *,
        failed: bool = False,
    ) -> None:
        """Add one request to the day's ledger."""
        ...

    def usage_on(self, conn: Connection, day: str) -> tuple[int, int, int, int]:
        """(requests, failures, input tokens, output tokens) of ``day``."""
        ...
