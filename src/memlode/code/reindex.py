"""Re-indexing a few files of already indexed projects, without walking them.

An edit touches one file; :func:`index_project` would walk the whole root to find it. Here the
caller names the files (the hooks' edit marks, a file-system watcher): each is mapped to every
indexed root that contains it, checked against the walker's rules (``walk.sources_at``: the
ignore files, skipped folders, generated names, size), and then written exactly as an index run
writes changed files: one transaction per root, through the same :class:`IndexRun` and
:func:`link_project`, so references elsewhere that may now resolve differently are resolved
again and the affected code edges rebuilt. A file that is gone (or now ignored) is removed.

The result equals a full incremental run over the same tree, with two cases handed to one:
a named folder the walk enters (a folder moved in: its files are unknown without a walk), and
an ignore file in one (what it hides may have changed anywhere below it). A Python file that
appears or vanishes can rename other modules (a new ``__init__.py``); those files are re-parsed
too, as the full run would.

Centrality is not computed here: the caller refreshes the graph state when it likes
(``memlode.engine.code.index_state.refresh``; the code index's generation tells it that it is
stale).
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memlode.code.crossrepo import link_cross_repo
from memlode.code.index_run import IndexRun
from memlode.code.indexer import bulk_work, file_unchanged, index_project
from memlode.code.lang import spec_for
from memlode.code.linking import link_project
from memlode.code.scan import UNCHANGED, ScanItem, scan_files
from memlode.code.walk import SourceFile, folders_walked, sources_at
from memlode.storage import code_graph_rows
from memlode.storage.code_repo import CodeRepo, FileRow
from memlode.storage.db import Database

__all__ = ["IGNORE_FILES", "ReindexStats", "reindex_paths", "roots_containing"]

# Files whose change may hide or show files anywhere below them: the root is walked again.
IGNORE_FILES = frozenset({".gitignore", ".memlodeignore"})


@dataclass(slots=True)
class ReindexStats:
    """What one re-index did in one indexed root."""

    namespace: str
    root: str
    paths: list[str]  # the given paths in this root, relative
    parsed: int = 0
    unchanged: int = 0
    deleted: int = 0
    skipped: int = 0  # binary, generated, minified, unreadable, bad manifests
    walked: bool = False  # handed to a full incremental run (a folder, an ignore file)
    changed_files: list[str] = field(default_factory=list)  # relative paths written or removed
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.changed_files) or self.walked

    def to_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in self.__slots__}


def roots_containing(
    roots: Iterable[tuple[str, str]], paths: Iterable[str | Path]
) -> dict[tuple[str, str], list[str]]:
    """(namespace, root) -> the given paths inside that root, relative and '/' separated.

    A path is made absolute and its folder resolved (symlinks in the folders above it, as the
    roots are stored resolved); the file itself is not followed, as the walk does not follow
    it. Paths in no root are left out.
    """
    pairs = sorted(set(roots))
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    for given in paths:
        text = os.path.abspath(os.fspath(given))
        folder, name = os.path.split(text)
        full = os.path.join(os.path.realpath(folder), name).replace(os.sep, "/")
        for pair in pairs:
            root = pair[1]
            if full.startswith(root.rstrip("/") + "/"):
                rel = full[len(root.rstrip("/")) + 1 :]
                if rel not in out[pair]:
                    out[pair].append(rel)
    return dict(out)


def reindex_paths(
    db: Database, paths: Iterable[str | Path], *, exclude: Sequence[str] = ()
) -> list[ReindexStats]:
    """Re-index the given files in every indexed root that contains them; see the module doc.

    ``exclude``: extra gitignore patterns, as given to :func:`index_project` (the ignore files
    in the tree are always read). Paths outside every indexed root are ignored.
    """
    roots = code_graph_rows.indexed_roots(db.conn)
    out: list[ReindexStats] = []
    with bulk_work(db):
        for (namespace, root), rels in sorted(roots_containing(roots, paths).items()):
            out.append(_reindex_root(db, namespace, root, rels, exclude))
        if any(s.changed_files for s in out):
            link_cross_repo(db)
    return out


def _reindex_root(
    db: Database, namespace: str, root: str, rels: list[str], exclude: Sequence[str]
) -> ReindexStats:
    started = time.perf_counter()
    stats = ReindexStats(namespace, root, sorted(rels))
    base = Path(root)
    if _needs_walk(base, rels, exclude):
        run = index_project(db, base, namespace, exclude=exclude, workers=1, centrality=False)
        stats.walked = True
        stats.parsed, stats.deleted, stats.skipped = run.parsed, run.deleted, run.skipped
        stats.seconds = time.perf_counter() - started
        return stats
    repo = CodeRepo(db)
    existing = {f.path: f for f in repo.files(namespace, root)}
    given = _expand_folders(rels, existing)
    found = sources_at(base, given, exclude)
    deleted = [existing[rel] for rel, src in found.items() if src is None and rel in existing]
    sources = [src for src in found.values() if src is not None]
    modules, renamed = _module_keys(base, sources, deleted, existing, exclude)
    todo: list[ScanItem] = []
    for source in [*sources, *renamed]:
        old = existing.get(source.path)
        module = modules.get(source.path, "")
        if old is not None and file_unchanged(old, source, module):
            stats.unchanged += 1
            continue
        same_module = old is not None and (old.module == module or old.status != "ok")
        todo.append((source, module, old.hash if old is not None and same_module else None))
    if todo or deleted:
        scanned = scan_files(todo, workers=1)
        with db.write() as conn:
            state = IndexRun(repo, conn, namespace, root, full=False)
            state.delete_files(deleted)
            state.store(scanned, existing, modules)
            link_project(state)
        stats.parsed = sum(1 for s in scanned if s.skipped is None)
        stats.skipped = sum(1 for s in scanned if s.skipped not in (None, UNCHANGED))
        stats.unchanged += sum(1 for s in scanned if s.skipped == UNCHANGED)
        stats.deleted = len(deleted)
        written = [s.source.path for s in scanned if s.skipped != UNCHANGED]
        stats.changed_files = sorted({*written, *(f.path for f in deleted)})
    stats.seconds = time.perf_counter() - started
    return stats


def _needs_walk(base: Path, rels: Sequence[str], exclude: Sequence[str]) -> bool:
    """A folder the walk enters (its files are unknown without a walk), or an ignore file in
    one (what it hides may have changed anywhere below it)."""
    folders = [r for r in rels if (base / r).is_dir()]
    folders += [r.rpartition("/")[0] for r in rels if r.rsplit("/", 1)[-1] in IGNORE_FILES]
    return bool(folders_walked(base, folders, exclude))


def _expand_folders(rels: Sequence[str], existing: dict[str, FileRow]) -> list[str]:
    """The given paths, with a vanished folder replaced by the indexed files it held."""
    out: list[str] = []
    for rel in rels:
        if rel in existing:
            out.append(rel)
            continue
        inside = [p for p in existing if p.startswith(rel + "/")]
        out.extend(inside or [rel])
    return list(dict.fromkeys(out))


def _module_keys(
    base: Path,
    sources: Sequence[SourceFile],
    deleted: Sequence[FileRow],
    existing: dict[str, FileRow],
    exclude: Sequence[str],
) -> tuple[dict[str, str], list[SourceFile]]:
    """Each given code file's module key with the tree as it is now in view (the stored files,
    less the deleted, plus the new), as ``scan.module_keys`` computes it over a whole walk; and
    the other stored files whose key that changes (with their keys added)."""
    gone = {f.path for f in deleted}
    code = [s for s in sources if not s.language.startswith("manifest:")]
    paths = frozenset(
        {p for p, f in existing.items() if not f.language.startswith("manifest:")} - gone
    ) | {s.path for s in code}
    keys = {s.path: spec_for(s.language).module_key(s.path, paths) for s in code}
    if not gone and all(s.path in existing for s in code):
        return keys, []  # the same files as before: no other module is renamed
    given = {s.path for s in sources}
    suspects = [
        f.path
        for f in existing.values()
        if f.path not in given
        and f.path not in gone
        and f.status == "ok"
        and not f.language.startswith("manifest:")
        and spec_for(f.language).layout_modules
    ]
    renamed: list[SourceFile] = []
    for rel, source in sources_at(base, suspects, exclude).items():
        if source is None:
            continue  # gone or ignored without being named: the next full run sees it
        key = spec_for(source.language).module_key(rel, paths)
        if key != existing[rel].module:
            keys[rel] = key
            renamed.append(source)
    return keys, renamed
