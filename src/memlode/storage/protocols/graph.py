"""Repository contracts: the memory and code graph, its walks and its cached centrality."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from memlode.storage.protocols import Connection

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Sequence

    from memlode.storage.derived import CopyMarks, FtsProbe, GraphProbe, Record
    from memlode.storage.values import MemoryFilter, Neighbor, Node
    from memlode.types import Edge, Relationship

__all__ = [
    "DerivedRows",
    "GraphRows",
    "GraphStateRows",
    "GraphWalkRows",
]


class GraphRows(Protocol):
    """Graph nodes and typed edges.

    SQLite: ``memlode.storage.graph``.
    """

    def upsert_node(self, conn: Connection, node: Node) -> None: ...

    def ensure_memory_node(
        self,
        conn: Connection,
        memory_id: str,
        name: str,
        namespace: str,
    ) -> None: ...

    def add_edge(self, conn: Connection, edge: Edge, *, keep_existing: bool = False) -> bool:
        """Insert or update (weight, properties) an edge; True when it is new. With
        ``keep_existing`` an edge that is already there stays as it is."""
        ...

    def edges_of(self, conn: Connection, node_ids: Sequence[str]) -> list[Edge]:
        """Every edge touching any of ``node_ids``."""
        ...

    def iter_edges(self, conn: Connection, namespace: str | None = None) -> Iterable[Edge]:
        """Edges between memory nodes (optionally of one namespace), for export."""
        ...

    def neighbors(
        self,
        conn: Connection,
        node_id: str,
        relationships: Sequence[Relationship] = (),
        direction: str = "both",
    ) -> list[Neighbor]: ...


class GraphWalkRows(Protocol):
    """Walks over the memory graph.

    SQLite: ``memlode.storage.graph_walk``.
    """

    def adjacent(
        self,
        conn: Connection,
        node_id: str,
        relationships: Sequence[str],
        direction: str,
        memories_only: bool,
    ) -> list[tuple[str, str, str, str | None, str, str, float]]:
        """(node id, kind, name, memory id, relationship, direction, weight) of each neighbour
        of ``node_id`` ("out", "in" or "both"), along ``relationships`` (any when
        empty)."""
        ...

    def node(self, conn: Connection, node_id: str) -> tuple[str, str, str] | None:
        """(id, kind, name) of a graph node, or None."""
        ...

    def topic_nodes(self, conn: Connection, topic: str) -> list[str]:
        """Ids of the non-memory nodes for ``topic``: named so, or the file node of that path."""
        ...

    def mentioning_memories(self, conn: Connection, flt: MemoryFilter, needle: str) -> list[str]:
        """Ids of the memories passing ``flt`` whose text, tags or metadata hold ``needle``
        (lower-case), literally."""
        ...

    def matching_memories(
        self, conn: Connection, flt: MemoryFilter, terms: Sequence[str]
    ) -> list[str]:
        """Ids of the memories passing ``flt`` whose indexed text holds every one of ``terms``
        (stemmed, as the text index matches them)."""
        ...


class GraphStateRows(Protocol):
    """The cached centrality of a namespace's graph.

    SQLite: ``memlode.storage.graph_state``.
    """

    def node_ids(
        self,
        conn: Connection,
        namespace: str | None,
        kinds: Sequence[str] | None,
    ) -> list[str]:
        """Ids of the namespace's nodes (every namespace: None), of ``kinds`` when given."""
        ...

    def edge_rows(
        self,
        conn: Connection,
        namespace: str | None,
        relationships: Sequence[str] | None,
    ) -> Iterator[tuple[Any, ...]]:
        """(source, target, relationship, weight) of the edges leaving the namespace's nodes."""
        ...

    def fingerprint_rows(self, conn: Connection, namespace: str | None) -> list[list[Any]]:
        """[[nodes, latest node change], [edges, latest edge id, weight sum]] of the namespace."""
        ...

    def write_centrality(
        self,
        conn: Connection,
        rows: Sequence[tuple[Any, ...]],
        settings_key: str,
        fingerprint: str,
    ) -> None:
        """Upsert (node_id, pagerank, betweenness, degree, cluster, computed_at) rows and record
        the fingerprint of the graph they came from under ``settings_key``."""
        ...

    def centrality_rows(self, conn: Connection, ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        """(node_id, pagerank, betweenness, degree, cluster) of those of ``ids`` computed, 500
        ids a query."""
        ...


class DerivedRows(Protocol):
    """Derived state (FTS indexes, graph caches): probes, rebuild marks.

    SQLite: ``memlode.storage.derived``.
    """

    def record(self, conn: Connection, name: str) -> Record:
        """The record of ``name`` (generation 0 and never built when there is none)."""
        ...

    def mark_built(
        self,
        conn: Connection,
        name: str,
        generation: int,
        built_from: dict[str, Any],
    ) -> None:
        """Record that ``name`` was built from inputs at ``generation`` (the generation itself
        is the triggers' to move: a change committed meanwhile leaves the record
        stale)."""
        ...

    def graph_probe(self, conn: Connection, namespace: str, *, full: bool) -> GraphProbe: ...

    def graph_namespaces(self, conn: Connection) -> list[str]:
        """Namespaces that have graph nodes or indexed code (their graph state can be built)."""
        ...

    def fts_probe(self, conn: Connection, table: str) -> FtsProbe:
        """Rows of the content table against documents of the index (its ``_docsize`` shadow
        table has one row per indexed document). Two counts: milliseconds at 100k
        rows."""
        ...

    def fts_rebuild(self, conn: Connection, table: str) -> None:
        """Rebuild an FTS5 index from its content table (FTS5's own 'rebuild' command)."""
        ...

    def fts_integrity(self, conn: Connection, table: str) -> str | None:
        """FTS5's 'integrity-check' against the content table: None when it passes, else why
        not. It reads every row: for repair and doctor, not for a search."""
        ...

    def copy_marks(self, conn: Connection) -> CopyMarks: ...

    def invalidate_copies(self, conn: Connection, seen: CopyMarks) -> CopyMarks: ...

    def code_namespaces(self, conn: Connection) -> list[str]: ...
