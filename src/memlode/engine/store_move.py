"""Moving a store to PostgreSQL: ``memlode migrate --to postgresql://...``.

Copies the shared rows of this machine's SQLite store into a PostgreSQL store, table by table
in batches (``memlode.storage.transfer``), so a team's server gets what one developer's
assistant has remembered. Idempotent and resumable: run it again after an interruption, or
after more work on the SQLite store, and only what is missing goes over. At the end every memory
of the source is looked up in the target, by id or by the dedup rule (the same text in the same
namespace and source, which a team member may have stored first); a shortfall is an error.

The SQLite store is opened read-only and is not changed. The memories copied are recorded as
stored by this machine's ``created_by`` (the target's default for who stores a row).

L3: composes ``storage.transfer`` with both backends' connections.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memlode.errors import InvalidInput, StorageError
from memlode.storage import transfer

__all__ = ["migrate_to"]


def _is_url(location: str) -> bool:
    return location.startswith(("postgresql://", "postgres://"))


def migrate_to(
    database: Path,
    url: str,
    *,
    created_by: str = "",
    progress: Callable[[str, int, int], None] | None = None,
) -> dict[str, Any]:
    """Copy the SQLite store at ``database`` into the PostgreSQL store at ``url`` (created and
    migrated when new). ``progress(table, done, total)`` is called after each batch."""
    if not _is_url(url):
        raise InvalidInput(f"--to must be a postgresql:// URL, not {url!r}")
    if not database.is_file():
        raise InvalidInput(f"no store at {database} to migrate; point --db at a memlode database")
    from memlode.storage.db import Database
    from memlode.storage.postgres.connection import PgDatabase, describe

    started = time.perf_counter()
    tables: list[dict[str, Any]] = []
    with Database(database, readonly=True) as src, PgDatabase(url, created_by=created_by) as dst:
        present = transfer.tables(src.conn)
        new_ids: dict[str, dict[Any, Any]] = {}
        for spec in transfer.TABLES:
            if spec.name not in present:
                continue
            step = None if progress is None else _bound(progress, spec.name)
            copied = transfer.copy_table(src.conn, dst.conn, spec, dst.write, new_ids, step)
            if spec.renumbered is not None:
                new_ids[spec.name] = copied.new_ids
            tables.append(
                {
                    "table": spec.name,
                    "source": copied.source,
                    "inserted": copied.inserted,
                    "present": copied.present,
                    "orphaned": copied.orphaned,
                }
            )
        _index_vectors(dst)
        missing = transfer.missing_memories(src.conn, dst.conn)
        memories = transfer.memory_count(src.conn)
        target_memories = transfer.memory_count(dst.conn)
    if missing:
        raise StorageError(
            f"{len(missing)} of {memories} memories did not reach {describe(url)} (e.g."
            f" {', '.join(missing[:3])}); nothing was lost from the SQLite store: run"
            " `memlode migrate` again"
        )
    return {
        "source": str(database),
        "target": describe(url),
        "memories": memories,
        "target_memories": target_memories,
        "checked": True,
        "tables": tables,
        "seconds": round(time.perf_counter() - started, 2),
    }


def _bound(progress: Callable[[str, int, int], None], table: str) -> Callable[[int, int], None]:
    def step(done: int, total: int) -> None:
        progress(table, done, total)

    return step


def _index_vectors(dst: Any) -> None:
    """The HNSW index of every vector dimension copied (the repositories make one with a
    dimension's first vector; the copy wrote around them)."""
    from memlode.storage.postgres import vectors

    for dim in transfer.vector_dims(dst.conn):
        with dst.write() as conn:
            vectors.ensure_vector_index(conn, dim)
