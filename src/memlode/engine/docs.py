"""Memory files and docs: indexing them into the store, and the operations on them.

Sources, and the namespace each is indexed into:

- ``MEMORY.md``, ``SOUL.md``, ``USER.md`` and ``memory/*.md`` at the project root, and
  ``.memlode/docs/`` in the project: the project's namespace (``engine.namespace``);
- the same four shapes in ``$MEMLODE_HOME/global/``: the namespace ``global``
  (``GLOBAL_NAMESPACE``), shared by every project;
- folders added with ``memlode docs add DIR``: the namespace that was current when they were
  added (``global`` outside a project or with ``--global``).

A project's memory search covers its own namespace and ``global``. Outside a project (no
project marker) memlode runs in *docs-only mode*: the global files and global folders are still
indexed and searched, and ``docs_status`` says ``docs_only: true``.

Each chunk is a memory with ``source='doc'``; its metadata carries ``path`` (relative to its
root), ``root``, ``scope``, ``file`` (absolute), ``chunk``, ``chunks``, ``headings``, ``lines``,
``evergreen`` and, for the four memory-file shapes, ``ref`` (what ``memory_get`` accepts).
``created_at`` is the file's modification time when the chunk's text first appeared, which is
what recall decays (evergreen files excepted). A changed file has its chunks replaced in one
transaction: chunks whose text did not change keep their id, age and embedding.

Every public function takes plain arguments and returns JSON-able values, so that a CLI command
or an MCP tool is a thin adapter.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memlode.engine import Engine, SearchHit
from memlode.errors import InvalidInput, NotFound
from memlode.owner_only import DIR_MODE, FILE_MODE
from memlode.project import find_project_root
from memlode.redact import redact
from memlode.sources.docfiles import DocRoot, discover, relative_to_root
from memlode.sources.docindex import (
    DOC_SOURCE,
    MAX_FILE_BYTES,
    IndexReport,
    Progress,
    display_path,
    drop_file,
    index_file,
    mtime_ts,
    scan_root,
)
from memlode.sources.pathguard import ROOT_FILES, note_name, resolve_memory_path
from memlode.storage import doc_folders as folder_repo
from memlode.types import format_ts, utcnow

__all__ = [
    "DEFAULT_EVERGREEN",
    "DOC_SOURCE",
    "GLOBAL_NAMESPACE",
    "add_folder",
    "append_compaction_summary",
    "doc_roots",
    "docs_status",
    "index_docs",
    "list_folders",
    "memory_get",
    "memory_search",
    "memory_store",
    "reindex_paths",
    "remove_folder",
]

log = logging.getLogger(__name__)

GLOBAL_NAMESPACE = "global"
# DESIGN.md: MEMORY.md, SOUL.md and USER.md never decay (by file name, wherever they are).
DEFAULT_EVERGREEN = frozenset(ROOT_FILES)

# ---- roots ------------------------------------------------------------------------------------


def _project_root(cwd: Path | None) -> Path | None:
    root = find_project_root(cwd if cwd is not None else Path.cwd())
    if root is None or root == root.parent:
        return None
    return root


def _global_root(engine: Engine) -> Path:
    return (engine.settings.home / "global").expanduser().resolve()


def _project_namespace(engine: Engine) -> str:
    return engine.namespace or GLOBAL_NAMESPACE


def _namespaces(engine: Engine, project: Path | None) -> list[str]:
    if project is None:
        return [GLOBAL_NAMESPACE]
    return list(dict.fromkeys([_project_namespace(engine), GLOBAL_NAMESPACE]))


def doc_roots(engine: Engine, *, cwd: Path | None = None) -> list[DocRoot]:
    """Every root indexed from ``cwd``: global, the project's (if any), the added folders."""
    project = _project_root(cwd)
    roots = [DocRoot(_global_root(engine), GLOBAL_NAMESPACE, "global", True)]
    if project is not None:
        ns = _project_namespace(engine)
        roots.append(DocRoot(project, ns, "project", True))
        # within=project: a .memlode or docs symlink that leads out of the project is skipped.
        roots.append(DocRoot(project / ".memlode" / "docs", ns, "docs", False, within=project))
    wanted = _namespaces(engine, project)
    roots += [
        DocRoot(Path(path), ns, "folder", False)
        for path, ns in folder_repo.folders(engine.conn)
        if ns in wanted
    ]
    return roots


