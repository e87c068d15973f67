"""Redaction of rows already stored: what ``memlode doctor --repair`` runs so that text written
before a redaction rule existed (or before it improved) loses its secrets too.

Every column ``memlode.storage.text_columns.USER_TEXT`` lists as "text" or "json" is read back,
passed through the same ``scrub`` functions a write uses, and written again only where that
changed it; what is derived from a changed column is made again from the redacted value:

- a memory's content hash (the dedup key) and extra search terms; its FTS row follows by the
  table's triggers; its vector and token states are dropped, so the embedder makes them again
  from the redacted text; the conversation context kept beside a turn (``context_near`` /
  ``context_far``, copies of neighbouring turns) is redacted as text;
- the repo map kept for SessionStart (``store_settings``' ``session_map:`` rows, rendered from
  code symbols) is redacted as text;
- a code symbol's text for semantic search: a changed row loses its vector (``dim`` and
  ``vector`` are made again by the next embedding pass, keyed by the new text hash).

A memory whose redacted content equals another memory's of the same namespace and source (two
rows that differed only in a secret) keeps its row: its hash is made distinct from its id, so
nothing stored is lost and the UNIQUE constraint holds. ``redact`` is idempotent, so a second
run finds nothing to change. Works on both backends (``?`` placeholders, JSON read as text or
as already decoded values).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memlode.redact import redact_value
from memlode.storage import scrub
from memlode.storage.briefing import SESSION_MAP_KEY
from memlode.storage.capture import index_terms
from memlode.textutil import content_hash

if TYPE_CHECKING:
    from memlode.storage.db import Database
    from memlode.storage.sql import Connection

__all__ = [
    "CODE_COLUMNS",
    "COLUMNS",
    "doc_roots",
    "purge_sqlite",
    "rescrub_code",
    "rescrub_memories",
    "rescrub_session_maps",
    "rescrub_table",
]

# Rows read per query: bounded memory on a store of any size.
_BATCH = 500

# The tables besides ``memories`` whose user text is redacted again, each with its key column
# and its columns by kind (``text_columns.USER_TEXT``; "derived" columns are made from these).
COLUMNS: dict[str, tuple[str, dict[str, str]]] = {
    "sessions": ("id", {"summary": "text", "metadata": "json"}),
    "graph_nodes": ("id", {"name": "text", "properties": "json"}),
    "graph_edges": ("id", {"properties": "json"}),
    "consolidation_log": ("id", {"details": "json"}),
    # copies of memories and edges rows: every string in them redacted
    "memory_archive": ("memory_id", {"memory": "json", "edges": "json"}),
}
CODE_COLUMNS: dict[str, tuple[str, dict[str, str]]] = {
    "code_symbols": ("id", {"signature": "text", "doc": "text", "properties": "json"}),
    "code_packages": ("node_id", {"version": "text"}),
}


def _json(value: Any) -> Any:
    """A JSON column's value decoded (SQLite gives text, PostgreSQL's jsonb a value)."""
    if isinstance(value, str | bytes):
        try:
            return json.loads(value)
        except ValueError:
            return None  # unreadable: listed by row_checks, never changed here
    return value


def _redacted_json(value: Any, *, tags: bool = False) -> tuple[str, bool] | None:
    """The column's value redacted, as JSON text, and whether it changed (None: unreadable)."""
    data = _json(value)
    if data is None and value is not None:
        return None
    if tags and isinstance(data, list):
        new: Any = scrub.tags(str(t) for t in data)
    elif isinstance(data, dict):
        new = scrub.mapping(data)
    else:
        new = redact_value(data)
    return json.dumps(new, ensure_ascii=False, sort_keys=isinstance(data, dict)), new != data


def rescrub_table(conn: Connection, table: str, spec: tuple[str, dict[str, str]]) -> int:
    """Redact again one table's user text; the number of rows changed."""
    key, columns = spec
    names = list(columns)
    changed = 0
    last: Any = None
    while True:
        where, params = ("", []) if last is None else (f" WHERE {key} > ?", [last])
        rows = conn.execute(
            f"SELECT {key}, {', '.join(names)} FROM {table}{where} ORDER BY {key} LIMIT {_BATCH}",
            params,
        ).fetchall()
        if not rows:
            return changed
        for row in rows:
            last = row[0]
            sets: list[str] = []
            values: list[object] = []
            for i, name in enumerate(names, start=1):
                value = row[i]
                if value is None:
                    continue
                if columns[name] == "text":
                    new = scrub.text(str(value))
                    if new != value:
                        sets.append(f"{name} = ?")
                        values.append(new)
                    continue
                redone = _redacted_json(value)
                if redone is not None and redone[1]:
                    sets.append(f"{name} = ?")
                    values.append(redone[0])
            if sets:
                conn.execute(
                    f"UPDATE {table} SET {', '.join(sets)} WHERE {key} = ?", [*values, row[0]]
                )
                changed += 1


