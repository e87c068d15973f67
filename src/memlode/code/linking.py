"""After files changed: resolve again what may now resolve differently, rebuild code edges.

The resolver is rebuilt from the store (every file and symbol of the project root), because a
reference in an unchanged file may point at a symbol that just appeared or vanished. Only those
references are resolved again: the changed files' own, the ones naming an added or removed
symbol, the ones whose target was removed, and (when files came or went) unresolved imports.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from typing import TYPE_CHECKING

from memlode.code.lang.go import GO_MODULE_HINT
from memlode.code.model import Reference, RefKind
from memlode.code.resolve import FileInfo, Resolver, SymbolInfo
from memlode.storage.code_repo import CodeRepo, FileRow, RefRow
from memlode.types import NodeKind

if TYPE_CHECKING:
    from memlode.code.index_run import IndexRun

__all__ = ["link_project", "store_resolver"]

_BASE_KINDS = ("inherit", "extend", "implement")


def store_resolver(
    repo: CodeRepo, namespace: str, root: str
) -> tuple[Resolver, dict[int, FileRow], dict[str, str]]:
    """A resolver over a root's stored files; also files by id and qualified name by node."""
    files = repo.files(namespace, root)
    by_id = {f.id: f for f in files}
    code = [f for f in files if f.status == "ok" and not f.language.startswith("manifest:")]
    ids = [f.id for f in code]
    imports: dict[int, list[Reference]] = defaultdict(list)
    bases: dict[int, list[Reference]] = defaultdict(list)
    symbols = repo.symbols(namespace, ids) if ids else []
    qualified_of = {s.node_id: s.qualified_name for s in symbols}
    for ref in repo.refs_of_kinds(namespace, ("import", *_BASE_KINDS)):
        if ref.file_id not in by_id:
            continue
        as_ref = _reference(ref, qualified_of)
        (imports if ref.kind == "import" else bases)[ref.file_id].append(as_ref)
    infos = [
        FileInfo(f.path, f.language, f.module, f.node_id, f.prefix.rstrip(".:"), imports[f.id])
        for f in code
    ]
    hints = {
        GO_MODULE_HINT + p.name: posixpath.dirname(by_id[p.file_id].path)
        for p in repo.packages(namespace)
        if p.ecosystem == "go" and p.file_id in by_id
    }
    resolver = Resolver(
        infos,
        [
            SymbolInfo(
                s.node_id, s.name, s.qualified_name, NodeKind(s.kind), s.path, s.parent,
                s.properties, s.container,
            )
            for s in symbols
        ],
        hints,
    )  # fmt: skip
    for file_id, refs in sorted(bases.items()):
        resolver.add_bases(by_id[file_id].path, refs)
    return resolver, by_id, qualified_of


def _reference(ref: RefRow, qualified_of: dict[str, str]) -> Reference:
    return Reference(
        RefKind(ref.kind),
        ref.name,
        qualified_of.get(ref.source_id),
        ref.line,
        ref.qualifier,
        ref.alias,
        ref.count,
    )


def link_project(state: IndexRun) -> None:
    """Resolve affected references and rebuild the edges of every source they touch."""
    repo, conn, ns = state.repo, state.conn, state.namespace
    if state.full:
        # code edges were inserted with the references; packages' DEPENDS_ON rows too
        packages = [p.node_id for p in repo.packages(ns)]
        if packages:
            repo.rebuild_edges(conn, ns, packages)
        repo.drop_orphan_packages(conn, ns)
        return
    resolver, by_id, qualified_of = store_resolver(repo, ns, state.root)
    path_ids = {f.path: f.id for f in by_id.values()}
    candidates: dict[int, RefRow] = {}
    if state.changed_files:
        candidates.update((r.id, r) for r in repo.refs_of_files(ns, sorted(state.changed_files)))
    for ref in repo.refs_matching(
        ns,
        names=sorted(state.affected_names),
        targets=sorted(state.removed_nodes),
    ):
        candidates[ref.id] = ref
    if state.files_added_or_removed:
        candidates.update((r.id, r) for r in repo.unresolved_imports(ns))
    updates: list[RefRow] = []
    for ref in candidates.values():
        owner = by_id.get(ref.file_id)
        if owner is None or ref.kind == "depend":
            continue
        before = (ref.source_id, ref.target_id, ref.target_file)
        target = resolver.resolve(owner.path, _reference(ref, qualified_of))
        ref.target_id = target.node_id if target is not None else None
        ref.target_file = path_ids.get(target.path) if target is not None else None
        if (ref.source_id, ref.target_id, ref.target_file) != before:
            state.dirty_sources.add(before[0])
            state.dirty_sources.add(ref.source_id)
            updates.append(ref)
        elif ref.file_id in state.changed_files:
            state.dirty_sources.add(ref.source_id)
    repo.update_refs(conn, updates)
    repo.rebuild_edges(conn, ns, sorted(state.dirty_sources - state.removed_nodes))
    # CONTAINS: into the changed files' symbols, and into symbols whose parent came or went
    children = {s for s in qualified_of if s in state.dirty_sources} | set(
        repo.children_of(ns, sorted(state.affected_qualified))
    )
    repo.rebuild_contains(conn, ns, sorted(children))
    repo.drop_orphan_packages(conn, ns)