def index_docs(
    engine: Engine,
    *,
    cwd: Path | None = None,
    progress: Progress | None = None,
    evergreen: Iterable[str] = DEFAULT_EVERGREEN,
) -> dict[str, Any]:
    """Index every source once: unchanged files skipped, changed ones replaced, gone ones dropped.

    ``progress(done, total, path)`` is called after each file.
    """
    names = frozenset(evergreen)
    roots = doc_roots(engine, cwd=cwd)
    found = {root: discover(root) for root in roots}
    total = sum(len(files) for files in found.values())
    report = IndexReport()
    counter = [0]
    for root in roots:
        scan_root(engine.db, root, names, report, progress, counter, total)
    project = _project_root(cwd)
    return {
        "docs_only": project is None,
        "project_root": str(project) if project else None,
        "namespaces": _namespaces(engine, project),
        "roots": [r.to_dict() | {"exists": r.path.is_dir()} for r in roots],
        **report.to_dict(),
    }


def reindex_paths(
    engine: Engine,
    paths: Iterable[Path | str],
    *,
    cwd: Path | None = None,
    evergreen: Iterable[str] = DEFAULT_EVERGREEN,
) -> dict[str, Any]:
    """Bring the index up to date for changed paths (the watcher's entry point).

    A changed file that a root indexes is re-indexed; anything else under a root (a deletion,
    a folder event) rescans that root, which drops what is gone.
    """
    names = frozenset(evergreen)
    roots = doc_roots(engine, cwd=cwd)
    report = IndexReport()
    rescan: list[DocRoot] = []
    for raw in paths:
        path = Path(raw)
        for root in roots:
            if root.path != path and root.path not in path.parents:
                continue
            if path.is_file() and relative_to_root(root, path) is not None:
                index_file(engine.db, root, path, names, report)
            elif root not in rescan:
                rescan.append(root)
    for root in rescan:
        scan_root(engine.db, root, names, report)
    return report.to_dict()


# ---- folders ----------------------------------------------------------------------------------


def _folder_path(folder: Path | str) -> Path:
    if not isinstance(folder, str | Path) or not str(folder).strip():
        raise InvalidInput("give a folder, e.g. memlode docs add ./docs")
    if "\0" in str(folder):
        raise InvalidInput("a folder path cannot contain a NUL character")
    return Path(str(folder).strip()).expanduser().resolve()


def add_folder(
    engine: Engine,
    folder: Path | str,
    *,
    cwd: Path | None = None,
    global_: bool = False,
    index: bool = True,
) -> dict[str, Any]:
    """Add a folder of markdown docs (into the project's namespace, or ``global``) and index it."""
    path = _folder_path(folder)
    if not path.is_dir():
        raise InvalidInput(f"{folder} is not a folder; give an existing folder of markdown files")
    if path == path.parent:
        raise InvalidInput("refusing to index the whole file system; give a folder of docs")
    project = _project_root(cwd)
    ns = GLOBAL_NAMESPACE if global_ or project is None else _project_namespace(engine)
    with engine.db.write() as conn:
        added = folder_repo.add_folder(conn, str(path), ns, format_ts(utcnow()))
    out: dict[str, Any] = {"path": str(path), "namespace": ns, "added": added}
    if index:
        report = IndexReport()
        scan_root(engine.db, DocRoot(path, ns, "folder", False), DEFAULT_EVERGREEN, report)
        out["index"] = report.to_dict()
    return out


def remove_folder(engine: Engine, folder: Path | str) -> dict[str, Any]:
    """Forget an added folder (in every namespace it was added to) and drop its chunks."""
    path = _folder_path(folder)
    namespaces = folder_repo.folder_namespaces(engine.conn, str(path))
    if not namespaces:
        raise NotFound(f"{path} is not an added folder; see memlode docs list")
    removed_files = removed_chunks = 0
    with engine.db.write() as conn:
        for ns in namespaces:
            ids = folder_repo.folder_file_ids(conn, str(path), ns)
            for file_id in ids:
                removed_chunks += drop_file(conn, file_id)
            removed_files += len(ids)
        folder_repo.remove_folder(conn, str(path))
    return {
        "path": str(path),
        "namespaces": namespaces,
        "files_removed": removed_files,
        "chunks_removed": removed_chunks,
    }


