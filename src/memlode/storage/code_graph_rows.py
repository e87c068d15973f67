"""What the repo map (``memlode.code.repomap``), cross-repo linking (``memlode.code.crossrepo``)
and the indexer's clean-up read and write of the code index: files, aggregated references,
mappable symbols and their signatures, unresolved imports, and the DEPENDS_ON edges drawn
between projects."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from memlode.storage.sql import dialect_of

__all__ = [
    "centrality_by_cluster",
    "centrality_by_kind",
    "code_roots",
    "cross_repo_edges",
    "delete_package_rows_of_files",
    "delete_project_package",
    "delete_tagged_depends_on",
    "edited_files_since",
    "has_graph",
    "holds_no_code",
    "indexed_file_paths",
    "indexed_namespaces",
    "indexed_roots",
    "map_files",
    "map_references",
    "map_symbols",
    "other_root_exists",
    "roots_of_symbols",
    "signatures",
    "unresolved_imports",
]


def map_files(conn: sqlite3.Connection, namespace: str) -> list[Any]:
    """(id, root, path, language) of the namespace's indexed source files (no manifests)."""
    return conn.execute(
        "SELECT id, root, path, language FROM code_files WHERE namespace = ? AND status = 'ok'"
        " AND language NOT LIKE 'manifest:%'",
        (namespace,),
    ).fetchall()


def map_references(
    conn: sqlite3.Connection, namespace: str, kinds: Sequence[str], use_weight: float
) -> list[Any]:
    """(file, target file, target symbol, weighted count) of resolved references of ``kinds``;
    a plain use counts ``use_weight``."""
    marks = ",".join("?" * len(kinds))
    return conn.execute(
        "SELECT file_id, target_file, target_id,"
        " SUM(CASE kind WHEN 'use' THEN count * ? ELSE count END) FROM code_refs"
        f" WHERE namespace = ? AND target_id IS NOT NULL AND kind IN ({marks})"
        " AND target_file IS NOT NULL GROUP BY file_id, target_file, target_id",
        (use_weight, namespace, *kinds),
    ).fetchall()


def map_symbols(conn: sqlite3.Connection, namespace: str, kinds: Sequence[str]) -> sqlite3.Cursor:
    """(node_id, name, qualified_name, kind, signature length, line_start, parent, visibility,
    file_id) of the namespace's symbols of ``kinds``."""
    marks = ",".join("?" * len(kinds))
    return conn.execute(
        "SELECT node_id, name, qualified_name, kind, length(signature), line_start, parent,"
        f" visibility, file_id FROM code_symbols WHERE namespace = ? AND kind IN ({marks})",
        (namespace, *kinds),
    )


