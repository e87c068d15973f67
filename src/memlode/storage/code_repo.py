"""The code tables: indexed files, symbols (FTS5), references, packages, and the graph rows
they own.

Graph ownership: a file owns its ``file:`` node and its symbols' ``sym:`` nodes; the code
edges (:data:`CODE_RELATIONSHIPS`) leaving a node are aggregates of ``code_refs`` rows with that
source, so :meth:`CodeRepo.rebuild_edges` can always recompute them from the table.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from memlode.storage import scrub
from memlode.storage._code_checks import (
    check_references,
    checked_here,
    chunks,
    foreign_keys_off,
    marks,
)
from memlode.storage.code_rows import FileRow, NodeRow, PackageRow, RefRow, SymbolRow
from memlode.storage.db import Database
from memlode.types import NodeKind, format_ts, utcnow

__all__ = [
    "CODE_RELATIONSHIPS",
    "CodeRepo",
    "FileRow",
    "NodeRow",
    "PackageRow",
    "RefRow",
    "SymbolRow",
]

CODE_RELATIONSHIPS = (
    "CALLS", "IMPORTS", "INHERITS", "EXTENDS", "IMPLEMENTS", "CONTAINS", "DEPENDS_ON"
)  # fmt: skip
# the relationships aggregated from code_refs; CONTAINS comes from code_symbols.parent
_REF_RELS = ",".join(f"'{r}'" for r in CODE_RELATIONSHIPS if r != "CONTAINS")
# One encoder for every properties column: json.dumps(sort_keys=True) builds a new one per call.
_ENCODER = json.JSONEncoder(sort_keys=True)


def _json(value: dict[str, Any]) -> str:
    return _ENCODER.encode(value) if value else "{}"


# Upsert of a graph node: an unchanged node (same kind, name and properties) is left alone,
# so that its updated_at, and the graph's fingerprint, only move when something changed.
_NODE_UPSERT = (
    "ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, name = excluded.name,"
    " namespace = excluded.namespace,"
    " properties = json_patch(graph_nodes.properties, excluded.properties),"
    " updated_at = excluded.updated_at"
    " WHERE graph_nodes.properties IS NOT json_patch(graph_nodes.properties,"
    " excluded.properties) OR graph_nodes.name IS NOT excluded.name"
    " OR graph_nodes.kind IS NOT excluded.kind"
)


_NODE_KINDS = frozenset(k.value for k in NodeKind)


class CodeRepo:
    """Reads and writes of the code tables. Write methods take the open transaction's conn."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # --- files -----------------------------------------------------------------------------
    def files(self, namespace: str, root: str | None = None) -> list[FileRow]:
        sql = (
            "SELECT id, namespace, root, path, node_id, language, hash, size, mtime_ns, module,"
            " prefix, lines, status FROM code_files WHERE namespace = ?"
        )
        params: list[object] = [namespace]
        if root is not None:
            sql += " AND root = ?"
            params.append(root)
        rows = self.db.conn.execute(sql + " ORDER BY root, path", params)
        return [
            FileRow(
                namespace=r[1], root=r[2], path=r[3], node_id=r[4], language=r[5], hash=r[6],
                size=r[7], mtime_ns=r[8], module=r[9], prefix=r[10], lines=r[11], status=r[12],
                id=r[0],
            )
            for r in rows
        ]  # fmt: skip

    def upsert_file(self, conn: sqlite3.Connection, row: FileRow) -> int:
        now = format_ts(utcnow())
        cur = conn.execute(
            "INSERT INTO code_files (namespace, root, path, node_id, language, module, prefix,"
            " hash, size, mtime_ns, lines, status, indexed_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (namespace, root, path) DO UPDATE SET node_id = excluded.node_id,"
            " language = excluded.language, module = excluded.module, prefix = excluded.prefix,"
            " hash = excluded.hash, size = excluded.size, mtime_ns = excluded.mtime_ns,"
            " lines = excluded.lines, status = excluded.status, indexed_at = excluded.indexed_at"
            " RETURNING id",
            (
                row.namespace, row.root, row.path, row.node_id, row.language, row.module,
                row.prefix, row.hash, row.size, row.mtime_ns, row.lines, row.status, now,
            ),
        )  # fmt: skip
        file_id = int(cur.fetchone()[0])
        row.id = file_id
        return file_id

    def touch_file(self, conn: sqlite3.Connection, file_id: int, size: int, mtime: int) -> None:
        conn.execute(
            "UPDATE code_files SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime, file_id)
        )

    def delete_files(self, conn: sqlite3.Connection, file_ids: Sequence[int]) -> None:
        for chunk in chunks(list(file_ids)):
            conn.execute(f"DELETE FROM code_files WHERE id IN ({marks(chunk)})", chunk)

    # --- symbols ---------------------------------------------------------------------------
    _SYMBOL_COLUMNS = (
        "s.node_id, s.name, s.qualified_name, s.kind, s.line_start, s.line_end, s.parent,"
        " s.container, s.signature, s.doc, s.visibility, s.properties, s.name_parts,"
        " s.file_id, f.path"
    )

    @staticmethod
    def _symbol(r: sqlite3.Row | tuple[Any, ...]) -> SymbolRow:
        return SymbolRow(
            node_id=r[0], name=r[1], qualified_name=r[2], kind=r[3], line_start=r[4],
            line_end=r[5], parent=r[6], container=r[7], signature=r[8], doc=r[9],
            visibility=r[10], properties=json.loads(r[11]), name_parts=r[12], file_id=r[13],
            path=r[14],
        )  # fmt: skip

    def symbols(self, namespace: str, file_ids: Sequence[int] | None = None) -> list[SymbolRow]:
        base = (
            f"SELECT {self._SYMBOL_COLUMNS} FROM code_symbols s"
            " JOIN code_files f ON f.id = s.file_id WHERE s.namespace = ?"
        )
        if file_ids is None:
            return [self._symbol(r) for r in self.db.conn.execute(base, (namespace,))]
        out: list[SymbolRow] = []
        for chunk in chunks(list(file_ids)):
            sql = f"{base} AND s.file_id IN ({marks(chunk)})"
            out += [self._symbol(r) for r in self.db.conn.execute(sql, [namespace, *chunk])]
        return out

    def symbols_by_node(self, node_ids: Sequence[str]) -> dict[str, SymbolRow]:
        out: dict[str, SymbolRow] = {}
        for chunk in chunks(list(node_ids)):
            sql = (
                f"SELECT {self._SYMBOL_COLUMNS} FROM code_symbols s"
                f" JOIN code_files f ON f.id = s.file_id WHERE s.node_id IN ({marks(chunk)})"
            )
            for r in self.db.conn.execute(sql, chunk):
                out[r[0]] = self._symbol(r)
        return out

    def insert_symbols(
        self, conn: sqlite3.Connection, namespace: str, rows: Sequence[SymbolRow]
    ) -> int:
        """Insert symbols, then their full-text rows in one statement (see 0004_code.sql).

        Returns the largest symbol id before the insert: the new rows are the ones above it.
        """
        last = int(conn.execute("SELECT coalesce(max(id), 0) FROM code_symbols").fetchone()[0])
        if not rows:
            return last
        check_references(conn, "code_files", (r.file_id for r in rows))
        # signatures and docs redacted as one batch: the same as one by one, in half the time
        texts = scrub.texts([r.signature for r in rows] + [r.doc for r in rows])
        signatures, docs = texts[: len(rows)], texts[len(rows) :]
        conn.executemany(
            "INSERT INTO code_symbols (file_id, namespace, node_id, name, qualified_name, kind,"
            " parent, container, signature, doc, visibility, line_start, line_end, properties,"
            " name_parts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    r.file_id, namespace, r.node_id, r.name, r.qualified_name, r.kind, r.parent,
                    r.container, signature, doc, r.visibility, r.line_start, r.line_end,
                    _json(scrub.mapping(r.properties)) if r.properties else "{}", r.name_parts,
                )
                for r, signature, doc in zip(rows, signatures, docs, strict=True)
            ],
        )  # fmt: skip
        # a store migrated by a pre-release 0004 still has the row trigger: it did the work
        trigger = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND name = 'code_symbols_fts_ai'"
        ).fetchone()
        if trigger is None:
            conn.execute(
                "INSERT INTO code_symbols_fts (rowid, name, name_parts, qualified_name, doc,"
                " signature) SELECT id, name, name_parts, qualified_name, doc, signature"
                " FROM code_symbols WHERE id > ?",
                (last,),
            )
        return last

    def upsert_symbol_nodes(self, conn: sqlite3.Connection, after: int) -> None:
        """The graph nodes of the symbols whose id is above ``after``, in one statement and in
        key order. Their properties stay small (path, line, qualified name): signature, doc
        and the rest are in code_symbols."""
        kinds = {r[0] for r in conn.execute(
            "SELECT DISTINCT kind FROM code_symbols WHERE id > ?", (after,)
        )}  # fmt: skip
        now = format_ts(utcnow())
        with checked_here(conn, kinds, _NODE_KINDS):
            conn.execute(
                "INSERT INTO graph_nodes (id, kind, name, namespace, properties, created_at,"
                " updated_at) SELECT s.node_id, s.kind, s.name, s.namespace, json_object('line',"
                " s.line_start, 'path', f.path, 'qualified', s.qualified_name), ?1, ?1"
                " FROM code_symbols s JOIN code_files f ON f.id = s.file_id WHERE s.id > ?2"
                f" ORDER BY s.node_id {_NODE_UPSERT}",
                (now, after),
            )

    def delete_symbols_of(self, conn: sqlite3.Connection, file_ids: Sequence[int]) -> None:
        for chunk in chunks(list(file_ids)):
            conn.execute(f"DELETE FROM code_symbols WHERE file_id IN ({marks(chunk)})", chunk)

    # --- references ------------------------------------------------------------------------
    _REF_COLUMNS = (
        "source_id, kind, name, qualifier, alias, line, count, target_id, target_file,"
        " relationship, file_id, id"
    )

    @staticmethod
    def _ref(r: sqlite3.Row | tuple[Any, ...]) -> RefRow:
        return RefRow(*r)

    def _refs_where(self, namespace: str, where: str, params: Sequence[object]) -> list[RefRow]:
        sql = (
            f"SELECT {self._REF_COLUMNS} FROM code_refs WHERE namespace = ? AND ({where})"
            " ORDER BY id"
        )
        return [self._ref(r) for r in self.db.conn.execute(sql, [namespace, *params])]

    def refs_of_files(self, namespace: str, file_ids: Sequence[int]) -> list[RefRow]:
        """The references written in the files ``file_ids``."""
        return self._refs_in(namespace, "file_id", sorted(set(file_ids)))

    def refs_of_kinds(self, namespace: str, kinds: Sequence[str]) -> list[RefRow]:
        return self._refs_in(namespace, "kind", sorted(set(kinds)))

    def unresolved_imports(self, namespace: str) -> list[RefRow]:
        """Imports that named no project symbol when they were last resolved."""
        return self._refs_where(namespace, "kind = 'import' AND target_id IS NULL", ())

    def refs_matching(
        self, namespace: str, *, names: Sequence[str] = (), targets: Sequence[str] = ()
    ) -> list[RefRow]:
        """References that name one of ``names`` or point at one of ``targets``."""
        found = {r.id: r for r in self._refs_in(namespace, "name", sorted(set(names)))}
        found.update((r.id, r) for r in self._refs_in(namespace, "target_id", sorted(set(targets))))
        return [found[k] for k in sorted(found)]

    def _refs_in(self, namespace: str, column: str, values: Sequence[object]) -> list[RefRow]:
        found: dict[int, RefRow] = {}
        for chunk in chunks(list(values)):
            for ref in self._refs_where(namespace, f"{column} IN ({marks(chunk)})", chunk):
                found[ref.id] = ref
        return [found[k] for k in sorted(found)]

    def insert_refs(self, conn: sqlite3.Connection, namespace: str, rows: Sequence[RefRow]) -> None:
        check_references(conn, "code_files", (r.file_id for r in rows))
        conn.executemany(
            "INSERT INTO code_refs (file_id, namespace, source_id, kind, name, qualifier, alias,"
            " line, count, target_id, target_file, relationship)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    r.file_id, namespace, r.source_id, r.kind, r.name, r.qualifier, r.alias,
                    r.line, r.count, r.target_id, r.target_file, r.relationship,
                )
                for r in rows
            ],
        )  # fmt: skip

    def update_refs(self, conn: sqlite3.Connection, rows: Sequence[RefRow]) -> None:
        """Store new resolutions (source, target, target file, relationship) by id."""
        conn.executemany(
            "UPDATE code_refs SET source_id = ?, target_id = ?, target_file = ?,"
            " relationship = ? WHERE id = ?",
            [(r.source_id, r.target_id, r.target_file, r.relationship, r.id) for r in rows],
        )

    def delete_refs_of(self, conn: sqlite3.Connection, file_ids: Sequence[int]) -> None:
        for chunk in chunks(list(file_ids)):
            conn.execute(f"DELETE FROM code_refs WHERE file_id IN ({marks(chunk)})", chunk)

    # --- graph rows ------------------------------------------------------------------------
    def upsert_nodes(
        self, conn: sqlite3.Connection, namespace: str, rows: Sequence[NodeRow]
    ) -> None:
        now = format_ts(utcnow())
        conn.executemany(
            "INSERT INTO graph_nodes (id, kind, name, namespace, properties, created_at,"
            f" updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) {_NODE_UPSERT}",
            [
                (r.id, r.kind, scrub.text(r.name), namespace, _json(scrub.mapping(r.properties)),
                 now, now)
                for r in rows
            ],
        )  # fmt: skip

    def ensure_nodes(
        self, conn: sqlite3.Connection, namespace: str, rows: Sequence[NodeRow]
    ) -> None:
        """Create nodes that do not exist yet; existing ones (maybe another project's) stay."""
        now = format_ts(utcnow())
        conn.executemany(
            "INSERT OR IGNORE INTO graph_nodes (id, kind, name, namespace, properties,"
            " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (r.id, r.kind, scrub.text(r.name), namespace, _json(scrub.mapping(r.properties)),
                 now, now)
                for r in rows
            ],
        )  # fmt: skip

    def delete_nodes(self, conn: sqlite3.Connection, node_ids: Sequence[str]) -> None:
        for chunk in chunks(list(node_ids)):
            conn.execute(f"DELETE FROM graph_nodes WHERE id IN ({marks(chunk)})", chunk)

    def insert_edges(
        self, conn: sqlite3.Connection, weights: Mapping[tuple[str, str, str], float]
    ) -> None:
        """Insert aggregated code edges, (source, target, relationship) -> weight, of a first
        index (no old edge to replace), in key order: what the unique index likes best."""
        now = format_ts(utcnow())
        rows = [(*key, weights[key], now) for key in sorted(weights)]
        check_references(conn, "graph_nodes", (end for key in weights for end in key[:2]))
        with checked_here(conn, {key[2] for key in weights}, CODE_RELATIONSHIPS):
            conn.executemany(
                "INSERT INTO graph_edges (source_id, target_id, relationship, weight,"
                " properties, created_at) VALUES (?, ?, ?, ?, '{}', ?) ON CONFLICT DO NOTHING",
                rows,
            )

    def rebuild_edges(
        self, conn: sqlite3.Connection, namespace: str, sources: Sequence[str]
    ) -> None:
        """Recompute the reference-made code edges leaving ``sources``."""
        now = format_ts(utcnow())
        for chunk in chunks(sorted(set(sources))):
            in_list = marks(chunk)
            conn.execute(
                f"DELETE FROM graph_edges WHERE relationship IN ({_REF_RELS})"
                f" AND source_id IN ({in_list})",
                chunk,
            )
            conn.execute(
                "INSERT INTO graph_edges (source_id, target_id, relationship, weight, properties,"
                " created_at) SELECT source_id, target_id, relationship, SUM(count), '{}', ?"
                " FROM code_refs WHERE namespace = ? AND target_id IS NOT NULL"
                " AND relationship IS NOT NULL AND source_id != target_id"
                f" AND source_id IN ({in_list})"
                " GROUP BY source_id, target_id, relationship ON CONFLICT DO NOTHING",
                [now, namespace, *chunk],
            )
            if foreign_keys_off(conn):
                targets = conn.execute(
                    f"SELECT DISTINCT target_id FROM graph_edges WHERE source_id IN ({in_list})",
                    chunk,
                )
                check_references(conn, "graph_nodes", [*chunk, *(r[0] for r in targets)])

    def rebuild_contains(
        self, conn: sqlite3.Connection, namespace: str, children: Sequence[str]
    ) -> None:
        """CONTAINS edges into ``children``: from the parent symbol when it exists anywhere in
        the namespace (a Go method's type may live in another file), else from the symbol's
        file. (The first index of a project computes the same in memory: code/rows.py.)"""
        now = format_ts(utcnow())
        # the parent's node id is 'sym:<namespace>:<qualified>' (code/rows.symbol_node_id)
        select = (
            "INSERT INTO graph_edges (source_id, target_id, relationship, weight, properties,"
            " created_at) SELECT coalesce(p.node_id, f.node_id), s.node_id, 'CONTAINS', 1.0,"
            " '{}', ? FROM code_symbols s JOIN code_files f ON f.id = s.file_id"
            " LEFT JOIN code_symbols p ON s.parent IS NOT NULL"
            " AND p.node_id = 'sym:' || s.namespace || ':' || s.parent"
            " WHERE s.namespace = ?"
        )
        for chunk in chunks(sorted(set(children))):
            in_list = marks(chunk)
            conn.execute(
                "DELETE FROM graph_edges WHERE relationship = 'CONTAINS'"
                f" AND target_id IN ({in_list})",
                chunk,
            )
            conn.execute(
                select + f" AND s.node_id IN ({in_list}) ORDER BY 1, 2 ON CONFLICT DO NOTHING",
                [now, namespace, *chunk],
            )

    def children_of(self, namespace: str, parents: Sequence[str]) -> list[str]:
        """Node ids of symbols whose parent is one of the given qualified names."""
        out: list[str] = []
        for chunk in chunks(sorted(set(parents))):
            out += [
                r[0]
                for r in self.db.conn.execute(
                    "SELECT node_id FROM code_symbols WHERE namespace = ?"
                    f" AND parent IN ({marks(chunk)})",
                    [namespace, *chunk],
                )
            ]
        return out

    # --- packages --------------------------------------------------------------------------
    def packages(self, namespace: str | None = None) -> list[PackageRow]:
        sql = (
            "SELECT node_id, ecosystem, name, version, provides, file_id, namespace"
            " FROM code_packages"
        )
        rows = (
            self.db.conn.execute(sql + " WHERE namespace = ? ORDER BY node_id", (namespace,))
            if namespace is not None
            else self.db.conn.execute(sql + " ORDER BY namespace, node_id")
        )
        return [PackageRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5], r[6]) for r in rows]

    def replace_packages(
        self, conn: sqlite3.Connection, namespace: str, file_id: int, rows: Sequence[PackageRow]
    ) -> None:
        conn.execute("DELETE FROM code_packages WHERE file_id = ?", (file_id,))
        check_references(conn, "code_files", [file_id] if rows else [])
        conn.executemany(
            "INSERT OR REPLACE INTO code_packages (file_id, namespace, node_id, ecosystem, name,"
            " version, provides) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (file_id, namespace, r.node_id, r.ecosystem, r.name, scrub.text(r.version),
                 json.dumps(sorted(r.provides)))
                for r in rows
            ],
        )  # fmt: skip

    def counts(self, namespace: str, root: str | None = None) -> dict[str, int]:
        """How many files, symbols, references (resolved) and packages are indexed."""
        scope = "namespace = ?" + (" AND root = ?" if root is not None else "")
        params: list[object] = [namespace]
        if root is not None:
            params.append(root)
        files = f"SELECT id FROM code_files WHERE {scope}"
        conn = self.db.conn
        row = conn.execute(
            f"SELECT (SELECT count(*) FROM code_files WHERE {scope}),"
            f" (SELECT count(*) FROM code_symbols WHERE file_id IN ({files})),"
            f" (SELECT count(*) FROM code_refs WHERE file_id IN ({files})),"
            f" (SELECT count(*) FROM code_refs WHERE target_id IS NOT NULL"
            f"  AND file_id IN ({files})),"
            f" (SELECT count(*) FROM code_packages WHERE file_id IN ({files}))",
            params * 5,
        ).fetchone()
        keys = ("files", "symbols", "references", "resolved", "packages")
        return dict(zip(keys, (int(v) for v in row), strict=True))

    def drop_orphan_packages(self, conn: sqlite3.Connection, namespace: str) -> None:
        """Remove package nodes of the namespace that nothing declares or depends on."""
        conn.execute(
            "DELETE FROM graph_nodes WHERE kind = 'package' AND namespace = ?"
            " AND id NOT IN (SELECT node_id FROM code_packages)"
            " AND id NOT IN (SELECT target_id FROM graph_edges)"
            " AND id NOT IN (SELECT source_id FROM graph_edges)",
            (namespace,),
        )