def list_folders(engine: Engine) -> list[dict[str, Any]]:
    rows = folder_repo.folders_with_counts(engine.conn)
    return [
        {
            "path": r[0],
            "namespace": r[1],
            "added_at": r[2],
            "exists": Path(r[0]).is_dir(),
            "files": r[3],
            "chunks": r[4],
        }
        for r in rows
    ]


def docs_status(engine: Engine, *, cwd: Path | None = None) -> dict[str, Any]:
    """What is indexed from ``cwd`` and whether memlode runs in docs-only mode."""
    project = _project_root(cwd)
    roots: list[dict[str, Any]] = []
    lasts: list[str] = []
    for root in doc_roots(engine, cwd=cwd):
        files, chunks, last = folder_repo.root_counts(engine.conn, str(root.path), root.namespace)
        roots.append(
            root.to_dict()
            | {"exists": root.path.is_dir(), "files": files, "chunks": chunks, "last": last}
        )
        if last:
            lasts.append(last)
    return {
        "docs_only": project is None,
        "project_root": str(project) if project else None,
        "namespace": _project_namespace(engine) if project else GLOBAL_NAMESPACE,
        "namespaces": _namespaces(engine, project),
        "global_root": str(_global_root(engine)),
        "roots": roots,
        "files": sum(int(r["files"]) for r in roots),
        "chunks": sum(int(r["chunks"]) for r in roots),
        "last_indexed_at": max(lasts, default=None),
    }


# ---- memory files -----------------------------------------------------------------------------


def _memory_root(engine: Engine, ref: str, cwd: Path | None) -> tuple[DocRoot, str]:
    """The root a memory-file reference points into, and the path within it."""
    if not isinstance(ref, str):
        raise InvalidInput("a memory file path must be text, e.g. MEMORY.md")
    text = ref.strip()
    project = _project_root(cwd)
    if text.startswith("global/") or project is None:
        rel = text.removeprefix("global/") if text.startswith("global/") else text
        return DocRoot(_global_root(engine), GLOBAL_NAMESPACE, "global", True), rel
    return DocRoot(project, _project_namespace(engine), "project", True), text


def memory_get(engine: Engine, path: str, *, cwd: Path | None = None) -> dict[str, Any]:
    """A whole memory file: ``MEMORY.md``, ``memory/x.md``, ``global/SOUL.md``, ..."""
    root, rel = _memory_root(engine, path, cwd)
    real = resolve_memory_path(root.path, rel)
    try:
        data = real.read_bytes()
        mtime = real.stat().st_mtime
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    return {
        "ref": display_path(root, rel.removeprefix("./")),
        "path": str(real),
        "scope": root.scope,
        "namespace": root.namespace,
        "content": data.decode("utf-8", errors="replace").lstrip("\ufeff"),
        "bytes": len(data),
        "modified_at": mtime_ts(mtime),
    }


def _hit_dict(hit: SearchHit) -> dict[str, Any]:
    memory = hit.memory
    meta = memory.metadata
    return {
        "id": memory.id,
        "ref": meta.get("ref"),
        "path": meta.get("path"),
        "file": meta.get("file"),
        "scope": meta.get("scope"),
        "namespace": memory.namespace,
        "headings": meta.get("headings", []),
        "chunk": meta.get("chunk"),
        "lines": meta.get("lines"),
        "evergreen": meta.get("evergreen", False),
        "score": round(float(hit.score), 6),
        "text": memory.content,
    }


def memory_search(
    engine: Engine, query: str, k: int = 5, *, cwd: Path | None = None
) -> dict[str, Any]:
    """Search memory files and docs only (the project's namespace and ``global``)."""
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 100:
        raise InvalidInput("k must be a whole number between 1 and 100")
    project = _project_root(cwd)
    namespaces = _namespaces(engine, project)
    hits: list[SearchHit] = []
    for ns in namespaces:
        hits += engine.search(query, k, namespace=ns, sources=(DOC_SOURCE,))
    hits.sort(key=lambda h: -h.score)
    return {
        "query": query,
        "docs_only": project is None,
        "namespaces": namespaces,
        "results": [_hit_dict(h) for h in hits[:k]],
    }


