"""The PostgreSQL repositories ported so far, each bound to its Protocol.

The counterpart of ``memlode.storage.backend.SqliteBackend`` for the part of it that PostgreSQL
implements: mypy checks each module assigned below against its Protocol, and the contract suite
(``tests/storage/contract``) runs the same tests on these and on the SQLite modules. It becomes a
full ``Backend`` when every repository is ported; until then nothing selects it.
"""

from __future__ import annotations

from dataclasses import dataclass

from memlode.storage.postgres import (
    capture,
    capture_session,
    embeddings,
    fts_log,
    graph,
    memories,
    sessions,
    store_settings,
    vector_rows,
)
from memlode.storage.protocols.graph import GraphRows
from memlode.storage.protocols.memory import CaptureRows, EmbeddingRows, MemoryRows, SettingRows
from memlode.storage.protocols.search import TextLogRows, VectorRows
from memlode.storage.protocols.sessions import SessionCaptureRows, SessionRows

__all__ = ["POSTGRES", "PostgresRepositories"]


@dataclass(frozen=True)
class PostgresRepositories:
    """The repositories the PostgreSQL backend has so far (names as on ``Backend``)."""

    name: str = "postgresql"
    memories: MemoryRows = memories
    capture: CaptureRows = capture
    embeddings: EmbeddingRows = embeddings
    vector_rows: VectorRows = vector_rows
    store_settings: SettingRows = store_settings
    sessions: SessionRows = sessions
    capture_session: SessionCaptureRows = capture_session
    graph: GraphRows = graph
    fts_log: TextLogRows = fts_log


POSTGRES = PostgresRepositories()
