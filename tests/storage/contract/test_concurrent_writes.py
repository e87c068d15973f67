"""Contract: many processes writing at once lose nothing and duplicate nothing.

Four worker processes, each with its own connection, store the same 25 texts and 25 texts of
their own, one transaction per memory, all at once (a barrier releases them together). Every
worker must get the one stored id for each shared text (whichever process stored it), and the
store must hold exactly the shared texts once plus every worker's own. Workers write through
write transactions (where writers take turns) and, on PostgreSQL, half of them through bare
statements at the same time, where only the UNIQUE constraint with ON CONFLICT keeps the dedup
(a check before the insert fails this test with a unique violation).
"""

from __future__ import annotations

import multiprocessing
from typing import Any

from tests.storage.contract.stores import open_store

from memlode.storage import memories
from memlode.storage.values import MemoryFilter, NewMemory

WORKERS = 4
SHARED = 25
OWN = 25


def _worker(
    backend: str, location: str, worker: int, barrier: Any, bare: bool = False
) -> dict[str, str]:
    ids: dict[str, str] = {}
    with open_store(backend, location, created_by=f"machine-{worker}") as store:
        texts = [f"shared fact number {i}" for i in range(SHARED)]
        texts += [f"fact {i} of worker {worker}" for i in range(OWN)]
        # interleave: the shared texts are hit by every worker at about the same moment
        order = [t for pair in zip(texts[:SHARED], texts[SHARED:], strict=True) for t in pair]
        barrier.wait()
        for text in order:
            if bare:  # one statement, no write transaction: only the constraint decides
                memory_id, _ = memories.insert(store.conn, NewMemory(text, namespace="team"))
            else:
                with store.write() as conn:
                    memory_id, _ = memories.insert(conn, NewMemory(text, namespace="team"))
            ids[text] = memory_id
    return ids


def test_concurrent_inserts_lose_nothing_and_duplicate_nothing(store: Any) -> None:
    _run_workers(store)


def _bare(store: Any, worker: int) -> bool:
    """SQLite deduplicates inside its write transaction only; PostgreSQL also without one."""
    return store.backend == "postgresql" and worker % 2 == 1


def _run_workers(store: Any) -> None:
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager:
        barrier = manager.Barrier(WORKERS)
        with ctx.Pool(WORKERS) as pool:
            results = pool.starmap(
                _worker,
                [
                    # on PostgreSQL half the workers write with bare statements
                    (store.backend, store.location, w, barrier, _bare(store, w))
                    for w in range(WORKERS)
                ],
            )
    stored = memories.select(store.conn, MemoryFilter(namespace="team"))
    by_content = {m.content: m.id for m in stored}
    assert len(stored) == len(by_content) == SHARED + WORKERS * OWN
    for ids in results:
        assert len(ids) == SHARED + OWN
        for text, memory_id in ids.items():
            assert by_content[text] == memory_id
