"""Redact again what an older memlode stored: the part of ``memlode doctor --repair`` that runs
on both backends.

- rows of the store (``memlode.storage.rescrub``): memories (content, tags, metadata, with
  their hash, search terms and conversation context made again, their vectors dropped to be
  made again), transcript turns among them, sessions, the memory graph, the consolidation log,
  archived memories and the repo maps kept for SessionStart;
- the code index (the store itself on SQLite, this machine's file for a team store): symbol
  signatures, docstrings and properties, package versions, the texts embedded for semantic
  search;
- the memory files memlode writes into (``MEMORY.md``, ``SOUL.md``, ``USER.md``,
  ``memory/*.md`` of every root the store indexed, and the global root under memlode's home):
  the only files ``memlode memory store``, the MCP ``memory_store`` tool and compaction
  summaries write. memlode keeps no record of which lines it appended, so in these files only
  a secret's own characters are replaced; every other byte stays, and a ``<private>`` region
  (the user's, never indexed) is left whole.

On SQLite the old text must also leave the file itself: the FTS indexes are rebuilt (their
segments still held the deleted tokens), freed pages are overwritten (``secure_delete``,
``VACUUM``) and the WAL is checkpointed and truncated. ``redact`` is idempotent, so a second
run changes nothing.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.redact import PRIVATE_MARK, redact
from memlode.sources.pathguard import MEMORY_DIR, ROOT_FILES, is_memory_file
from memlode.storage import rescrub as rows
from memlode.storage.db import Database

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["rescrub", "rescrub_file_text"]

log = logging.getLogger(__name__)

_OPEN, _CLOSE = "<private>", "</private>"


def rescrub_file_text(text: str) -> str:
    """A memory file's text with its secrets replaced and nothing else changed: the parts
    outside ``<private>`` regions are redacted, the regions themselves kept as written."""
    out: list[str] = []
    rest = text
    while rest:
        start = rest.lower().find(_OPEN)
        if start < 0:
            out.append(_secrets_only(rest))
            break
        end = rest.lower().find(_CLOSE, start)
        stop = len(rest) if end < 0 else end + len(_CLOSE)
        out.append(_secrets_only(rest[:start]))
        out.append(rest[start:stop])
        rest = rest[stop:]
    return "".join(out)


def _secrets_only(text: str) -> str:
    redacted = redact(text)
    return text if PRIVATE_MARK in redacted else redacted


def _memory_files(engine: Engine) -> list[Path]:
    """Every memory file memlode may have written: the four shapes under each indexed root."""
    roots = {Path(root) for root in rows.doc_roots(engine.conn)}
    roots.add((engine.settings.home / "global").expanduser())
    found: set[Path] = set()
    for root in roots:
        candidates = [root / name for name in ROOT_FILES]
        notes = root / MEMORY_DIR
        if notes.is_dir():
            candidates += sorted(notes.glob("*.md"))
        for path in candidates:
            relative = path.relative_to(root).as_posix()
            if is_memory_file(relative) and path.is_file() and not path.is_symlink():
                found.add(path)
    return sorted(found)


def _rewrite(path: Path, text: str) -> None:
    """Replace a file's text in place of it (same permissions), atomically."""
    mode = path.stat().st_mode & 0o777
    tmp = path.with_name(f".{path.name}.{os.getpid()}.rescrub")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), mode)
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(tmp, mode)
    os.replace(tmp, path)


def _rescrub_files(engine: Engine) -> list[str]:
    changed: list[str] = []
    for path in _memory_files(engine):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            log.warning("rescrub: cannot read %s: %s", path, exc)
            continue
        new = rescrub_file_text(text)
        if new != text:
            _rewrite(path, new)
            changed.append(str(path))
    return changed


def rescrub(engine: Engine) -> dict[str, Any]:
    """Redact again every stored text and memlode-written memory file; counts per kind."""
    with engine.db.write() as conn:
        memories = rows.rescrub_memories(conn)
        tables = {t: rows.rescrub_table(conn, t, spec) for t, spec in rows.COLUMNS.items()}
        maps = rows.rescrub_session_maps(conn)
    code_db = engine.code_db
    with code_db.write() as conn:
        code = rows.rescrub_code(conn)
    files = _rescrub_files(engine)
    by_source = memories["by_source"]
    report: dict[str, Any] = {
        "memories": sum(by_source.values()),
        "memories_by_source": by_source,
        "transcript_turns": by_source.get("transcript", 0),
        "memories_kept_distinct": memories["distinct"],
        **tables,
        "session_maps": maps,
        **code,
        "memory_files": len(files),
        "memory_file_paths": files,
    }
    changed = report["memories"] + sum(tables.values()) + maps + sum(code.values()) + len(files)
    report["changed"] = changed
    if changed:
        purged: dict[str, Any] = {}
        for db in {id(engine.db): engine.db, id(code_db): code_db}.values():
            if isinstance(db, Database):  # a SQLite file
                purged[str(db.display)] = rows.purge_sqlite(db)
        report["purged"] = purged
    return report