def _write_note(path: Path, text: str, mode: str, *, private: bool) -> None:
    """Append to or replace a memory file. ``private``: it is under memlode's home (0600);
    otherwise it is the user's project file and gets the user's umask (or keeps its mode)."""
    new_mode = FILE_MODE if private else 0o644
    body = text if text.endswith("\n") else text + "\n"
    if mode == "append":
        try:
            existing = path.read_bytes()
        except FileNotFoundError:
            existing = b""
        if existing:
            body = ("\n" if existing.endswith(b"\n") else "\n\n") + body
            if existing.endswith(b"\n\n"):
                body = body[1:]
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, new_mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(body)
        return
    try:  # a replaced file keeps its permissions (a private one no looser than 0600)
        kept: int | None = stat.S_IMODE(path.stat().st_mode) & (FILE_MODE if private else 0o777)
    except FileNotFoundError:
        kept = None
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(tmp, flags, new_mode)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(body)
    if kept is not None:
        os.chmod(tmp, kept)
    os.replace(tmp, path)


def memory_store(
    engine: Engine,
    name: str,
    text: str,
    *,
    mode: str = "append",
    scope: str | None = None,
    cwd: Path | None = None,
) -> dict[str, Any]:
    """Append to (or with ``mode='write'`` replace) a memory file and index it at once.

    ``name`` is a note ('auth' -> ``memory/auth.md``) or one of ``MEMORY.md``, ``SOUL.md``,
    ``USER.md``. ``scope`` is ``project`` (the default in a project) or ``global``.

    The text is redacted before it is written (``memlode.redact``): a project's memory files
    are often committed, so no secret memlode is asked to store may land in one. This is the
    one writer of memory files (the CLI's ``memory store``, the MCP tool, compaction
    summaries); what a user writes into them by hand is redacted when indexed.
    """
    if mode not in ("append", "write"):
        raise InvalidInput("mode must be 'append' or 'write'")
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("nothing to store; give the text of the note")
    if len(text) > MAX_FILE_BYTES // 2:
        raise InvalidInput(f"a note is at most {MAX_FILE_BYTES // 2} characters; split it")
    if scope not in (None, "project", "global"):
        raise InvalidInput("scope must be 'project' or 'global'")
    bare = name.strip() if isinstance(name, str) else name
    root_file = next(
        (f for f in ROOT_FILES if isinstance(bare, str) and bare in (f, f.removesuffix(".md"))),
        None,
    )
    rel = root_file or f"memory/{note_name(name)}"
    project = _project_root(cwd)
    if scope == "global" or project is None:
        if scope == "project":
            raise InvalidInput("no project here (docs-only mode); store with scope 'global'")
        root = DocRoot(_global_root(engine), GLOBAL_NAMESPACE, "global", True)
    else:
        root = DocRoot(project, _project_namespace(engine), "project", True)
    private = root.scope == "global"  # under memlode's home: owner-only
    folder_mode = DIR_MODE if private else 0o777  # (the umask applies to the user's folders)
    root.path.mkdir(mode=folder_mode, parents=True, exist_ok=True)
    target = resolve_memory_path(root.path, rel, must_exist=False)
    target.parent.mkdir(mode=folder_mode, exist_ok=True)
    target = resolve_memory_path(root.path, rel, must_exist=False)
    _write_note(target, redact(text), mode, private=private)
    report = IndexReport()
    index_file(engine.db, root, root.path / rel, DEFAULT_EVERGREEN, report)
    return {
        "ref": display_path(root, rel),
        "path": str(target),
        "scope": root.scope,
        "namespace": root.namespace,
        "mode": mode,
        "bytes": target.stat().st_size,
        "chunks_added": report.chunks_added,
        "chunks_removed": report.chunks_removed,
    }


def append_compaction_summary(
    engine: Engine,
    summary: str,
    *,
    session_id: str | None = None,
    when: datetime | None = None,
    cwd: Path | None = None,
) -> dict[str, Any]:
    """Append a compaction summary to MEMORY.md under a dated heading, and index it."""
    if not isinstance(summary, str) or not summary.strip():
        raise InvalidInput("the compaction summary is empty")
    stamp = (when or utcnow()).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"## Compaction summary, {stamp}", ""]
    if session_id:
        lines += [f"Session: {session_id}", ""]
    lines.append(summary.strip())
    return memory_store(engine, "MEMORY.md", "\n".join(lines), mode="append", cwd=cwd)
