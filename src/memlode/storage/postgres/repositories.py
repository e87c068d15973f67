"""The repositories of a PostgreSQL store, each bound to its Protocol.

Every repository is the one module of ``memlode.storage`` that SQLite uses too: its SQL runs on
both (``memlode.storage.sql``; ``adapter.PgConnection`` takes its ``?`` placeholders), and what
only PostgreSQL has (HNSW vectors, the text snapshot) is reached through the dialect
(``vectors``, ``text_reads``). mypy checks each binding below against its Protocol, and the
contract suite (``tests/storage/contract``) runs the same tests on both backends. The code
index, backup and repair repositories are not here: the code index stays in each
machine's SQLite store, and the others are SQLite's own file operations.

Adding a repository: write it once in ``memlode/storage/<name>.py`` in SQL both databases run
(ask ``dialect_of(conn)`` where they differ); add its tables as the next numbered SQL file in
``migrations`` (never edit an applied one); bind it below under its ``Backend`` name; test it in
``tests/storage/contract/test_<area>.py`` as ``store.rows.<name>``.
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
    dashboard,
    doc_files,
    doc_folders,
    embeddings,
    fts_log,
    fts_texts,
    graph,
    graph_state,
    graph_walk,
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
from memlode.storage.protocols.dashboard import DashboardRows
from memlode.storage.protocols.docs import DocFileRows, DocFolderRows
from memlode.storage.protocols.graph import GraphRows, GraphStateRows, GraphWalkRows
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
    graph_walk: GraphWalkRows = graph_walk
    recall_rows: RecallRows = recall_rows
    recall_graph: RecallGraphRows = recall_graph
    turn_context: TurnContextRows = turn_context
    similarity_links: SimilarityLinkRows = similarity_links
    doc_files: DocFileRows = doc_files
    doc_folders: DocFolderRows = doc_folders
    transcript_store: TranscriptRows = transcript_store
    consolidation: ConsolidationRows = consolidation
    dashboard: DashboardRows = dashboard
    patterns: PatternRows = patterns
    reflection: ReflectionRows = reflection
    compression: CompressionRows = compression
    briefing: BriefingRows = briefing
    store_stats: StatsRows = store_stats
    archive: ArchiveRows = archive
    namespaces: NamespaceRows = namespaces
    row_checks: RowCheckRows = row_checks


POSTGRES = PostgresRepositories()
