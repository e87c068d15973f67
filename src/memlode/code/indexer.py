"""Indexing a project into the store, incrementally.

A file is looked at again only when its size or mtime changed, and parsed again only when its
content hash changed (or, in Python, its module name did). Everything a changed or deleted file
owned (symbols, references, nodes, edges) is replaced in one transaction. References elsewhere
that could now resolve differently (they name a symbol that appeared or vanished) are resolved
again, and the code edges of every affected source are rebuilt from ``code_refs``. An unchanged
project costs one walk and one query.
"""

from __future__ import annotations

import gc
import logging
import posixpath
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from memlode.code.crossrepo import link_cross_repo
from memlode.code.languages import spec_for
from memlode.code.linking import link_project
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
from memlode.code.scan import UNCHANGED, ScannedFile, manifest_hints, module_keys, scan_files
from memlode.code.walk import SourceFile, walk_project
from memlode.errors import InvalidInput
from memlode.graph.store import ensure_centrality
from memlode.storage import code_graph_rows
from memlode.storage.code_repo import CodeRepo, FileRow, NodeRow, RefRow, SymbolRow
from memlode.storage.db import Database
from memlode.types import NodeKind

__all__ = ["IndexStats", "ProgressCallback", "index_project", "remove_index"]

log = logging.getLogger(__name__)

# (phase, done, total): phases "parse" (per file), "store" and "centrality" (0 of 1, 1 of 1)
ProgressCallback = Callable[[str, int, int], None]

_KINDS = {kind.value: kind for kind in NodeKind}  # NodeKind(value) costs ~1 us; this ~50 ns


@dataclass(slots=True)
class IndexStats:
    namespace: str
    root: str
    files: int = 0  # indexed files (code and manifests) after the run
    parsed: int = 0  # files extracted in this run
    unchanged: int = 0
    deleted: int = 0
    skipped: int = 0  # binary, generated, minified, unreadable, bad manifests
    symbols: int = 0
    references: int = 0
    resolved: int = 0
    packages: int = 0
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__slots__}


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


def index_project(
    db: Database,
    root: Path | str,
    namespace: str,
    *,
    exclude: Sequence[str] = (),
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    centrality: bool = True,
) -> IndexStats:
    """Index (or re-index) the code under ``root`` into ``namespace``; see the module doc."""
    with _bulk_work(db):
        return _index_project(db, root, namespace, exclude, workers, progress, centrality)


