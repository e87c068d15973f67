"""Copying a SQLite store's shared rows into a PostgreSQL store (``memlode migrate --to``).

What moves is what a team shares: memories with their vectors and token states, the memory
graph (memory and file nodes, the edges between them), sessions and their capture state, the
consolidation and archive tables, transcript and memory-file ingest state (so the next ingest
on this machine continues instead of starting over) and the store's settings. What stays is
derived or per machine: the code index (it is rebuilt from the local checkout), centrality and
other caches, the text index's change log, schema bookkeeping.

Every statement is ``INSERT ... ON CONFLICT DO NOTHING``, one transaction per batch, so a copy
is idempotent and an interrupted one resumes by running again; a table with a one-column key
first asks which of a batch's keys the target has (one query per batch), so a second run, or
one after more work on the source, sends only what is new. A row
whose parent is not in the target (a memory that the target already holds under another id,
by the dedup rule) is left out and counted. Integer ids that number rows per database
(``doc_files.id``, edge and log ids) are given anew by the target; a child's reference to one
follows its new number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3

    from memlode.storage.postgres.adapter import PgConnection

__all__ = [
    "TABLES",
    "TableCopy",
    "TableSpec",
    "copy_table",
    "memory_count",
    "missing_memories",
    "source_count",
    "tables",
    "vector_dims",
]

BATCH = 500
# Columns the target fills itself: who stored a memory is the migrating user (the connection's
# created_by), not SQLite's empty value.
_NOT_COPIED = frozenset({"created_by"})


@dataclass(frozen=True)
class TableSpec:
    """How one table moves.

    ``parents``: (column, table, key) that must exist in the target for a row to go in.
    ``renumbered``: an integer id column the target numbers anew (left out of the insert).
    ``remaps``: (column, table) whose value is an id of ``table`` that was renumbered.
    ``where``: a SQLite condition choosing the rows that move.
    ``natural_key``: the columns that identify a renumbered row across databases (a row
    already in the target under them keeps the target's id).
    ``key``: a one-column key, to pass over a batch's rows the target has before inserting.
    """

    name: str
    parents: tuple[tuple[str, str, str], ...] = ()
    renumbered: str | None = None
    remaps: tuple[tuple[str, str], ...] = ()
    where: str = ""
    natural_key: tuple[str, ...] = ()
    key: str = ""


_MEMORY = ("memory_id", "memories", "id")

TABLES: tuple[TableSpec, ...] = (
    TableSpec("memories", key="id"),
    TableSpec("memory_embeddings", parents=(_MEMORY,), key="memory_id"),
    TableSpec("memory_tokens", parents=(_MEMORY,), key="memory_id"),
    TableSpec(
        "graph_nodes",
        parents=(_MEMORY,),
        key="id",
        where="kind = 'memory' OR (kind = 'file' AND id NOT IN (SELECT node_id FROM"
        " code_symbols) AND id NOT IN (SELECT 'file:' || path FROM code_files))",
    ),
    TableSpec(
        "graph_edges",
        parents=(("source_id", "graph_nodes", "id"), ("target_id", "graph_nodes", "id")),
        renumbered="id",
    ),
    TableSpec("sessions", key="id"),
    TableSpec("session_seen", parents=(("session_id", "sessions", "id"),)),
    TableSpec("session_files", parents=(("session_id", "sessions", "id"),)),
    TableSpec(
        "consolidation_log", renumbered="id", natural_key=("kind", "namespace", "started_at")
    ),
    TableSpec("memory_decay", parents=(_MEMORY,), key="memory_id"),
    TableSpec("consolidation_clusters", parents=(("summary_id", "memories", "id"),)),
    TableSpec("memory_demotions", parents=(_MEMORY, ("summary_id", "memories", "id"))),
    TableSpec("memory_archive"),
    TableSpec("llm_usage"),
    TableSpec("store_settings", key="key"),
    TableSpec("transcript_files", key="path"),
    TableSpec("transcript_units", parents=(("path", "transcript_files", "path"),)),
    TableSpec("transcript_chunks", parents=(_MEMORY,)),
    TableSpec("doc_files", renumbered="id", natural_key=("namespace", "path")),
    TableSpec("doc_chunks", parents=(_MEMORY,), remaps=(("file_id", "doc_files"),)),
    TableSpec("doc_folders"),
)


@dataclass
class TableCopy:
    """What one table's copy did."""

    table: str
    source: int = 0  # rows of the source that move
    inserted: int = 0
    present: int = 0  # already in the target (an earlier run, or another machine)
    orphaned: int = 0  # left out: a parent is not in the target
    new_ids: dict[Any, Any] = field(default_factory=dict, repr=False)


def _sqlite_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in conn.execute(f'PRAGMA table_info("{table}")')]