def rescrub_memories(conn: Connection) -> dict[str, Any]:
    """Redact again every memory's content, tags, metadata and conversation context; the
    changed rows' ids by source, and how many kept a hash of their own (see the docstring)."""
    changed: dict[str, list[str]] = {}
    distinct = 0
    last = ""
    while True:
        rows = conn.execute(
            "SELECT id, content, tags, metadata, context_near, context_far, namespace, source,"
            f" created_at FROM memories WHERE id > ? ORDER BY id LIMIT {_BATCH}",
            (last,),
        ).fetchall()
        if not rows:
            break
        for row in rows:
            memory_id, content, tags, metadata, near, far, namespace, source, created = row
            last = memory_id
            sets: list[str] = []
            values: list[object] = []
            new_content = scrub.text(content or "")
            if new_content != (content or ""):
                digest = content_hash(new_content)
                taken = conn.execute(
                    "SELECT id FROM memories WHERE namespace = ? AND source = ?"
                    " AND content_hash = ? AND id <> ?",
                    (namespace, source, digest, memory_id),
                ).fetchone()
                if taken is not None:
                    digest = content_hash(f"{new_content}\x00{memory_id}")
                    distinct += 1
                sets += ["content = ?", "content_hash = ?", "search_terms = ?"]
                values += [new_content, digest, index_terms(new_content, source, created)]
            for name, value in (("context_near", near), ("context_far", far)):
                if value:
                    new = scrub.text(value)
                    if new != value:
                        sets.append(f"{name} = ?")
                        values.append(new)
            for name, value, is_tags in (("tags", tags, True), ("metadata", metadata, False)):
                redone = _redacted_json(value, tags=is_tags)
                if redone is not None and redone[1]:
                    sets.append(f"{name} = ?")
                    values.append(redone[0])
            if not sets:
                continue
            conn.execute(f"UPDATE memories SET {', '.join(sets)} WHERE id = ?", [*values, row[0]])
            changed.setdefault(str(source), []).append(memory_id)
    ids = [i for group in changed.values() for i in group]
    for start in range(0, len(ids), _BATCH):  # their vectors are made again from the new text
        chunk = ids[start : start + _BATCH]
        marks = ",".join("?" * len(chunk))
        conn.execute(f"DELETE FROM memory_embeddings WHERE memory_id IN ({marks})", chunk)
        conn.execute(f"DELETE FROM memory_tokens WHERE memory_id IN ({marks})", chunk)
    return {"by_source": {s: len(v) for s, v in sorted(changed.items())}, "distinct": distinct}


def rescrub_code(conn: Connection) -> dict[str, int]:
    """Redact again the code index's stored texts (a code index database: the store itself
    on SQLite, the machine's local file for a team store); rows changed per table. A symbol
    text that changes loses its row, which the next embedding pass makes again."""
    out = {table: rescrub_table(conn, table, spec) for table, spec in CODE_COLUMNS.items()}
    dropped = 0
    last = 0
    while True:
        rows = conn.execute(
            f"SELECT id, text FROM code_symbol_vectors WHERE id > ? ORDER BY id LIMIT {_BATCH}",
            (last,),
        ).fetchall()
        if not rows:
            break
        stale = [row[0] for row in rows if scrub.text(row[1] or "") != (row[1] or "")]
        last = rows[-1][0]
        if stale:
            marks = ",".join("?" * len(stale))
            conn.execute(f"DELETE FROM code_symbol_vectors WHERE id IN ({marks})", stale)
            dropped += len(stale)
    out["code_symbol_vectors"] = dropped
    return out


def rescrub_session_maps(conn: Connection) -> int:
    """Redact again the repo maps kept for SessionStart; the number changed."""
    prefix = SESSION_MAP_KEY.split("{", 1)[0]
    rows = conn.execute(
        "SELECT key, value FROM store_settings WHERE key >= ? AND key < ?",
        (prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)),
    ).fetchall()
    changed = 0
    for key, value in rows:
        new = scrub.text(value or "")
        if new != (value or ""):
            conn.execute("UPDATE store_settings SET value = ? WHERE key = ?", (new, key))
            changed += 1
    return changed


def doc_roots(conn: Connection) -> list[str]:
    """The roots whose memory files and docs the store indexed."""
    return [str(row[0]) for row in conn.execute("SELECT DISTINCT root FROM doc_files")]


# The FTS5 indexes of a SQLite store, each over its content table: their segments keep a
# deleted row's tokens until rebuilt.
_SQLITE_FTS = ("memories_fts", "code_symbols_fts", "code_symbol_texts_fts")


def purge_sqlite(db: Database) -> dict[str, Any]:
    """Make the old text leave a SQLite file: rebuild its FTS indexes, overwrite freed pages
    and compact the file (``VACUUM``), then checkpoint and truncate the WAL, whose frames still
    hold the pages as they were. What each step did (the checkpoint may be refused while
    another process reads: it then runs at that process's next checkpoint)."""
    conn = db.conn
    conn.execute("PRAGMA secure_delete = ON")
    with db.write() as c:
        present = {
            str(r[0])
            for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        }
        rebuilt = [t for t in _SQLITE_FTS if t in present]
        for table in rebuilt:
            c.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")
    conn.execute("VACUUM")
    busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return {"fts_rebuilt": rebuilt, "vacuumed": True, "wal_truncated": not busy}
