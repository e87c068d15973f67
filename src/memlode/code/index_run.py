"""The write side of one index run: what changed files own, replaced inside one transaction.

``indexer`` walks and parses; an :class:`IndexRun` writes the parsed files (file rows,
symbols, references, packages, and on a first index the code edges) and records what the
run touched (removed nodes, affected names, dirty sources) for ``linking`` to resolve again.
"""

from __future__ import annotations

import posixpath
import sqlite3
from collections.abc import Sequence

from memlode.code.model import RefKind
from memlode.code.resolve import FileInfo, Resolver, SymbolInfo
from memlode.code.rows import (
    code_edges,
    file_node_id,
    package_rows,
    reference_rows,
    symbol_node_id,
    symbol_rows,
)
from memlode.code.scan import UNCHANGED, ScannedFile, manifest_hints
from memlode.storage import code_graph_rows
from memlode.storage.code_repo import CodeRepo, FileRow, NodeRow, RefRow, SymbolRow
from memlode.types import NodeKind

__all__ = ["IndexRun"]

_KINDS = {kind.value: kind for kind in NodeKind}  # NodeKind(value) costs ~1 us; this ~50 ns


class IndexRun:
    """The write side of one index run, inside its transaction; ``linking`` reads it back."""

    def __init__(self, repo: CodeRepo, conn: object, namespace: str, root: str, full: bool):
        assert isinstance(conn, sqlite3.Connection)
        self.repo = repo
        self.conn = conn
        self.namespace = namespace
        self.root = root
        self.full = full  # the first index of this root: nothing old to reconcile
        self.removed_nodes: set[str] = set()
        self.affected_names: set[str] = set()
        self.affected_qualified: set[str] = set()
        self.dirty_sources: set[str] = set()
        self.changed_files: set[int] = set()
        self.files_added_or_removed = False
        self.scanned: list[ScannedFile] = []

    def delete_files(self, files: Sequence[FileRow]) -> None:
        if not files:
            return
        ids = [f.id for f in files]
        old = self.repo.symbols(self.namespace, ids)
        self._forget(old)
        self.dirty_sources |= {r.source_id for r in self.repo.refs_of_files(self.namespace, ids)}
        self.removed_nodes |= {f.node_id for f in files}
        self.repo.delete_files(self.conn, ids)
        self.repo.delete_nodes(self.conn, sorted(self.removed_nodes))
        self.files_added_or_removed = True

    def _forget(self, old: Sequence[SymbolRow]) -> None:
        self.removed_nodes |= {s.node_id for s in old}
        self.affected_names |= {s.name for s in old}
        self.affected_qualified |= {s.qualified_name for s in old}

    def store(
        self, scanned: Sequence[ScannedFile], existing: dict[str, FileRow], modules: dict[str, str]
    ) -> None:
        """Write the scanned files: their rows, symbols, references and (first index) edges."""
        self.scanned = list(scanned)
        changed = self._upsert_files(existing, modules)
        if not changed:
            return
        ids = [row.id for _, row in changed]
        old_symbols = [] if self.full else self.repo.symbols(self.namespace, ids)
        if not self.full:
            self._clear_files(ids)
        file_nodes = [
            NodeRow(row.node_id, "file", row.path, {"root": self.root, "language": row.language})
            for _, row in changed
        ]
        self.repo.upsert_nodes(self.conn, self.namespace, file_nodes)
        new_nodes = self._store_symbols(changed)
        gone = {s.node_id for s in old_symbols} - new_nodes
        if gone:
            self._forget([s for s in old_symbols if s.node_id in gone])
            self.repo.delete_nodes(self.conn, sorted(gone))

    def _upsert_files(
        self, existing: dict[str, FileRow], modules: dict[str, str]
    ) -> list[tuple[ScannedFile, FileRow]]:
        """Touch unchanged files, write a row for each changed one; return the changed."""
        changed: list[tuple[ScannedFile, FileRow]] = []
        for item in self.scanned:
            src = item.source
            old = existing.get(src.path)
            if item.skipped == UNCHANGED and old is not None:
                self.repo.touch_file(self.conn, old.id, src.size, src.mtime_ns)
                continue
            ex = item.extract
            row = FileRow(
                namespace=self.namespace,
                root=self.root,
                path=src.path,
                node_id=file_node_id(self.root, src.path),
                language=item.language,
                hash=item.hash,
                size=src.size,
                mtime_ns=src.mtime_ns,
                module=ex.module if ex is not None else modules.get(src.path, ""),
                prefix=ex.prefix if ex is not None else "",
                lines=ex.lines if ex is not None else 0,
                status=item.skipped or "ok",
            )
            self.repo.upsert_file(self.conn, row)
            self.changed_files.add(row.id)
            if old is None:
                self.files_added_or_removed = True
            changed.append((item, row))
        return changed

    def _clear_files(self, ids: Sequence[int]) -> None:
        """Drop what re-indexed files owned; their old references' sources get new edges."""
        self.dirty_sources |= {r.source_id for r in self.repo.refs_of_files(self.namespace, ids)}
        self.repo.delete_refs_of(self.conn, ids)
        self.repo.delete_symbols_of(self.conn, ids)
        code_graph_rows.delete_package_rows_of_files(self.conn, ids)

    def _store_symbols(self, changed: Sequence[tuple[ScannedFile, FileRow]]) -> set[str]:
        """Symbols and references of the changed files (packages for manifests); new nodes."""
        ns = self.namespace
        # a first index still meets other roots' symbols when the namespace has more roots
        shared = self.full and code_graph_rows.other_root_exists(self.conn, ns, self.root)
        taken = self._taken(changed) if shared or not self.full else {}
        per_file: list[tuple[ScannedFile, FileRow, list[SymbolRow]]] = []
        for item, row in changed:
            if item.extract is not None:
                per_file.append((item, row, symbol_rows(ns, item.extract, row.id, taken)))
            elif item.package is not None:
                self._store_package(item, row)
        # the first index of a root resolves in memory, before anything is written
        resolver = self._memory_resolver(per_file) if self.full else None
        file_ids = {row.path: row.id for _, row in changed}
        new_nodes: set[str] = set()
        all_symbols: list[SymbolRow] = []
        all_refs: list[RefRow] = []
        for item, row, symbols in per_file:
            assert item.extract is not None
            all_symbols += symbols
            all_refs += reference_rows(
                item.extract, row.id, row.node_id, symbols, resolver, file_ids
            )
            if not self.full:
                new_nodes |= {s.node_id for s in symbols}
                self.affected_names |= {s.name for s in symbols}
                self.affected_qualified |= {s.qualified_name for s in symbols}
                self.dirty_sources.add(row.node_id)
                self.dirty_sources |= {s.node_id for s in symbols}
        # one statement or batch per table: far cheaper than a statement per file
        after = self.repo.insert_symbols(self.conn, ns, all_symbols)
        self.repo.upsert_symbol_nodes(self.conn, after)
        self.repo.insert_refs(self.conn, ns, all_refs)
        if self.full:
            self.repo.insert_edges(self.conn, self._first_edges(all_symbols, all_refs, changed))
        return new_nodes

    def _first_edges(
        self,
        symbols: Sequence[SymbolRow],
        refs: Sequence[RefRow],
        changed: Sequence[tuple[ScannedFile, FileRow]],
    ) -> dict[tuple[str, str, str], float]:
        """Every code edge of a first index; parents may be symbols of another root."""
        parents = {s.node_id for s in symbols}
        elsewhere = {
            symbol_node_id(self.namespace, s.parent) for s in symbols if s.parent is not None
        } - parents
        if elsewhere:
            parents |= set(self.repo.symbols_by_node(sorted(elsewhere)))
        file_nodes = {row.id: row.node_id for _, row in changed}
        return code_edges(self.namespace, refs, symbols, file_nodes, parents)

    def _memory_resolver(
        self, per_file: Sequence[tuple[ScannedFile, FileRow, list[SymbolRow]]]
    ) -> Resolver:
        files = [
            FileInfo(
                row.path,
                item.language,
                row.module,
                row.node_id,
                row.prefix.rstrip(".:"),
                [r for r in item.extract.references if r.kind == RefKind.IMPORT],
            )
            for item, row, _ in per_file
            if item.extract is not None
        ]
        symbols = [
            SymbolInfo(
                s.node_id, s.name, s.qualified_name, _KINDS[s.kind], s.path, s.parent,
                s.properties, s.container,
            )
            for _, _, rows in per_file
            for s in rows
        ]  # fmt: skip
        packages = [item.package for item in self.scanned if item.package is not None]
        resolver = Resolver(files, symbols, manifest_hints(packages))
        for item, _, _ in per_file:
            if item.extract is not None:
                resolver.add_bases(item.extract.path, item.extract.references)
        return resolver

    def _taken(self, changed: Sequence[tuple[ScannedFile, FileRow]]) -> dict[str, int]:
        """Node ids of other files that the changed files' symbols might collide with."""
        wanted = [
            f"sym:{self.namespace}:{s.qualified}"
            for item, _ in changed
            if item.extract is not None
            for s in item.extract.symbols
        ]
        owners = self.repo.symbols_by_node(wanted)
        return {node: sym.file_id for node, sym in owners.items()}

    def _store_package(self, item: ScannedFile, row: FileRow) -> None:
        assert item.package is not None
        package = item.package
        folder = posixpath.dirname(item.source.path)
        provides: set[str] = set()
        if package.ecosystem == "pypi":
            provides = _python_provides(self.scanned, folder, package.name)
        pkg, deps, refs = package_rows(package, row.id, provides)
        self.repo.upsert_nodes(
            self.conn,
            self.namespace,
            [
                NodeRow(
                    pkg.node_id,
                    "package",
                    package.name,
                    {
                        "ecosystem": package.ecosystem,
                        "version": package.version,
                        "manifest": item.source.path,
                        "root": self.root,
                        "local": True,
                    },
                )
            ],
        )
        self.repo.ensure_nodes(self.conn, self.namespace, deps)
        self.repo.replace_packages(self.conn, self.namespace, row.id, [pkg])
        self.repo.insert_refs(self.conn, self.namespace, refs)
        self.dirty_sources.add(pkg.node_id)


def _python_provides(extracts: Sequence[ScannedFile], manifest_dir: str, name: str) -> set[str]:
    """What `import x` names a Python distribution provides: its top-level regular packages
    under the manifest's folder, or the single module named like the distribution."""
    out: set[str] = set()
    single = name.replace("-", "_").lower()
    for scanned in extracts:
        ex = scanned.extract
        if ex is None or ex.language != "python":
            continue
        if manifest_dir and not ex.path.startswith(manifest_dir + "/"):
            continue
        top = ex.module.split(".", 1)[0]
        if posixpath.basename(ex.path) == "__init__.py" or top.lower() == single:
            out.add(top)
    return {m for m in out if m not in ("tests", "test", "docs", "examples")}