@contextmanager
def _bulk_work(db: Database) -> Iterator[None]:
    """No cyclic garbage collection for the length of one index run: a run allocates about a
    million objects that hold no cycles (on the stdlib, collecting them again and again cost
    0.7 s of 11); reference counting frees them all the same."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _index_project(
    db: Database,
    root: Path | str,
    namespace: str,
    exclude: Sequence[str],
    workers: int | None,
    progress: ProgressCallback | None,
    centrality: bool,
) -> IndexStats:
    started = time.perf_counter()
    base = Path(root).expanduser()
    if not base.is_dir():
        raise InvalidInput(f"{root} is not a folder; give the project folder to index")
    base = base.resolve()
    root_s = base.as_posix()
    stats = IndexStats(namespace, root_s)
    repo = CodeRepo(db)
    mark = time.perf_counter()

    sources = walk_project(base, exclude)
    modules = module_keys(sources)
    existing = {f.path: f for f in repo.files(namespace, root_s)}
    walked = {s.path for s in sources}
    todo: list[tuple[SourceFile, str, str | None]] = []
    for source in sources:
        old = existing.get(source.path)
        module = modules.get(source.path, "")
        if old is not None and _unchanged(old, source, module):
            continue
        # same content under the same module name needs no parse; a renamed module does
        same_module = old is not None and (old.module == module or old.status != "ok")
        todo.append((source, module, old.hash if old is not None and same_module else None))
    deleted = [f for p, f in existing.items() if p not in walked]
    stats.phases["walk"] = time.perf_counter() - mark
    if not todo and not deleted:
        return _finish(stats, repo, started, unchanged=len(sources))

    mark = time.perf_counter()
    if progress:
        progress("parse", 0, len(todo))
    report = (lambda done, total: progress("parse", done, total)) if progress else None
    scanned = scan_files(todo, workers, report)
    stats.phases["parse"] = time.perf_counter() - mark

    mark = time.perf_counter()
    if progress:
        progress("store", 0, 1)
    with db.write() as conn:
        state = _Apply(repo, conn, namespace, root_s, full=not existing)
        state.delete_files(deleted)
        state.store(scanned, existing, modules)
        stats.phases["store"] = time.perf_counter() - mark
        mark = time.perf_counter()
        link_project(state)
        stats.phases["resolve"] = time.perf_counter() - mark
    stats.parsed = sum(1 for s in scanned if s.skipped is None)
    stats.skipped = sum(1 for s in scanned if s.skipped not in (None, UNCHANGED))
    stats.deleted = len(deleted)
    stats.unchanged = len(sources) - stats.parsed - stats.skipped
    if progress:
        progress("store", 1, 1)
    link_cross_repo(db)
    if centrality:
        if progress:
            progress("centrality", 0, 1)
        mark = time.perf_counter()
        ensure_centrality(db, namespace)
        stats.phases["centrality"] = time.perf_counter() - mark
        if progress:
            progress("centrality", 1, 1)
    return _finish(stats, repo, started)


def remove_index(db: Database, namespace: str, root: Path | str | None = None) -> int:
    """Forget what was indexed for a namespace (one root, or all); return files removed."""
    repo = CodeRepo(db)
    root_s = Path(root).expanduser().resolve().as_posix() if root is not None else None
    files = repo.files(namespace, root_s)
    if not files:
        return 0
    ids = [f.id for f in files]
    nodes = [s.node_id for s in repo.symbols(namespace, ids)]
    nodes += [p.node_id for p in repo.packages(namespace) if p.file_id in set(ids)]
    nodes += [f.node_id for f in files]
    with db.write() as conn:
        repo.delete_files(conn, ids)
        code_graph_rows.delete_project_package(conn, namespace)
        repo.delete_nodes(conn, nodes)
        repo.drop_orphan_packages(conn, namespace)
    link_cross_repo(db)
    return len(files)


def _unchanged(old: FileRow, source: SourceFile, module: str) -> bool:
    if old.size != source.size or old.mtime_ns != source.mtime_ns:
        return False
    if source.language.startswith("manifest:") or old.status != "ok":
        return True
    # a Python package folder appeared or vanished: the module's qualified names change
    return not (spec_for(source.language).layout_modules and old.module != module)


def _finish(
    stats: IndexStats, repo: CodeRepo, started: float, unchanged: int | None = None
) -> IndexStats:
    counts = repo.counts(stats.namespace, stats.root)
    stats.files = counts["files"]
    stats.symbols = counts["symbols"]
    stats.references = counts["references"]
    stats.resolved = counts["resolved"]
    stats.packages = counts["packages"]
    if unchanged is not None:
        stats.unchanged = unchanged
    stats.seconds = time.perf_counter() - started
    return stats


class _Apply:
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
        self.dirty_sources |= {r.source_id for r in self.repo.refs(self.namespace, *_in(ids))}
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
        self.scanned = list(scanned)
        repo, conn, ns = self.repo, self.conn, self.namespace
        changed: list[tuple[ScannedFile, FileRow]] = []
        for item in scanned:
            src = item.source
            old = existing.get(src.path)
            if item.skipped == UNCHANGED and old is not None:
                repo.touch_file(conn, old.id, src.size, src.mtime_ns)
                continue
            ex = item.extract
            row = FileRow(
                namespace=ns,
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
            repo.upsert_file(conn, row)
            self.changed_files.add(row.id)
            if old is None:
                self.files_added_or_removed = True
            changed.append((item, row))
        if not changed:
            return
        ids = [row.id for _, row in changed]
        old_symbols = [] if self.full else repo.symbols(ns, ids)
        if not self.full:
            self.dirty_sources |= {r.source_id for r in repo.refs(ns, *_in(ids))}
            repo.delete_refs_of(conn, ids)
            repo.delete_symbols_of(conn, ids)
            code_graph_rows.delete_package_rows_of_files(conn, ids)
        # a first index still meets other roots' symbols when the namespace has more roots
        shared = self.full and code_graph_rows.other_root_exists(self.conn, ns, self.root)
        taken = self._taken(changed) if shared or not self.full else {}
        file_nodes = [
            NodeRow(row.node_id, "file", row.path, {"root": self.root, "language": row.language})
            for _, row in changed
        ]
        repo.upsert_nodes(conn, ns, file_nodes)
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
        after = repo.insert_symbols(conn, ns, all_symbols)
        repo.upsert_symbol_nodes(conn, after)
        repo.insert_refs(conn, ns, all_refs)
        if self.full:
            repo.insert_edges(conn, self._first_edges(all_symbols, all_refs, changed))
        gone = {s.node_id for s in old_symbols} - new_nodes
        if gone:
            self._forget([s for s in old_symbols if s.node_id in gone])
            repo.delete_nodes(conn, sorted(gone))

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


def _in(ids: Sequence[int]) -> tuple[str, list[object]]:
    return f"file_id IN ({','.join('?' * len(ids))})", list(ids)
