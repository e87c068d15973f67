"""Writers take turns on a PostgreSQL store (migration 0006), so the text change log is in
commit order: while one write transaction is open, another writer waits for the store's write
lock, whether it writes through ``write_transaction`` or changes a memory with a bare statement,
and the log numbers the second change after the first."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from memlode.storage import memories
from memlode.storage.postgres.connection import PgDatabase
from memlode.storage.values import NewMemory


def _waiting_on_advisory_lock(db: PgDatabase, pid: int) -> bool:
    row = db.conn.execute(
        "SELECT wait_event_type, wait_event FROM pg_stat_activity WHERE pid = ?", (pid,)
    ).fetchone()
    return row is not None and tuple(row) == ("Lock", "advisory")


@pytest.mark.parametrize("through_write", [True, False])
def test_a_second_writer_waits_and_is_logged_after(pg_store_url: str, through_write: bool) -> None:
    with (
        PgDatabase(pg_store_url) as first,
        PgDatabase(pg_store_url) as second,
        PgDatabase(pg_store_url) as watcher,
    ):
        done: dict[str, Any] = {}

        def write_second() -> None:
            if through_write:
                with second.write() as conn:
                    done["id"] = memories.insert(conn, NewMemory("second", namespace="p"))[0]
            else:
                done["id"] = memories.insert(second.conn, NewMemory("second", namespace="p"))[0]

        with first.write() as conn:
            first_id = memories.insert(conn, NewMemory("first", namespace="p"))[0]
            thread = threading.Thread(target=write_second)
            thread.start()
            deadline = time.monotonic() + 30
            while not _waiting_on_advisory_lock(watcher, second.conn.raw.info.backend_pid):
                assert thread.is_alive() and time.monotonic() < deadline
                time.sleep(0.01)
            assert "id" not in done
        thread.join(30)
        assert "id" in done
        rows = watcher.conn.execute(
            "SELECT l.seq, m.id FROM memories_fts_log l JOIN memories m ON m.rowid = l.row"
            " ORDER BY l.seq"
        ).fetchall()
        assert [r[1] for r in rows] == [first_id, done["id"]]
        seqs = [int(r[0]) for r in rows]
        assert seqs == list(range(seqs[0], seqs[0] + 2))
