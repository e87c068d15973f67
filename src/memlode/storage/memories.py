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
from typing import TYPE_CHECKING, Any

from memlode.storage import capture, scrub
from memlode.storage.capture import index_terms
from memlode.storage.sql import dialect_of
from memlode.storage.values import MemoryFilter, NewMemory
from memlode.textutil import content_hash
from memlode.types import Memory, MemoryType, format_ts, utcnow

if TYPE_CHECKING:
    from memlode.storage.sql import Connection, Row

__all__ = [
    "MEMORY_COLUMNS",
    "count",
    "delete",
    "fetch",
    "fetch_many",
    "find_duplicate",
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