def _pg_columns(conn: PgConnection, table: str) -> set[str]:
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema ="
        " current_schema() AND table_name = ? AND is_generated = 'NEVER'"
        " AND coalesce(identity_generation, '') <> 'ALWAYS'",
        (table,),
    )
    return {str(r[0]) for r in rows}


def _vector_columns(conn: PgConnection, table: str) -> set[str]:
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema ="
        " current_schema() AND table_name = ? AND udt_name = 'vector'",
        (table,),
    )
    return {str(r[0]) for r in rows}


def source_count(source: sqlite3.Connection, spec: TableSpec) -> int:
    """The rows of ``spec`` that move."""
    where = f" WHERE {spec.where}" if spec.where else ""
    return int(source.execute(f'SELECT count(*) FROM "{spec.name}"{where}').fetchone()[0])


def _batches(
    conn: sqlite3.Connection, spec: TableSpec, columns: Sequence[str]
) -> Iterator[list[tuple[Any, ...]]]:
    where = f" WHERE {spec.where}" if spec.where else ""
    quoted = ", ".join(f'"{c}"' for c in columns)
    cur = conn.execute(f'SELECT {quoted} FROM "{spec.name}"{where}')
    while batch := cur.fetchmany(BATCH):
        yield [tuple(row) for row in batch]


def _existing(conn: PgConnection, table: str, key: str, values: set[Any]) -> set[Any]:
    if not values:
        return set()
    rows = conn.execute(f'SELECT "{key}" FROM "{table}" WHERE "{key}" = ANY(?)', (list(values),))
    return {r[0] for r in rows}


