"""The ``memories`` table on PostgreSQL: insert with dedup, fetch, update, delete, filter (the
counterpart of ``memlode.storage.memories``; Protocol ``MemoryRows``).

Functions take a psycopg connection so that callers compose several in one transaction
(``PgDatabase.write()``). The rules are the SQLite module's: the engine validates, every text
written is redacted first (``memlode.storage.scrub``), and the hash and search terms are those of
the redacted text. A ``MemoryFilter`` becomes a PostgreSQL condition here (``where``), since its
own ``where()`` is SQLite's SQL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.fastjson import dumps
from memlode.storage import scrub
from memlode.storage.capture import index_terms
from memlode.storage.memories import _UPDATABLE, PROMPT_TAG, MemoryFilter, NewMemory
from memlode.storage.postgres import capture
from memlode.textutil import content_hash
from memlode.types import Memory, MemoryType, format_ts, utcnow

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    import psycopg

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
    "touch",
    "update",
    "where",
]

MEMORY_COLUMNS = (
    "id, content, memory_type, importance, confidence, access_count, content_hash, tags, "
    "metadata, namespace, source, session_id, created_at, updated_at, last_accessed_at"
)


def where(flt: MemoryFilter, alias: str = "m") -> tuple[str, list[object]]:
    """``flt`` as a PostgreSQL condition on ``memories`` (alias ``alias``) and its parameters;
    the same rows as ``MemoryFilter.where()`` selects on SQLite."""
    clauses: list[str] = []
    params: list[object] = []
    if flt.exclude_prompts:
        clauses.append(f"NOT ({alias}.tags @> %s::jsonb)")
        params.append(dumps([PROMPT_TAG]))
    names = flt.namespaces()
    if names:
        clauses.append(f"{alias}.namespace = ANY(%s)")
        params.append(list(names))
    if flt.memory_types:
        clauses.append(f"{alias}.memory_type = ANY(%s)")
        params.append([str(t) for t in flt.memory_types])
    for tag in flt.tags:
        clauses.append(f"{alias}.tags @> %s::jsonb")
        params.append(dumps([tag], ensure_ascii=False))
    if flt.sources:
        clauses.append(f"{alias}.source = ANY(%s)")
        params.append(list(flt.sources))
    if flt.session_id is not None:
        clauses.append(f"{alias}.session_id = %s")
        params.append(flt.session_id)
    if flt.exclude_session_id is not None:
        clauses.append(f"({alias}.session_id IS NULL OR {alias}.session_id <> %s)")
        params.append(flt.exclude_session_id)
    if flt.since is not None:
        clauses.append(f"{alias}.created_at >= %s")
        params.append(flt.since)
    if flt.until is not None:
        clauses.append(f"{alias}.created_at < %s")
        params.append(flt.until)
    return (" AND ".join(clauses) if clauses else "TRUE"), params


def row_to_memory(row: Sequence[Any]) -> Memory:
    """A row of ``MEMORY_COLUMNS`` (tags and metadata already decoded from jsonb)."""
    return Memory(
        id=row[0],
        content=row[1],
        memory_type=MemoryType(row[2]),
        importance=row[3],
        confidence=row[4],
        access_count=row[5],
        content_hash=row[6],
        tags=list(row[7]),
        metadata=dict(row[8]),
        namespace=row[9],
        source=row[10],
        session_id=row[11],
        created_at=row[12],
        updated_at=row[13],
        last_accessed_at=row[14],
    )


def insert(conn: psycopg.Connection[Any], new: NewMemory) -> tuple[str, bool]:
    """Insert unless the same content exists in the namespace and source
    (``memlode.storage.postgres.capture.insert_memory``, the one insert every writer uses)."""
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


def fetch(conn: psycopg.Connection[Any], memory_id: str) -> Memory | None:
    row = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = %s", (memory_id,)
    ).fetchone()
    return row_to_memory(row) if row is not None else None


def fetch_many(conn: psycopg.Connection[Any], ids: Iterable[str]) -> dict[str, Memory]:
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    rows = conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = ANY(%s)", (wanted,)
    ).fetchall()
    return {row[0]: row_to_memory(row) for row in rows}


def touch(conn: psycopg.Connection[Any], memory_ids: Sequence[str]) -> None:
    """Record an access: bump access_count and last_accessed_at."""
    capture.touch(conn, memory_ids)


def update(conn: psycopg.Connection[Any], memory_id: str, changes: dict[str, Any]) -> bool:
    """Apply ``changes`` (already validated); returns False if the id does not exist."""
    unknown = set(changes) - _UPDATABLE
    if unknown:
        raise ValueError(f"not updatable: {sorted(unknown)}")
    sets: list[str] = []
    params: list[object] = []
    for key, value in changes.items():
        cast = ""
        if key == "tags":
            value, cast = dumps(scrub.tags(value), ensure_ascii=False), "::jsonb"
        elif key == "metadata":
            value = dumps(scrub.mapping(value), ensure_ascii=False, sort_keys=True)
            cast = "::jsonb"
        elif key == "content":
            value = scrub.text(str(value))
        elif key == "memory_type":
            value = str(value)
        sets.append(f"{key} = %s{cast}")
        params.append(value)
        if key == "content":
            sets.append("content_hash = %s")
            params.append(content_hash(value))
            row = conn.execute(
                "SELECT source, created_at FROM memories WHERE id = %s", (memory_id,)
            ).fetchone()
            if row is not None:
                sets.append("search_terms = %s")
                params.append(index_terms(value, row[0], row[1]))
    sets.append("updated_at = %s")
    params.append(format_ts(utcnow()))
    params.append(memory_id)
    cur = conn.execute(f"UPDATE memories SET {', '.join(sets)} WHERE id = %s", params)
    return cur.rowcount > 0


def delete(conn: psycopg.Connection[Any], memory_ids: Sequence[str]) -> int:
    """Delete memories; embeddings, memory nodes and their edges go with them (cascades)."""
    if not memory_ids:
        return 0
    return conn.execute("DELETE FROM memories WHERE id = ANY(%s)", (list(memory_ids),)).rowcount


def select(
    conn: psycopg.Connection[Any],
    flt: MemoryFilter,
    *,
    limit: int | None = None,
    offset: int = 0,
    newest_first: bool = True,
) -> list[Memory]:
    condition, params = where(flt)
    order = "DESC" if newest_first else "ASC"
    sql = (
        f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE {condition}"
        f" ORDER BY m.created_at {order}, m.id"
    )
    if limit is not None:
        sql += " LIMIT %s OFFSET %s"
        params = [*params, limit, offset]
    return [row_to_memory(r) for r in conn.execute(sql, params)]


def count(conn: psycopg.Connection[Any], flt: MemoryFilter) -> int:
    condition, params = where(flt)
    row = conn.execute(f"SELECT count(*) FROM memories m WHERE {condition}", params).fetchone()
    return int(row[0]) if row is not None else 0


def set_metadata(conn: psycopg.Connection[Any], memory_id: str, metadata: dict[str, Any]) -> bool:
    """Replace a memory's metadata and nothing else (``updated_at`` stays)."""
    cur = conn.execute(
        "UPDATE memories SET metadata = %s::jsonb WHERE id = %s",
        (dumps(scrub.mapping(metadata), ensure_ascii=False, sort_keys=True), memory_id),
    )
    return cur.rowcount > 0


def insert_exact(conn: psycopg.Connection[Any], memory: Memory) -> bool:
    """Insert a memory with every other field as given (import); its text is redacted like any
    other write. False if the id or content exists."""
    content = scrub.text(memory.content)
    cur = conn.execute(
        "INSERT INTO memories (id, content, memory_type, importance, confidence, access_count,"
        " content_hash, tags, metadata, namespace, source, session_id, created_at, updated_at,"
        " last_accessed_at, search_terms)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT DO NOTHING",
        (
            memory.id,
            content,
            str(memory.memory_type),
            memory.importance,
            memory.confidence,
            memory.access_count,
            content_hash(content),
            dumps(scrub.tags(memory.tags), ensure_ascii=False),
            dumps(scrub.mapping(memory.metadata), ensure_ascii=False, sort_keys=True),
            memory.namespace,
            memory.source,
            memory.session_id,
            memory.created_at,
            memory.updated_at,
            memory.last_accessed_at,
            index_terms(content, memory.source, memory.created_at),
        ),
    )
    return cur.rowcount > 0


def find_duplicate(
    conn: psycopg.Connection[Any], namespace: str, source: str, content: str
) -> str | None:
    return capture.find_by_hash(conn, namespace, source, content_hash(scrub.text(content)))
