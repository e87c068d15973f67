"""Indexing memory files and docs into the store: one file at a time, atomically.

A file's record (``doc_files``) keeps the hash of its bytes plus the chunker settings, so an
unchanged file is skipped without chunking. A changed file is re-chunked and, in one
transaction, its record updated, its new chunks inserted and the chunks it no longer has
deleted. Chunks are memories (``source='doc'``); ``doc_chunks`` links a file to its memories,
because dedup can make two files share one memory: a memory goes only when no file links it.
A chunk whose text did not change keeps its id, its age and its embedding.

Each chunk's text starts with a breadcrumb line (``memory/auth.md > Auth > Tokens``) so that
search and the injected context say where it comes from; its metadata carries ``path``,
``root``, ``scope``, ``file``, ``chunk``, ``chunks``, ``headings``, ``lines``, ``evergreen`` and,
for memory files, ``ref``. ``created_at`` is the file's modification time when the text first
appeared.

L2: storage and sources only; the engine-level service is ``memlode.engine.docs``.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.errors import InvalidInput
from memlode.sources.docfiles import DocRoot, discover, relative_to_root
from memlode.sources.markdown import (
    CHUNKER_VERSION,
    DEFAULT_OVERLAP_WORDS,
    DEFAULT_TARGET_WORDS,
    chunk_markdown,
)
from memlode.storage import doc_files
from memlode.storage import memories as memory_repo
from memlode.storage.values import NewMemory
from memlode.types import format_ts, utcnow

if TYPE_CHECKING:
    from memlode.storage.store import Store

__all__ = [
    "DOC_SOURCE",
    "MAX_FILE_BYTES",
    "IndexReport",
    "Progress",
    "display_path",
    "drop_file",
    "fingerprint",
    "index_file",
    "mtime_ts",
    "scan_root",
]

log = logging.getLogger(__name__)

DOC_SOURCE = "doc"
# Bigger files are skipped with a warning: they are data, not notes.
MAX_FILE_BYTES = 2_000_000

Progress = Callable[[int, int, str], None]


@dataclass(slots=True)
class IndexReport:
    files: int = 0
    indexed: int = 0
    skipped: int = 0
    removed: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "indexed": self.indexed,
            "skipped": self.skipped,
            "removed": self.removed,
            "chunks_added": self.chunks_added,
            "chunks_removed": self.chunks_removed,
            "errors": list(self.errors),
        }


def fingerprint(data: bytes, evergreen: frozenset[str]) -> str:
    """Content hash plus everything that shapes the chunks, so a settings change re-indexes."""
    digest = hashlib.sha256(data)
    settings = f"v{CHUNKER_VERSION};{DEFAULT_TARGET_WORDS};{DEFAULT_OVERLAP_WORDS};"
    digest.update(("\0" + settings + ",".join(sorted(evergreen))).encode())
    return digest.hexdigest()


def mtime_ts(mtime: float) -> str:
    return format_ts(datetime.fromtimestamp(mtime, UTC))


def display_path(root: DocRoot, rel: str) -> str:
    return f"{root.label}/{rel}" if root.label else rel


def drop_file(conn: sqlite3.Connection, file_id: int) -> int:
    """Delete a file's record and the chunk memories no other file links; the number deleted."""
    ids = doc_files.chunk_memory_ids(conn, file_id)
    doc_files.remove_file(conn, file_id)
    return _delete_orphans(conn, ids)


def _delete_orphans(conn: sqlite3.Connection, ids: Iterable[str]) -> int:
    orphans = [mid for mid in dict.fromkeys(ids) if not doc_files.is_chunk(conn, mid)]
    return memory_repo.delete(conn, orphans)