def copy_table(
    source: sqlite3.Connection,
    target: PgConnection,
    spec: TableSpec,
    write: Callable[[], Any],
    new_ids: dict[str, dict[Any, Any]],
    progress: Callable[[int, int], None] | None = None,
) -> TableCopy:
    """Copy the rows of ``spec`` from ``source`` to ``target`` in batches, each batch one
    transaction (``write()``); ``new_ids`` holds the renumbered tables' old -> new ids (filled
    for ``spec`` when it is renumbered, read for its ``remaps``)."""
    import numpy as np

    result = TableCopy(spec.name, source=source_count(source, spec))
    wanted = _pg_columns(target, spec.name) - _NOT_COPIED
    columns = [c for c in _sqlite_columns(source, spec.name) if c in wanted or c == spec.renumbered]
    inserted_columns = [c for c in columns if c != spec.renumbered]
    vectors = {columns.index(c) for c in _vector_columns(target, spec.name) if c in columns}
    remaps = {columns.index(c): table for c, table in spec.remaps if c in columns}
    parents = [(columns.index(c), t, k) for c, t, k in spec.parents if c in columns]
    renumbered = columns.index(spec.renumbered) if spec.renumbered in columns else None
    marks = ", ".join("?" for _ in inserted_columns)
    names = ", ".join(f'"{c}"' for c in inserted_columns)
    returning = f' RETURNING "{spec.renumbered}"' if renumbered is not None else ""
    keys = [columns.index(c) for c in spec.natural_key]
    lookup = (
        f'SELECT "{spec.renumbered}" FROM "{spec.name}" WHERE '
        + " AND ".join(f'"{c}" = ?' for c in spec.natural_key)
        if keys
        else ""
    )
    sql = f'INSERT INTO "{spec.name}" ({names}) VALUES ({marks}) ON CONFLICT DO NOTHING{returning}'
    done = 0
    for batch in _batches(source, spec, columns):
        rows = [list(row) for row in batch]
        for index, table in remaps.items():
            for row in rows:
                row[index] = new_ids.get(table, {}).get(row[index])
        for index, table, key in parents:
            found = _existing(target, table, key, {r[index] for r in rows if r[index] is not None})
            kept = [r for r in rows if r[index] is None or r[index] in found]
            result.orphaned += len(rows) - len(kept)
            rows = kept
        if spec.key in columns:
            index = columns.index(spec.key)
            known = _existing(target, spec.name, spec.key, {r[index] for r in rows})
            result.present += sum(r[index] in known for r in rows)
            rows = [r for r in rows if r[index] not in known]
        for index in vectors:
            for row in rows:
                row[index] = np.frombuffer(row[index], dtype="<f4")
        with write():
            if renumbered is None:  # one pipelined statement per batch; conflicts add nothing
                if rows:
                    added = int(target.executemany(sql, rows).rowcount)
                    result.inserted += added
                    result.present += len(rows) - added
            else:
                _copy_renumbered(target, rows, renumbered, sql, keys, lookup, result)
        done += len(batch)
        if progress is not None:
            progress(done, result.source)
    return result


def _copy_renumbered(
    target: PgConnection,
    rows: list[list[Any]],
    renumbered: int,
    sql: str,
    keys: list[int],
    lookup: str,
    result: TableCopy,
) -> None:
    """Insert rows whose id the target numbers, one at a time (each new id is read back and
    kept for the rows that refer to it); a row the target holds by ``keys`` keeps its id."""
    for row in rows:
        there = target.execute(lookup, [row[i] for i in keys]).fetchone() if keys else None
        if there is not None:
            result.new_ids[row[renumbered]] = there[0]
            result.present += 1
            continue
        got = target.execute(sql, [v for i, v in enumerate(row) if i != renumbered]).fetchone()
        if got is not None:
            result.new_ids[row[renumbered]] = got[0]
        result.inserted += int(got is not None)
        result.present += int(got is None)


# Memories looked up per query when the copy is checked.
_CHECK_BATCH = 1000


def tables(source: sqlite3.Connection) -> set[str]:
    """The tables of the SQLite store (an older one may lack some)."""
    rows = source.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    return {str(r[0]) for r in rows}


def memory_count(store: Any) -> int:
    return int(store.execute("SELECT count(*) FROM memories").fetchone()[0])


def vector_dims(target: PgConnection) -> list[int]:
    """The dimensions of the vectors in the target."""
    return [int(r[0]) for r in target.execute("SELECT DISTINCT dim FROM memory_embeddings")]


def missing_memories(source: sqlite3.Connection, target: PgConnection) -> list[str]:
    """Source memories found in the target neither by id nor by (namespace, source, hash)."""
    missing: list[str] = []
    cur = source.execute("SELECT id, namespace, source, content_hash FROM memories")
    while batch := cur.fetchmany(_CHECK_BATCH):
        ids = [str(r[0]) for r in batch]
        found = {
            str(r[0]) for r in target.execute("SELECT id FROM memories WHERE id = ANY(?)", (ids,))
        }
        for row in batch:
            if row[0] in found:
                continue
            twin = target.execute(
                "SELECT 1 FROM memories WHERE namespace = ? AND source = ? AND content_hash = ?",
                (row[1], row[2], row[3]),
            ).fetchone()
            if twin is None:
                missing.append(str(row[0]))
    return missing
