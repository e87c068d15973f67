"""The PostgreSQL repositories ported so far, each bound to its Protocol.

The counterpart of ``memlode.storage.backend.SqliteBackend`` for the part of it that PostgreSQL
implements: mypy checks each module assigned below against its Protocol, and the contract suite
(``tests/storage/contract``) runs the same tests on these and on the SQLite modules. It becomes a
full ``Backend`` when every repository is ported; until then nothing selects it.

Porting one more: write ``memlode/storage/postgres/<name>.py`` after ``memlode/storage/<name>.py``
(same functions and answers; ``%s`` placeholders and arrays instead of ``?`` lists; JSON handed
out as text where SQLite hands out text); add the tables it needs as the next numbered SQL file
in ``migrations`` (never edit an applied one); bind it below under its ``Backend`` name; write
``tests/storage/contract/test_<area>.py`` calling it as ``store.rows.<name>``
(``tests/storage/postgres/test_pg_repositories.py`` checks all three).
"""

from __future__ import annotations

from dataclasses import dataclass

from memlode.storage import (
    archive,
    briefing,
    capture,
    capture_session,
    compression,
    consolidation,
    doc_files,
    doc_folders,
    embeddings,
    fts_log,
    fts_texts,
    graph,
    graph_state,
    memories,
    namespaces,
    patterns,
    recall_graph,
    recall_rows,
    reflection,
    row_checks,
    sessions,
    similarity_links,
    store_settings,
    store_stats,
    transcript_store,
    turn_context,
    vector_rows,
)
from memlode.storage.protocols.archive import ArchiveRows
from memlode.storage.protocols.compression import CompressionRows
from memlode.storage.protocols.consolidation import ConsolidationRows, PatternRows, ReflectionRows
from memlode.storage.protocols.docs import DocFileRows, DocFolderRows
from memlode.storage.protocols.graph import GraphRows, GraphStateRows
from memlode.storage.protocols.maintenance import RowCheckRows
from memlode.storage.protocols.memory import (
    CaptureRows,
    EmbeddingRows,
    MemoryRows,
    NamespaceRows,
    SettingRows,
    StatsRows,
)
from memlode.storage.protocols.search import (
    BriefingRows,
    RecallGraphRows,
    RecallRows,
    TextIndexRows,
    TextLogRows,
    TurnContextRows,
    VectorRows,
)
from memlode.storage.protocols.sessions import SessionCaptureRows, SessionRows, TranscriptRows
from memlode.storage.protocols.similarity_links import SimilarityLinkRows

__all__ = ["BEYOND_PROTOCOLS", "POSTGRES", "PostgresRepositories"]

# What a PostgreSQL repository offers beyond its Protocol: nothing now. The server's own HNSW
# search, which the engine does not call yet (it loads vectors into its in-process index through
# VectorRows), is ``memlode.storage.postgres.vectors.nearest``, beside the repositories.
BEYOND_PROTOCOLS: dict[str, frozenset[str]] = {}


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
    fts_texts: TextIndexRows = fts_texts
    graph_state: GraphStateRows = graph_state
    recall_rows: RecallRows = recall_rows
    recall_graph: RecallGraphRows = recall_graph
    turn_context: TurnContextRows = turn_context
    similarity_links: SimilarityLinkRows = similarity_links
    doc_files: DocFileRows = doc_files
    doc_folders: DocFolderRows = doc_folders
    transcript_store: TranscriptRows = transcript_store
    consolidation: ConsolidationRows = consolidation
    patterns: PatternRows = patterns
    reflection: ReflectionRows = reflection
    compression: CompressionRows = compression
    briefing: BriefingRows = briefing
    store_stats: StatsRows = store_stats
    archive: ArchiveRows = archive
    namespaces: NamespaceRows = namespaces
    row_checks: RowCheckRows = row_checks


POSTGRES = PostgresRepositories()
