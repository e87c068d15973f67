"""Repository contracts: the code index."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from memlode.storage.protocols import Connection

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence

    from memlode.storage.code_rows import FileRow, NodeRow, PackageRow, RefRow, SymbolRow
    from memlode.storage.code_symbol_vectors import StoredVector, SymbolSource, VectorRow

__all__ = [
    "CodeDirtyRows",
    "CodeGraphRows",
    "CodeNavigationRows",
    "CodeRepository",
    "CodeSymbolSearchRows",
]


class CodeRepository(Protocol):
    """The code index: files, symbols, references, packages and their graph rows.

    SQLite: ``memlode.storage.code_repo.CodeRepo``.
    """

    def files(self, namespace: str, root: str | None = None) -> list[FileRow]: ...

    def upsert_file(self, conn: Connection, row: FileRow) -> int: ...

    def touch_file(self, conn: Connection, file_id: int, size: int, mtime: int) -> None: ...

    def delete_files(self, conn: Connection, file_ids: Sequence[int]) -> None: ...

    def symbols(self, namespace: str, file_ids: Sequence[int] | None = None) -> list[SymbolRow]: ...

    def symbols_by_node(self, node_ids: Sequence[str]) -> dict[str, SymbolRow]: ...

    def insert_symbols(self, conn: Connection, namespace: str, rows: Sequence[SymbolRow]) -> int:
        """Insert symbols, then their full-text rows in one statement (see 0004_code.sql)."""
        ...

    def upsert_symbol_nodes(self, conn: Connection, after: int) -> None: ...

    def delete_symbols_of(self, conn: Connection, file_ids: Sequence[int]) -> None: ...

    def refs_of_files(self, namespace: str, file_ids: Sequence[int]) -> list[RefRow]:
        """The references written in the files ``file_ids``."""
        ...

    def refs_of_kinds(self, namespace: str, kinds: Sequence[str]) -> list[RefRow]: ...

    def unresolved_imports(self, namespace: str) -> list[RefRow]:
        """Imports that named no project symbol when they were last resolved."""
        ...

    def refs_matching(
        self,
        namespace: str,
        *,
        names: Sequence[str] = (),
        targets: Sequence[str] = (),
    ) -> list[RefRow]:
        """References that name one of ``names`` or point at one of ``targets``."""
        ...

    def insert_refs(self, conn: Connection, namespace: str, rows: Sequence[RefRow]) -> None: ...

    def update_refs(self, conn: Connection, rows: Sequence[RefRow]) -> None:
        """Store new resolutions (source, target, target file, relationship) by id."""
        ...

    def delete_refs_of(self, conn: Connection, file_ids: Sequence[int]) -> None: ...

    def upsert_nodes(self, conn: Connection, namespace: str, rows: Sequence[NodeRow]) -> None: ...

    def ensure_nodes(self, conn: Connection, namespace: str, rows: Sequence[NodeRow]) -> None:
        """Create nodes that do not exist yet; existing ones (maybe another project's) stay."""
        ...

    def delete_nodes(self, conn: Connection, node_ids: Sequence[str]) -> None: ...

    def insert_edges(self, conn: Connection, weights: Mapping[tuple[str, str, str], float]) -> None:
        """Insert aggregated code edges, (source, target, relationship) -> weight, of a first
        index (no old edge to replace), in key order: what the unique index likes
        best."""
        ...

    def rebuild_edges(self, conn: Connection, namespace: str, sources: Sequence[str]) -> None:
        """Recompute the reference-made code edges leaving ``sources``."""
        ...

    def rebuild_contains(
        self, conn: Connection, namespace: str, children: Sequence[str]
    ) -> None: ...

    def children_of(self, namespace: str, parents: Sequence[str]) -> list[str]:
        """Node ids of symbols whose parent is one of the given qualified names."""
        ...

    def packages(self, namespace: str | None = None) -> list[PackageRow]: ...

    def replace_packages(
        self,
        conn: Connection,
        namespace: str,
        file_id: int,
        rows: Sequence[PackageRow],
    ) -> None: ...

    def counts(self, namespace: str, root: str | None = None) -> dict[str, int]:
        """How many files, symbols, references (resolved) and packages are indexed."""
        ...

    def drop_orphan_packages(self, conn: Connection, namespace: str) -> None:
        """Remove package nodes of the namespace that nothing declares or depends on."""
        ...


class CodeDirtyRows(Protocol):
    """Files edited through the assistant and not yet re-indexed (the hooks mark, the resident
    clears).

    SQLite: ``memlode.storage.code_dirty``.
    """

    def mark(self, conn: Connection, path: str) -> None: ...

    def pending(self, conn: Connection) -> list[tuple[str, str, int]]: ...

    def clear(self, conn: Connection, marks: Sequence[tuple[str, str, int]]) -> None: ...


class CodeGraphRows(Protocol):
    """Code rows read and written around the code graph.

    SQLite: ``memlode.storage.code_graph_rows``.
    """

    def map_files(self, conn: Connection, namespace: str) -> list[Any]:
        """(id, root, path, language) of the namespace's indexed source files (no manifests)."""
        ...

    def map_references(
        self,
        conn: Connection,
        namespace: str,
        kinds: Sequence[str],
        use_weight: float,
    ) -> list[Any]:
        """(file, target file, target symbol, weighted count) of resolved references of
        ``kinds``; a plain use counts ``use_weight``."""
        ...

    def map_symbols(self, conn: Connection, namespace: str, kinds: Sequence[str]) -> Any:
        """(node_id, name, qualified_name, kind, signature length, line_start, parent,
        visibility, file_id) of the namespace's symbols of ``kinds``."""
        ...

    def signatures(self, conn: Connection, nodes: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        """(node_id, signature) of those symbols, 500 a query."""
        ...

    def indexed_namespaces(self, conn: Connection) -> list[str]: ...

    def indexed_roots(self, conn: Connection) -> list[tuple[str, str]]:
        """(namespace, root) of every indexed project folder of the store."""
        ...

    def unresolved_imports(self, conn: Connection, namespace: str) -> Any:
        """(language, qualifier) of the namespace's imports that no indexed symbol resolves."""
        ...

    def delete_tagged_depends_on(self, conn: Connection, mark: str) -> None:
        """Drop the DEPENDS_ON edges whose properties carry ``mark`` (to be drawn anew)."""
        ...

    def cross_repo_edges(self, conn: Connection) -> list[Any]:
        """(source namespace, source, target namespace, target package, properties) of
        DEPENDS_ON edges between namespaces."""
        ...

    def delete_project_package(self, conn: Connection, namespace: str) -> None:
        """Drop the namespace's stand-in package node (``pkg:project:<namespace>``)."""
        ...

    def delete_package_rows_of_files(self, conn: Connection, file_ids: Sequence[int]) -> None: ...

    def other_root_exists(self, conn: Connection, namespace: str, root: str) -> bool:
        """Whether the namespace has files indexed under another root."""
        ...

    def holds_no_code(self, conn: Connection, namespace: str) -> bool:
        """Whether the namespace has no indexed file and no package node."""
        ...

    def code_roots(self, conn: Connection, namespace: str) -> list[str]:
        """The folders the namespace's code was indexed from."""
        ...

    def indexed_file_paths(self, conn: Connection, namespace: str) -> list[Any]:
        """(root, path) of every indexed code file of the namespace."""
        ...

    def roots_of_symbols(self, conn: Connection, node_ids: Sequence[str]) -> dict[str, str]:
        """Symbol node id -> the root its file was indexed from."""
        ...

    def edited_files_since(
        self,
        conn: Connection,
        namespace: str,
        capture_source: str,
        since: str,
    ) -> list[Any]:
        """(file, created_at) of the captured edits (decisions naming a ``file``) since
        ``since``."""
        ...

    def has_graph(self, conn: Connection, namespace: str) -> bool: ...

    def centrality_by_kind(self, conn: Connection, namespace: str) -> dict[str, int]:
        """Nodes with computed centrality per node kind."""
        ...

    def centrality_by_cluster(self, conn: Connection, namespace: str) -> dict[Any, int]:
        """Cluster -> its number of nodes."""
        ...


class CodeNavigationRows(Protocol):
    """Symbol lookups by name, tail and node.

    SQLite: ``memlode.storage.code_navigation``.
    """

    def symbols_ending(self, conn: Connection, namespace: str, tail: str, limit: int) -> list[str]:
        """Node ids of the namespace's symbols whose qualified name ends with ``tail`` (taken
        literally), shortest qualified name first."""
        ...

    def symbols_named(self, conn: Connection, namespace: str, name: str, limit: int) -> list[str]:
        """Node ids of the namespace's symbols called ``name``, shortest qualified name first."""
        ...

    def contained(self, conn: Connection, sources: Sequence[str]) -> list[str]:
        """Targets of CONTAINS edges from ``sources`` (a class's members)."""
        ...

    def edges_into(
        self,
        conn: Connection,
        targets: Sequence[str],
        relationships: Sequence[str],
    ) -> Iterator[tuple[Any, ...]]:
        """(source, relationship) of edges of ``relationships`` into ``targets``, 500 a query."""
        ...

    def edges_from(
        self,
        conn: Connection,
        sources: Sequence[str],
        relationships: Sequence[str],
    ) -> Any:
        """(target, relationship) of edges of ``relationships`` out of ``sources``."""
        ...

    def edges_around(
        self,
        conn: Connection,
        node_id: str,
        relationships: Sequence[str],
        *,
        incoming: bool,
        by_weight: bool,
        limit: int,
    ) -> list[tuple[str, str, str]]:
        """(other node, its name, relationship) of the node's edges of ``relationships``:
        ``incoming`` (callers) or outgoing (callees, members), heaviest first or by
        id."""
        ...

    def node_details(
        self,
        conn: Connection,
        node_ids: Sequence[str],
    ) -> dict[str, tuple[str, str, str, int]]:
        """(name, kind, path, line) of symbol and file nodes (other nodes: name and kind)."""
        ...

    def top_by_pagerank(
        self,
        conn: Connection,
        namespace: str,
        kinds: Sequence[str],
        limit: int,
    ) -> list[Any]:
        """(id, name, kind, path, pagerank, betweenness, degree, cluster), highest PageRank
        first."""
        ...

    def cluster_sizes(self, conn: Connection, namespace: str, limit: int) -> list[Any]:
        """(cluster, size) of the largest communities."""
        ...

    def cluster_top(self, conn: Connection, namespace: str, cluster: int, limit: int) -> list[Any]:
        """The community's most central nodes, as ``top_by_pagerank`` gives them."""
        ...


class CodeSymbolSearchRows(Protocol):
    """Full-text candidates for symbol search.

    SQLite: ``memlode.storage.code_symbol_search``.
    """

    def symbol_candidates(
        self,
        conn: Connection,
        match: str,
        *,
        namespace: str | None,
        kind: str | None,
        weights: Sequence[float],
        limit: int,
    ) -> list[Any]:
        """(node_id, name, qualified_name, kind, path, line_start, line_end, signature, doc,
        visibility, bm25 rank, pagerank, name_parts) of the best ``limit`` matches,
        best first."""
        ...


class CodeSymbolVectorRows(Protocol):
    """Symbol vectors and texts for semantic code search (migration 0016): what the embedding
    pass reads and writes, and what symbol search reads back.

    SQLite: ``memlode.storage.code_symbol_vectors``.
    """

    def symbol_sources(self, conn: Connection, namespace: str | None) -> list[SymbolSource]: ...

    def call_pairs(self, conn: Connection, namespace: str | None) -> list[tuple[str, str]]: ...

    def stored_vectors(
        self, conn: Connection, model: str, namespace: str | None
    ) -> dict[str, StoredVector]: ...

    def vectors_by_text_hash(
        self, conn: Connection, model: str, hashes: Iterable[str]
    ) -> dict[str, tuple[int, bytes]]: ...

    def vectors_stamp(self, conn: Connection) -> str: ...

    def write_vectors(self, conn: Connection, rows: Sequence[VectorRow]) -> None: ...

    def keep_vectors(self, conn: Connection, rows: Sequence[tuple[str, str, str, str]]) -> None: ...

    def delete_vanished(self, conn: Connection, model: str, namespace: str | None) -> int: ...

    def pending_count(self, conn: Connection, model: str) -> int: ...

    def symbol_count(self, conn: Connection) -> int: ...

    def code_generation(self, conn: Connection) -> int: ...

    def has_vectors(self, conn: Connection, namespace: str | None) -> bool: ...

    def vector_matrix_rows(
        self, conn: Connection, model: str, namespace: str | None
    ) -> list[tuple[str, bytes]]: ...

    def symbol_rows(self, conn: Connection, node_ids: Sequence[str]) -> list[Any]: ...

    def text_matches(
        self, conn: Connection, match: str, model: str | None, namespace: str | None, limit: int
    ) -> list[tuple[str, float]]: ...
