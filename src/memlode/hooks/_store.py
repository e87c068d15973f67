"""The hooks' own narrow path into the database: open, check the schema, write a few rows.

A hook is a fresh process per tool call, so this module avoids ``memlode.storage`` and
``memlode.engine`` (they import ``dataclasses``/``inspect``, ``importlib.resources`` and
``logging``, which together cost more than the hook's real work). It writes the same rows the
storage layer writes, with the same rules:

- pragmas in the order ``busy_timeout`` -> WAL -> ``synchronous=NORMAL`` -> foreign keys;
- every write in one short ``BEGIN IMMEDIATE`` transaction, retried with jitter on SQLITE_BUSY;
- memories deduplicated on (namespace, source, SHA-256 of the content), with the same
  ``content_hash`` and ``search_terms`` as ``memlode.storage.memories.insert``;
- every text it writes (content, tags, metadata, node names and properties, session summaries
  and metadata) goes through ``memlode.storage.scrub`` first, the storage layer's one
  redaction choke point (import-light: it loads no part of the connection machinery).

It opens the database through ``_sqlite3``, the C module behind ``sqlite3``.
A missing database or pending migrations take the slow path once: ``memlode.storage.db.connect``
creates and migrates the file. ``tests/hooks/test_store_parity.py`` checks that rows written here
read back through the engine exactly like rows the engine wrote.
"""

from __future__ import annotations

import os
import time

from memlode.hooks._lean import content_hash, dumps, loads, search_terms
from memlode.storage import scrub

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence
    from typing import Any
else:
    # The C module that ``sqlite3`` wraps: the same connect, Connection and exceptions, without
    # the date/time adapters hooks never use, whose imports (datetime, collections.abc) cost a
    # hook process ~6 ms.
    try:
        import _sqlite3 as sqlite3
    except ImportError:  # pragma: no cover - an interpreter without the split module
        import sqlite3

__all__ = [
    "BUSY_TIMEOUT_MS",
    "add_edge",
    "end_session",
    "ensure_memory_node",
    "file_node_id",
    "insert_memory",
    "new_id",
    "now_ts",
    "open_db",
    "session_metadata",
    "set_session_summary",
    "start_session",
    "update_memory_content",
    "update_session_metadata",
    "upsert_file_node",
    "write",
]

BUSY_TIMEOUT_MS = 5000  # the same as memlode.storage.db
_RETRIES = 8
_MIGRATIONS_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "storage", "migrations")


