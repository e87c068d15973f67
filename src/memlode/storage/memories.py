"""The ``memories`` table: insert with dedup, fetch, update, delete, filter.

Functions take a connection of either backend (``sqlite3.Connection``, PostgreSQL's
``PgConnection``; ``memlode.storage.sql``) so that callers compose several of them in one
transaction (``Database.write()``). Validation of user input happens in the engine; this layer
trusts its arguments and enforces only what the database enforces. Every text it writes (content,
tags, metadata) goes through ``memlode.storage.scrub`` first, and the content hash and search
terms are computed from the redacted content.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memlode.storage import capture, scrub
from memlode.storage.capture import GLOBAL_NAMESPACE, index_terms
from memlode.storage.sql import SQLITE, Dialect, dialect_of
from memlode.textutil import content_hash
from memlode.types import Memory, MemoryType, format_ts, utcnow

if TYPE_CHECKING:
    from memlode.storage.protocols import Connection, Row

__all__ = [
    "GLOBAL_NAMESPACE",
    "MEMORY_COLUMNS",
    "MemoryFilter",
    "NewMemory",
    "count",
    "delete",
    "fetch",
    "fetch_many",
    "find_duplicate",
    "index_terms",
    "insert",
    "insert_exact",
    "row_to_memory",
    "select",
    "set_metadata",
    "stored_hash",
    "touch",
    "update",
]

MEMORY_COLUMNS = (
    "id, content, memory_type, importance, confidence, access_count, content_hash, tags, "
    "metadata, namespace, source, session_id, created_at, updated_at, last_accessed_at"
)


@dataclass(slots=True)
class NewMemory:
    """A memory about to be stored. ``id``/``created_at`` are filled in when left empty."""

    content: str
    memory_type: MemoryType = MemoryType.CONTEXT
    importance: float = 0.5
    confidence: float = 1.0
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    namespace: str = ""
    source: str = "memory"
    session_id: str | None = None
    created_at: str | None = None
    id: str | None = None


PROMPT_TAG = "prompt"  # the tag of a prompt the UserPromptSubmit hook stored


@dataclass(slots=True)
class MemoryFilter:
    namespace: str | None = None  # None = every namespace
    also_namespaces: Sequence[str] = ()  # read beside ``namespace`` (the global one)
    memory_types: Sequence[MemoryType] = ()
    tags: Sequence[str] = ()  # all must be present
    sources: Sequence[str] = ()
    session_id: str | None = None
    since: str | None = None  # inclusive, stored timestamp format
    until: str | None = None  # exclusive
    # Leave out the prompts the hooks stored (tag PROMPT_TAG): a question is not an answer,
    # and the prompt just submitted must not come back as the best hit for itself.
    exclude_prompts: bool = False
    # Leave out one session's rows: the asking hook's own session is already in the
    # assistant's context (memlode.resident's recall).
    exclude_session_id: str | None = None
    # Only what one person or machine stored (``memories.created_by``; a team store's filter).
    created_by: str | None = None

    def namespaces(self) -> tuple[str, ...]:
        """The namespaces this filter reads (empty: every namespace)."""
        if self.namespace is None:
            return ()
        return (self.namespace, *(n for n in self.also_namespaces if n != self.namespace))

    def where(self, alias: str = "m", dialect: Dialect = SQLITE) -> tuple[str, list[object]]:
        """This filter as a condition on ``memories`` (alias ``alias``) in ``dialect``'s SQL,
        and its parameters."""
        clauses: list[str] = []
        params: list[object] = []
        if self.exclude_prompts:
            clauses.append(dialect.json_lacks(f"{alias}.tags"))
            params.append(PROMPT_TAG)
        if self.namespace is not None and self.also_namespaces:
            names = self.namespaces()
            clauses.append(f"{alias}.namespace IN ({','.join('?' * len(names))})")
            params.extend(names)
        elif self.namespace is not None:
            clauses.append(f"{alias}.namespace = ?")
            params.append(self.namespace)
        if self.memory_types:
            clauses.append(f"{alias}.memory_type IN ({','.join('?' * len(self.memory_types))})")
            params.extend(str(t) for t in self.memory_types)
        for tag in self.tags:
            clauses.append(dialect.json_has(f"{alias}.tags"))
            params.append(tag)
        if self.sources:
            clauses.append(f"{alias}.source IN ({','.join('?' * len(self.sources))})")
            params.extend(self.sources)
        if self.session_id is not None:
            clauses.append(f"{alias}.session_id = ?")
            params.append(self.session_id)
        if self.exclude_session_id is not None:
            clauses.append(f"({alias}.session_id IS NULL OR {alias}.session_id != ?)")
            params.append(self.exclude_session_id)
        if self.since is not None:
            clauses.append(f"{alias}.created_at >= ?")
            params.append(self.since)
        if self.until is not None:
            clauses.append(f"{alias}.created_at < ?")
            params.append(self.until)
        if self.created_by is not None:
            clauses.append(f"{alias}.created_by = ?")
            params.append(self.created_by)
        return (" AND ".join(clauses) if clauses else "TRUE"), params


def row_to_memory(row: Row) -> Memory:
    return Memory(
        id=row["id"],
        content=row["content"],
        memory_type=MemoryType(row["memory_type"]),
        importance=row["importance"],
        confidence=row["confidence"],
        access_count=row["access_count"],
        content_hash=row["content_hash"],
        tags=json.loads(row["tags"]),
        metadata=json.loads(row["metadata"]),
        namespace=row["namespace"],
        source=row["source"],
        session_id=row["session_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        last_accessed_at=row["last_accessed_at"],
    )


def stored_hash(content: str) -> str:
    """The ``content_hash`` that ``content`` gets when stored (the hash of its redacted text)."""
    return content_hash(scrub.text(content))


def insert(conn: Connection, new: NewMemory) -> tuple[str, bool]:
    """Insert unless the same content exists in the namespace and source
    (``memlode.storage.capture.insert_memory``, the one insert every writer uses).

    Returns ``(id, created)``; on a duplicate the existing id comes back and nothing changes.
    """
    return capture.insert_memory(
        conn,
        content=new.content,
        memory_type=str(new.memory_type),
        importance=new.importance,
        confidence=new.confidence,
        tags=new.tags,
        metadata=new.metadata,
        namespace=new.namespace,
        source=new.source,
        session_id=new.session_id,
        memory_id=new.id,
        created_at=new.created_at,
    )


def fetch(conn: Connection, memory_id: str) -> Memory | None:
    row = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ?", (memory_id,)
    ).fetchone()
    return row_to_memory(row) if row is not None else None


def fetch_many(conn: Connection, ids: Iterable[str]) -> dict[str, Memory]:
    wanted = list(dict.fromkeys(ids))
    out: dict[str, Memory] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        rows = conn.execute(
            f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        for row in rows:
            out[row["id"]] = row_to_memory(row)
    return out


def touch(conn: Connection, memory_ids: Sequence[str]) -> None:
    """Record an access: bump access_count and last_accessed_at."""
    capture.touch(conn, memory_ids)


_UPDATABLE = {
    "content",
    "memory_type",
    "importance",
    "confidence",
    "tags",
    "metadata",
    "session_id",
}


def update(conn: Connection, memory_id: str, changes: dict[str, Any]) -> bool:
    """Apply ``changes`` (already validated); returns False if the id does not exist."""
    unknown = set(changes) - _UPDATABLE
    if unknown:
        raise ValueError(f"not updatable: {sorted(unknown)}")
    sets: list[str] = []
    params: list[object] = []
    for key, value in changes.items():
        if key == "tags":
            value = json.dumps(scrub.tags(value), ensure_ascii=False)
        elif key == "metadata":
            value = json.dumps(scrub.mapping(value), ensure_ascii=False, sort_keys=True)
        elif key == "content":
            value = scrub.text(str(value))
        elif key == "memory_type":
            value = str(value)
        sets.append(f"{key} = ?")
        params.append(value)
        if key == "content":
            sets.append("content_hash = ?")
            params.append(content_hash(value))
            row = conn.execute(
                "SELECT source, created_at FROM memories WHERE id = ?", (memory_id,)
            ).fetchone()
            if row is not None:
                sets.append("search_terms = ?")
                params.append(index_terms(value, row[0], row[1]))
    sets.append("updated_at = ?")
    params.append(format_ts(utcnow()))
    params.append(memory_id)
    cur = conn.execute(f"UPDATE memories SET {', '.join(sets)} WHERE id = ?", params)
    return int(cur.rowcount) > 0


def drop_vectors(conn: Connection, memory_ids: Sequence[str]) -> None:
    """Forget the vectors of ``memory_ids`` (their text changed: they are embedded again)."""
    conn.executemany(
        "DELETE FROM memory_embeddings WHERE memory_id = ?", [(i,) for i in memory_ids]
    )


def delete(conn: Connection, memory_ids: Sequence[str]) -> int:
    """Delete memories; embeddings, memory nodes and their edges go with them (cascades)."""
    total = 0
    for start in range(0, len(memory_ids), 500):
        chunk = list(memory_ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        total += conn.execute(f"DELETE FROM memories WHERE id IN ({marks})", chunk).rowcount
    return total


def select(
    conn: Connection,
    flt: MemoryFilter,
    *,
    limit: int | None = None,
    offset: int = 0,
    newest_first: bool = True,
) -> list[Memory]:
    where, params = flt.where("m", dialect_of(conn))
    order = "DESC" if newest_first else "ASC"
    sql = (
        f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE {where} ORDER BY m.created_at {order}, m.id"
    )
    if limit is not None:
        sql += " LIMIT ? OFFSET ?"
        params = [*params, limit, offset]
    return [row_to_memory(r) for r in conn.execute(sql, params)]


def count(conn: Connection, flt: MemoryFilter) -> int:
    where, params = flt.where("m", dialect_of(conn))
    row = conn.execute(f"SELECT count(*) FROM memories m WHERE {where}", params).fetchone()
    return int(row[0])


def set_metadata(conn: Connection, memory_id: str, metadata: dict[str, Any]) -> bool:
    """Replace a memory's metadata and nothing else (``updated_at`` stays)."""
    cur = conn.execute(
        "UPDATE memories SET metadata = ? WHERE id = ?",
        (json.dumps(scrub.mapping(metadata), ensure_ascii=False, sort_keys=True), memory_id),
    )
    return int(cur.rowcount) > 0


