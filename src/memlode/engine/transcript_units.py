"""Transcript units in the store: what one ingest step reports, and how the stored units of a
file are made equal to the units just read (``reconcile``), inside the caller's transaction.

A *unit* is one turn of one thread, or one summary, stored as chunk memories with a
fingerprint of its chunks (``memlode.engine.transcripts`` builds them). Unchanged units are left
alone; changed ones are replaced, and a chunk whose text comes back keeps its memory id (and
so its embedding); units that are gone take their memories with them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from memlode.storage import memories as memory_repo
from memlode.storage import transcript_store
from memlode.storage.turn_context import refresh_context
from memlode.storage.values import NewMemory

__all__ = ["IngestReport", "Unit", "reconcile"]


@dataclass(slots=True)
class IngestReport:
    path: str
    status: str  # "ingested", "unchanged" or "empty"
    session_id: str | None = None
    namespace: str = ""
    lines: int = 0
    malformed: int = 0
    partial_tail: bool = False
    read_offset: int = 0
    turns: int = 0  # main-thread turns in the file
    sidechain_turns: int = 0
    summaries: int = 0
    provisional_turn: int | None = None
    units_added: int = 0
    units_replaced: int = 0
    units_removed: int = 0
    units_unchanged: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    incremental: bool = False  # only the tail from the provisional turn on was read

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Unit:
    thread: str
    index: int
    provisional: bool
    items: list[NewMemory]
    fingerprint: str = ""


def reconcile(
    conn: sqlite3.Connection,
    path: str,
    units: list[Unit],
    report: IngestReport,
    scope: Callable[[str, int], bool] | None = None,
) -> None:
    """Make the stored units (those ``scope`` covers; all by default) equal ``units``."""
    stored = {
        (thread, unit): fingerprint
        for thread, unit, fingerprint in transcript_store.stored_units(conn, path)
        if scope is None or scope(thread, unit)
    }
    wanted = {(u.thread, u.index): u for u in units}
    stale = [k for k in stored if k not in wanted]
    changed = [u for k, u in wanted.items() if stored.get(k) != u.fingerprint]
    report.units_unchanged = len(wanted) - len(changed)
    report.units_removed = len(stale)
    report.units_replaced = sum(1 for u in changed if (u.thread, u.index) in stored)
    report.units_added = len(changed) - report.units_replaced
    if not stale and not changed:
        return
    links = transcript_store.unit_chunks(conn, path)
    released: list[str] = []
    for key in [*stale, *((u.thread, u.index) for u in changed)]:
        if key in stored:
            released.extend(links.get(key, []))
            transcript_store.drop_unit(conn, path, key[0], key[1])
    # Memories of replaced units whose text comes back keep their id (and embedding).
    pool: dict[str, str] = {}
    released_ids = list(dict.fromkeys(released))
    for memory_id, content_hash in transcript_store.content_hashes(
        conn, released_ids, report.namespace
    ):
        pool.setdefault(content_hash, memory_id)
    for unit in changed:
        transcript_store.add_unit(
            conn, path, unit.thread, unit.index, unit.fingerprint, unit.provisional
        )
        for n, item in enumerate(unit.items):
            reused = pool.pop(memory_repo.stored_hash(item.content), None) if pool else None
            if reused is not None:
                memory_repo.update(conn, reused, {"metadata": item.metadata})
                memory_id = reused
            else:
                memory_id, created = memory_repo.insert(conn, item)
                report.chunks_added += int(created)
            transcript_store.link_chunk(conn, path, unit.thread, unit.index, n, memory_id)
    # Released memories no unit links any more go (their embeddings and nodes cascade).
    orphans = [i for i in released_ids if not transcript_store.chunk_linked(conn, i)]
    report.chunks_removed = memory_repo.delete(conn, orphans)
    # Turns know their neighbours (storage/turn_context.py): refresh the sessions that changed.
    refresh_context(conn, {i.session_id for u in changed for i in u.items if i.session_id})