def now_ts() -> str:
    """The stored timestamp format (``memlode.types.format_ts``): fixed width ISO-8601 UTC."""
    t = time.time()
    micros = int((t % 1) * 1_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{micros:06d}Z"


def new_id() -> str:
    """A random UUID4 string, without importing ``uuid`` (which imports ``platform``)."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _latest_migration() -> int:
    try:
        names = os.listdir(_MIGRATIONS_DIR)
    except OSError:
        return -1  # unknown: take the slow path, which knows
    # NNNN_name.sql (or .py), as memlode.storage.migrations names them
    versions = [
        int(n[:4])
        for n in names
        if n.endswith((".sql", ".py")) and n[:4].isdigit() and n[4:5] == "_"
    ]
    return max(versions, default=0)


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def _retry(conn: sqlite3.Connection, sql: str) -> None:
    for attempt in range(_RETRIES):
        try:
            conn.execute(sql)
            return
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc) or attempt == _RETRIES - 1:
                raise
            import random  # only on contention: not worth importing on every hook

            time.sleep(0.01 * (2**attempt) * (0.5 + random.random()))


def open_db(path: str) -> sqlite3.Connection:
    """Open the database for a hook; create or migrate it through the storage layer if needed."""
    if os.path.isfile(path) and os.path.getsize(path) > 0:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            _retry(conn, "PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            row = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
            current = int(row[0]) if row and row[0] is not None else 0
            latest = _latest_migration()
            if latest >= 0 and current >= latest:
                return conn
        except sqlite3.DatabaseError:
            pass
        conn.close()
    from memlode.storage.db import connect  # slow path: create, or apply pending migrations

    return connect(path)


class write:
    """One short ``BEGIN IMMEDIATE`` transaction, retried on busy, rolled back on error.

    A class rather than ``contextlib.contextmanager``: importing contextlib (and functools with
    it) costs a hook process a few milliseconds.
    """

    __slots__ = ("conn", "owner")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.owner = not conn.in_transaction

    def __enter__(self) -> sqlite3.Connection:
        if self.owner:
            _retry(self.conn, "BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not self.owner:
            return
        if exc_type is not None:
            if self.conn.in_transaction:  # SQLite rolls back itself after SQLITE_FULL, IOERR
                self.conn.execute("ROLLBACK")
        else:
            _retry(self.conn, "COMMIT")


# ---- memories --------------------------------------------------------------------------------


def insert_memory(
    conn: sqlite3.Connection,
    *,
    content: str,
    memory_type: str,
    importance: float,
    tags: Sequence[str],
    metadata: dict[str, Any],
    namespace: str,
    source: str,
    session_id: str | None,
) -> tuple[str, bool]:
    """Insert unless the same content exists in (namespace, source); returns (id, created)."""
    content = scrub.text(content)
    digest = content_hash(content)
    existing = conn.execute(
        "SELECT id FROM memories WHERE namespace = ? AND source = ? AND content_hash = ?",
        (namespace, source, digest),
    ).fetchone()
    if existing is not None:
        return str(existing[0]), False
    memory_id = new_id()
    now = now_ts()
    conn.execute(
        "INSERT INTO memories (id, content, memory_type, importance, confidence, content_hash,"
        " tags, metadata, namespace, source, session_id, created_at, updated_at, search_terms)"
        " VALUES (?, ?, ?, ?, 1.0, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            memory_id,
            content,
            memory_type,
            importance,
            digest,
            dumps(list(dict.fromkeys(scrub.tags(tags))), ensure_ascii=False),
            dumps(scrub.mapping(metadata), ensure_ascii=False, sort_keys=True),
            namespace,
            source,
            session_id,
            now,
            now,
            search_terms(content),
        ),
    )
    return memory_id, True


def update_memory_content(
    conn: sqlite3.Connection, memory_id: str, content: str, metadata: dict[str, Any]
) -> bool:
    """Replace a memory's text (as ``memlode.storage.memories.update`` does); drop its vector."""
    content = scrub.text(content)
    cur = conn.execute(
        "UPDATE memories SET content = ?, content_hash = ?, search_terms = ?, metadata = ?,"
        " updated_at = ? WHERE id = ?",
        (
            content,
            content_hash(content),
            search_terms(content),
            dumps(scrub.mapping(metadata), ensure_ascii=False, sort_keys=True),
            now_ts(),
            memory_id,
        ),
    )
    conn.execute("DELETE FROM memory_embeddings WHERE memory_id = ?", (memory_id,))
    return cur.rowcount > 0


# ---- graph -----------------------------------------------------------------------------------


def file_node_id(path: str) -> str:
    return "file:" + path


def ensure_memory_node(conn: sqlite3.Connection, memory_id: str, name: str, namespace: str) -> None:
    now = now_ts()
    conn.execute(
        "INSERT OR IGNORE INTO graph_nodes (id, kind, name, namespace, memory_id, created_at,"
        " updated_at) VALUES (?, 'memory', ?, ?, ?, ?, ?)",
        (memory_id, scrub.text(name[:4096])[:80], namespace, memory_id, now, now),
    )


def upsert_file_node(conn: sqlite3.Connection, path: str, namespace: str, name: str) -> str:
    """The file's node (kind ``file``, id ``file:<abs path>``); existing properties are kept."""
    node_id = file_node_id(path)
    now = now_ts()
    conn.execute(
        "INSERT INTO graph_nodes (id, kind, name, namespace, properties, created_at, updated_at)"
        " VALUES (?, 'file', ?, ?, ?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at",
        (node_id, scrub.text(name), namespace, dumps(scrub.mapping({"path": path})), now, now),
    )
    return node_id


def add_edge(
    conn: sqlite3.Connection,
    source_id: str,
    target_id: str,
    relationship: str,
    properties: dict[str, Any] | None = None,
    weight: float = 1.0,
) -> bool:
    cur = conn.execute(
        "INSERT INTO graph_edges (source_id, target_id, relationship, weight, properties,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (source_id, target_id, relationship) DO NOTHING",
        (
            source_id,
            target_id,
            relationship,
            weight,
            dumps(scrub.mapping(properties), sort_keys=True),
            now_ts(),
        ),
    )
    return cur.rowcount > 0


# ---- sessions --------------------------------------------------------------------------------


def start_session(
    conn: sqlite3.Connection,
    session_id: str,
    namespace: str,
    source: str,
    metadata: dict[str, Any] | None = None,
) -> bool:
    """Start or resume (clear ``ended_at``) a session, merging ``metadata``; True when new."""
    metadata = scrub.mapping(metadata) if metadata else None
    cur = conn.execute(
        "INSERT OR IGNORE INTO sessions (id, namespace, source, started_at, metadata)"
        " VALUES (?, ?, ?, ?, ?)",
        (session_id, namespace, source, now_ts(), dumps(metadata or {}, sort_keys=True)),
    )
    if cur.rowcount > 0:
        return True
    if metadata:
        conn.execute(
            "UPDATE sessions SET ended_at = NULL, metadata = json_patch(metadata, ?) WHERE id = ?",
            (dumps(metadata, sort_keys=True), session_id),
        )
    else:
        conn.execute(
            "UPDATE sessions SET ended_at = NULL WHERE id = ? AND ended_at IS NOT NULL",
            (session_id,),
        )
    return False


def end_session(conn: sqlite3.Connection, session_id: str, summary: str | None) -> bool:
    cur = conn.execute(
        "UPDATE sessions SET ended_at = ?, summary = COALESCE(?, summary) WHERE id = ?",
        (now_ts(), scrub.optional_text(summary), session_id),
    )
    return cur.rowcount > 0


def set_session_summary(conn: sqlite3.Connection, session_id: str, summary: str) -> bool:
    cur = conn.execute(
        "UPDATE sessions SET summary = ? WHERE id = ?", (scrub.text(summary), session_id)
    )
    return cur.rowcount > 0


def session_metadata(conn: sqlite3.Connection, session_id: str) -> dict[str, Any] | None:
    row = conn.execute("SELECT metadata FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if row is None:
        return None
    try:
        value = loads(row[0])
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def update_session_metadata(
    conn: sqlite3.Connection, session_id: str, changes: dict[str, Any]
) -> None:
    """Set top-level keys of the session's metadata (each value replaced whole)."""
    for key, value in scrub.mapping(changes).items():
        conn.execute(
            "UPDATE sessions SET metadata = json_set(metadata, ?, json(?)) WHERE id = ?",
            ('$."' + key.replace('"', "") + '"', dumps(value, sort_keys=True), session_id),
        )


# Observations met again in a session (stored first by another one), newest last.
MAX_SEEN = 400


def seen_update(
    conn: sqlite3.Connection, session_meta: dict[str, Any], session_id: str, memory_id: str
) -> list[str] | None:
    """The session's new ``seen`` list if ``memory_id`` belongs to another session."""
    row = conn.execute("SELECT session_id FROM memories WHERE id = ?", (memory_id,)).fetchone()
    if row is None or row[0] == session_id:
        return None
    seen = session_meta.get("seen")
    seen = [s for s in seen if isinstance(s, str)] if isinstance(seen, list) else []
    if memory_id in seen:
        return None
    return [*seen, memory_id][-MAX_SEEN:]


def remember_seen(conn: sqlite3.Connection, session_id: str, memory_id: str) -> None:
    """Note in the session that ``memory_id`` (stored by another session) was met again."""
    meta = session_metadata(conn, session_id) or {}
    seen = seen_update(conn, meta, session_id, memory_id)
    if seen is not None:
        update_session_metadata(conn, session_id, {"seen": seen})