def insert_exact(conn: Connection, memory: Memory) -> bool:
    """Insert a memory with every other field as given (import); its text is redacted like any
    other write. False if the id or content exists."""
    content = scrub.text(memory.content)
    digest = content_hash(content)
    cur = conn.execute(
        "INSERT INTO memories (id, content, memory_type, importance, confidence,"
        " access_count, content_hash, tags, metadata, namespace, source, session_id, created_at,"
        " updated_at, last_accessed_at, search_terms)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (
            memory.id,
            content,
            str(memory.memory_type),
            memory.importance,
            memory.confidence,
            memory.access_count,
            digest,
            json.dumps(scrub.tags(memory.tags), ensure_ascii=False),
            json.dumps(scrub.mapping(memory.metadata), ensure_ascii=False, sort_keys=True),
            memory.namespace,
            memory.source,
            memory.session_id,
            memory.created_at,
            memory.updated_at,
            memory.last_accessed_at,
            index_terms(content, memory.source, memory.created_at),
        ),
    )
    return int(cur.rowcount) > 0


def find_duplicate(conn: Connection, namespace: str, source: str, content: str) -> str | None:
    row = conn.execute(
        "SELECT id FROM memories WHERE namespace = ? AND source = ? AND content_hash = ?",
        (namespace, source, stored_hash(content)),
    ).fetchone()
    return str(row[0]) if row is not None else None