def index_file(
    db: Store, root: DocRoot, path: Path, evergreen: frozenset[str], report: IndexReport
) -> None:
    """Index one file of ``root``: skipped if unchanged, else its chunks replaced atomically."""
    rel = relative_to_root(root, path)
    if rel is None:
        return
    report.files += 1
    try:
        info = path.stat()
        if info.st_size > MAX_FILE_BYTES:
            raise InvalidInput(f"larger than {MAX_FILE_BYTES // 1_000_000} MB; skipped")
        data = path.read_bytes()
    except (OSError, InvalidInput) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        report.errors.append({"path": str(path), "error": str(reason)})
        log.warning("cannot index %s: %s", path, reason)
        return
    digest = fingerprint(data, evergreen)
    ns = root.namespace
    row = doc_files.file_row(db.conn, ns, str(path))
    if row is not None and row[1] == digest:
        report.skipped += 1
        return
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    mtime = mtime_ts(info.st_mtime)
    news = _chunk_memories(root, path, rel, text, mtime, evergreen)
    record = (str(root.path), root.scope, digest, mtime, info.st_size, len(news))
    if _store_file(db, ns, str(path), record, news, report):
        report.indexed += 1


def _chunk_memories(
    root: DocRoot, path: Path, rel: str, text: str, mtime: str, evergreen: frozenset[str]
) -> list[NewMemory]:
    """The file's chunks as memories: a breadcrumb of path and headings, then the text."""
    chunks = chunk_markdown(text)
    is_evergreen = path.name in evergreen
    display = display_path(root, rel)
    news = []
    for chunk in chunks:
        metadata: dict[str, Any] = {
            "path": rel,
            "root": str(root.path),
            "scope": root.scope,
            "file": str(path),
            "chunk": chunk.index,
            "chunks": len(chunks),
            "headings": list(chunk.headings),
            "lines": [chunk.start_line, chunk.end_line],
            "evergreen": is_evergreen,
        }
        if root.memory_only:
            metadata["ref"] = display
        crumb = " > ".join([display, *chunk.headings])
        news.append(
            NewMemory(
                content=f"{crumb}\n\n{chunk.text}",
                metadata=metadata,
                namespace=root.namespace,
                source=DOC_SOURCE,
                created_at=mtime,
            )
        )
    return news


def _store_file(
    db: Store,
    ns: str,
    path: str,
    record: tuple[str, str, str, str, int, int],
    news: list[NewMemory],
    report: IndexReport,
) -> bool:
    """Replace the file's record and chunks in one transaction; False when another process
    indexed the same content first. ``record``: (root, scope, hash, mtime, size, chunks)."""
    digest = record[2]
    values = (*record, format_ts(utcnow()))
    with db.write() as conn:
        row = doc_files.file_row(conn, ns, path)
        if row is not None and row[1] == digest:  # another process got there first
            report.skipped += 1
            return False
        if row is None:
            file_id = doc_files.insert_file(conn, values, ns, path)
            old: list[str] = []
        else:
            file_id = row[0]
            doc_files.update_file(conn, file_id, values)
            old = doc_files.chunk_memory_ids(conn, file_id)
            doc_files.clear_chunks(conn, file_id)
        kept: set[str] = set()
        for index, new in enumerate(news):
            memory_id, created = memory_repo.insert(conn, new)
            if created:
                report.chunks_added += 1
                doc_files.reset_updated_at(conn, memory_id)
            elif not doc_files.is_chunk(conn, memory_id):
                # Unchanged text of this file (or an unowned doc memory): new position, old age.
                memory_repo.set_metadata(conn, memory_id, new.metadata)
            kept.add(memory_id)
            doc_files.link_chunk(conn, file_id, index, memory_id)
        report.chunks_removed += _delete_orphans(conn, [m for m in old if m not in kept])
    return True


def scan_root(
    db: Store,
    root: DocRoot,
    evergreen: frozenset[str],
    report: IndexReport,
    progress: Progress | None = None,
    counter: list[int] | None = None,
    total: int = 0,
) -> None:
    files = discover(root)
    present = {str(p) for p in files}
    for path in files:
        index_file(db, root, path, evergreen, report)
        if progress is not None and counter is not None:
            counter[0] += 1
            progress(counter[0], total, str(path))
    stale = [
        (r[0], r[1])
        for r in doc_files.files_of_root(db.conn, str(root.path), root.namespace)
        if r[1] not in present
    ]
    for file_id, _ in stale:
        with db.write() as conn:
            report.chunks_removed += drop_file(conn, file_id)
        report.removed += 1
