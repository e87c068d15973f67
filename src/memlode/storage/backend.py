"""A storage backend: the repositories of one kind of database, behind their Protocols.

The engine's operations need a set of repositories (``memlode.storage.protocols``): rows of
memories, sessions, the graph, vectors, the text index, the code index, docs. :class:`Backend`
names them; :data:`SQLITE` is the embedded default, whose repositories are the modules of this
package (mypy checks each module against its Protocol where it is assigned below). A second
backend (PostgreSQL) is a second object of this shape, chosen from the database URL; what is
backend-specific beyond the rows (connections, migrations, backups) stays in its own modules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from memlode.storage import (
    archive,
    backup,
    briefing,
    capture,
    capture_session,
    code_dirty,
    code_graph_rows,
    code_navigation,
    code_symbol_search,
    code_symbol_vectors,
    compression,
    consolidation,
    dashboard,
    derived,
    doc_files,
    doc_folders,
    embeddings,
    fts_log,
    fts_match,
    fts_texts,
    graph,
    graph_state,
    graph_walk,
    memories,
    namespace_rekey,
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
from memlode.storage.code_repo import CodeRepo
from memlode.storage.protocols.archive import ArchiveRows
from memlode.storage.protocols.code import (
    CodeDirtyRows,
    CodeGraphRows,
    CodeNavigationRows,
    CodeRepository,
    CodeSymbolSearchRows,
    CodeSymbolVectorRows,
)
from memlode.storage.protocols.compression import CompressionRows
from memlode.storage.protocols.consolidation import (
    ConsolidationRows,
    PatternRows,
    ReflectionRows,
)
from memlode.storage.protocols.dashboard import DashboardRows
from memlode.storage.protocols.docs import DocFileRows, DocFolderRows
from memlode.storage.protocols.graph import DerivedRows, GraphRows, GraphStateRows, GraphWalkRows
from memlode.storage.protocols.maintenance import BackupRows, NamespaceRekeyRows, RowCheckRows
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
    TextSearchRows,
    TurnContextRows,
    VectorRows,
)
from memlode.storage.protocols.sessions import SessionCaptureRows, SessionRows, TranscriptRows
from memlode.storage.protocols.similarity_links import SimilarityLinkRows

if TYPE_CHECKING:
    from memlode.storage.db import Database

__all__ = ["SQLITE", "Backend", "SqliteBackend"]


class Backend(Protocol):
    """The repositories of one storage backend."""

    name: str
    code_dirty: CodeDirtyRows
    code_graph_rows: CodeGraphRows
    code_navigation: CodeNavigationRows
    code_symbol_search: CodeSymbolSearchRows
    code_symbol_vectors: CodeSymbolVectorRows
    compression: CompressionRows
    consolidation: ConsolidationRows
    dashboard: DashboardRows
    archive: ArchiveRows
    similarity_links: SimilarityLinkRows
    patterns: PatternRows
    reflection: ReflectionRows
    doc_files: DocFileRows
    doc_folders: DocFolderRows
    graph: GraphRows
    graph_walk: GraphWalkRows
    graph_state: GraphStateRows
    derived: DerivedRows
    backup: BackupRows
    row_checks: RowCheckRows
    namespace_rekey: NamespaceRekeyRows
    memories: MemoryRows
    capture: CaptureRows
    embeddings: EmbeddingRows
    store_settings: SettingRows
    namespaces: NamespaceRows
    store_stats: StatsRows
    fts_match: TextSearchRows
    fts_texts: TextIndexRows
    fts_log: TextLogRows
    recall_rows: RecallRows
    recall_graph: RecallGraphRows
    turn_context: TurnContextRows
    briefing: BriefingRows
    vector_rows: VectorRows
    sessions: SessionRows
    capture_session: SessionCaptureRows
    transcript_store: TranscriptRows

    def code_repo(self, db: Database) -> CodeRepository:
        """The code index of ``db``."""
        ...


@dataclass
class SqliteBackend:
    """The embedded SQLite backend: each repository is a module of ``memlode.storage``."""

    name: str = "sqlite"
    code_dirty: CodeDirtyRows = code_dirty
    code_graph_rows: CodeGraphRows = code_graph_rows
    code_navigation: CodeNavigationRows = code_navigation
    code_symbol_search: CodeSymbolSearchRows = code_symbol_search
    code_symbol_vectors: CodeSymbolVectorRows = code_symbol_vectors
    compression: CompressionRows = compression
    consolidation: ConsolidationRows = consolidation
    dashboard: DashboardRows = dashboard
    archive: ArchiveRows = archive
    similarity_links: SimilarityLinkRows = similarity_links
    patterns: PatternRows = patterns
    reflection: ReflectionRows = reflection
    doc_files: DocFileRows = doc_files
    doc_folders: DocFolderRows = doc_folders
    graph: GraphRows = graph
    graph_walk: GraphWalkRows = graph_walk
    graph_state: GraphStateRows = graph_state
    derived: DerivedRows = derived
    backup: BackupRows = backup
    row_checks: RowCheckRows = row_checks
    namespace_rekey: NamespaceRekeyRows = namespace_rekey
    memories: MemoryRows = memories
    capture: CaptureRows = capture
    embeddings: EmbeddingRows = embeddings
    store_settings: SettingRows = store_settings
    namespaces: NamespaceRows = namespaces
    store_stats: StatsRows = store_stats
    fts_match: TextSearchRows = fts_match
    fts_texts: TextIndexRows = fts_texts
    fts_log: TextLogRows = fts_log
    recall_rows: RecallRows = recall_rows
    recall_graph: RecallGraphRows = recall_graph
    turn_context: TurnContextRows = turn_context
    briefing: BriefingRows = briefing
    vector_rows: VectorRows = vector_rows
    sessions: SessionRows = sessions
    capture_session: SessionCaptureRows = capture_session
    transcript_store: TranscriptRows = transcript_store

    def code_repo(self, db: Database) -> CodeRepository:
        return CodeRepo(db)


SQLITE: Backend = SqliteBackend()