def signatures(conn: sqlite3.Connection, nodes: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """(node_id, signature) of those symbols, 500 a query."""
    for start in range(0, len(nodes), 500):
        chunk = list(nodes[start : start + 500])
        marks = ",".join("?" * len(chunk))
        yield from conn.execute(
            f"SELECT node_id, signature FROM code_symbols WHERE node_id IN ({marks})", chunk
        )


def indexed_namespaces(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT DISTINCT namespace FROM code_files")]


def indexed_roots(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """(namespace, root) of every indexed project folder of the store."""
    rows = conn.execute("SELECT DISTINCT namespace, root FROM code_files ORDER BY 1, 2")
    return [(r[0], r[1]) for r in rows]


def unresolved_imports(conn: sqlite3.Connection, namespace: str) -> sqlite3.Cursor:
    """(language, qualifier) of the namespace's imports that no indexed symbol resolves."""
    return conn.execute(
        "SELECT DISTINCT f.language, r.qualifier FROM code_refs r"
        " JOIN code_files f ON f.id = r.file_id WHERE r.namespace = ? AND r.kind = 'import'"
        " AND r.target_id IS NULL",
        (namespace,),
    )


def delete_tagged_depends_on(conn: sqlite3.Connection, mark: str) -> None:
    """Drop the DEPENDS_ON edges whose properties carry ``mark`` (to be drawn anew)."""
    conn.execute(
        "DELETE FROM graph_edges WHERE relationship = 'DEPENDS_ON' AND properties LIKE ?",
        (f"%{mark}%",),
    )


def cross_repo_edges(conn: sqlite3.Connection) -> list[Any]:
    """(source namespace, source, target namespace, target package, properties) of DEPENDS_ON
    edges between namespaces."""
    return conn.execute(
        "SELECT s.namespace, e.source_id, t.namespace, e.target_id, e.properties"
        " FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id"
        " JOIN graph_nodes t ON t.id = e.target_id"
        " WHERE e.relationship = 'DEPENDS_ON' AND s.namespace != t.namespace"
        " AND e.target_id IN (SELECT node_id FROM code_packages)"
        " ORDER BY s.namespace, e.source_id, e.target_id"
    ).fetchall()


def delete_project_package(conn: sqlite3.Connection, namespace: str) -> None:
    """Drop the namespace's stand-in package node (``pkg:project:<namespace>``)."""
    conn.execute(
        "DELETE FROM graph_nodes WHERE id = ? AND namespace = ?",
        (f"pkg:project:{namespace}", namespace),
    )


def delete_package_rows_of_files(conn: sqlite3.Connection, file_ids: Sequence[int]) -> None:
    conn.execute(
        f"DELETE FROM code_packages WHERE file_id IN ({','.join('?' * len(file_ids))})",
        list(file_ids),
    )


def other_root_exists(conn: sqlite3.Connection, namespace: str, root: str) -> bool:
    """Whether the namespace has files indexed under another root."""
    row = conn.execute(
        "SELECT 1 FROM code_files WHERE namespace = ? AND root != ? LIMIT 1", (namespace, root)
    ).fetchone()
    return row is not None


def holds_no_code(conn: sqlite3.Connection, namespace: str) -> bool:
    """Whether the namespace has no indexed file and no package node (a first index there
    writes rows that name only each other)."""
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM code_files WHERE namespace = ?)"
        " OR EXISTS (SELECT 1 FROM graph_nodes WHERE namespace = ? AND kind = 'package')",
        (namespace, namespace),
    ).fetchone()
    return not row[0]


def code_roots(conn: sqlite3.Connection, namespace: str) -> list[str]:
    """The folders the namespace's code was indexed from."""
    rows = conn.execute(
        "SELECT DISTINCT root FROM code_files WHERE namespace = ? ORDER BY root", (namespace,)
    )
    return [r[0] for r in rows]


def indexed_file_paths(conn: sqlite3.Connection, namespace: str) -> list[Any]:
    """(root, path) of every indexed code file of the namespace."""
    return conn.execute(
        "SELECT root, path FROM code_files WHERE namespace = ? AND status = 'ok'", (namespace,)
    ).fetchall()


def roots_of_symbols(conn: sqlite3.Connection, node_ids: Sequence[str]) -> dict[str, str]:
    """Symbol node id -> the root its file was indexed from."""
    marks = ",".join("?" * len(node_ids))
    rows = conn.execute(
        "SELECT s.node_id, f.root FROM code_symbols s JOIN code_files f ON f.id = s.file_id"
        f" WHERE s.node_id IN ({marks})",
        list(node_ids),
    )
    return dict(rows.fetchall())


def edited_files_since(conn: Any, namespace: str, capture_source: str, since: str) -> list[Any]:
    """(file, created_at) of the captured edits since ``since``: observations of an editing
    tool naming a ``file`` (and, from stores of earlier versions, decisions naming one). A read
    of memories, so it runs on the memory store of either backend (a team's PostgreSQL one too).
    """
    d = dialect_of(conn)
    file, tool = d.json_text("metadata", "file"), d.json_text("metadata", "tool")
    rows: list[Any] = conn.execute(
        f"SELECT {file}, created_at FROM memories"
        " WHERE namespace = ? AND source = ? AND created_at >= ?"
        f" AND ({tool} IN ('Edit', 'MultiEdit', 'Write', 'NotebookEdit')"
        f" OR memory_type = 'decision') AND {file} IS NOT NULL",
        (namespace, capture_source, since),
    ).fetchall()
    return rows


def has_graph(conn: sqlite3.Connection, namespace: str) -> bool:
    row = conn.execute("SELECT 1 FROM graph_nodes WHERE namespace = ? LIMIT 1", (namespace,))
    return row.fetchone() is not None


def centrality_by_kind(conn: sqlite3.Connection, namespace: str) -> dict[str, int]:
    """Nodes with computed centrality per node kind."""
    rows = conn.execute(
        "SELECT n.kind, count(*) FROM graph_centrality c JOIN graph_nodes n"
        " ON n.id = c.node_id WHERE n.namespace = ? GROUP BY n.kind ORDER BY n.kind",
        (namespace,),
    )
    return dict(rows.fetchall())


def centrality_by_cluster(conn: sqlite3.Connection, namespace: str) -> dict[Any, int]:
    """Cluster -> its number of nodes."""
    rows = conn.execute(
        "SELECT c.cluster, count(*) FROM graph_centrality c JOIN graph_nodes n"
        " ON n.id = c.node_id WHERE n.namespace = ? AND c.cluster IS NOT NULL"
        " GROUP BY c.cluster",
        (namespace,),
    )
    return dict(rows.fetchall())
