"""``memlode migrate --to postgresql://...`` killed part-way (issue #35), at several moments
(before the target's schema is made, while it is made, while rows are copied), then run
again: the store ends migrated (every schema migration recorded) and every memory, edge and
session is there once."""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

from tests.conftest import killed_runs

from memlode.engine import Engine
from memlode.storage.postgres.connection import PgDatabase
from memlode.storage.postgres.migrations import latest_version

MEMORIES = 300  # enough rows that a kill lands in the copy (~0.1 s per 100 rows here)
# When the kills land, as shares of a whole run timed first on this machine: fixed delays
# landed all before the copy on a loaded machine and all after it on a quiet one.
KILL_AT = (0.15, 0.3, 0.45, 0.6, 0.75, 0.9)


def _rows(url: str, sql: str) -> list[Any]:
    with PgDatabase(url) as db:
        return list(db.conn.execute(sql).fetchall())


def _count(url: str) -> int:
    """The target's memories (0 before its table exists)."""
    with PgDatabase(url, readonly=True) as db:
        exists = db.conn.execute("SELECT to_regclass('memories') IS NOT NULL").fetchone()[0]
        return int(db.conn.execute("SELECT count(*) FROM memories").fetchone()[0]) if exists else 0


def test_a_migrate_killed_part_way_and_run_again_ends_migrated_and_loses_nothing(
    engine: Engine, cli: Any, pg_server: Any, pg_url: str, workdir: Path
) -> None:
    ids = [
        engine.store(
            f"Decision {n}: service {n} talks to the queue through the outbox.", "decision"
        ).id
        for n in range(MEMORIES)
    ]
    for left, right in itertools.pairwise(ids[:20]):
        engine.associate(left, right, "RELATES_TO", 0.5)
    engine.end_session(engine.start_session("s-kill").id, "moved the store")
    source_edges = sorted(
        tuple(map(str, r))
        for r in engine.conn.execute("SELECT source_id, target_id, relationship FROM graph_edges")
    )
    engine.close()

    began = time.monotonic()  # a whole run, into a schema of its own, times the kills
    timed = cli("migrate", "--to", str(pg_server.url(schema=pg_server.new_schema())))
    assert timed.returncode == 0, timed.stderr
    whole = time.monotonic() - began
    after_kills = []
    delays = [whole * share for share in KILL_AT]
    for _delay in killed_runs(["migrate", "--to", pg_url], cwd=workdir, delays=delays):
        after_kills.append(_count(pg_url))
    print("memories in the target after each kill:", after_kills)
    assert min(after_kills) < MEMORIES  # a kill landed before the copy was done
    done = cli("migrate", "--to", pg_url, "--json")
    assert done.returncode == 0, done.stderr
    report = done.json()
    assert report["checked"] is True
    assert report["memories"] == report["target_memories"] == MEMORIES

    versions = [int(r[0]) for r in _rows(pg_url, "SELECT version FROM schema_migrations")]
    assert sorted(versions) == list(range(1, latest_version() + 1))
    stored = [str(r[0]) for r in _rows(pg_url, "SELECT id FROM memories")]
    assert sorted(stored) == sorted(ids)  # each once
    edges = _rows(pg_url, "SELECT source_id, target_id, relationship FROM graph_edges")
    assert sorted(tuple(map(str, r)) for r in edges) == source_edges  # each once
    assert [str(r[0]) for r in _rows(pg_url, "SELECT id FROM sessions")] == ["s-kill"]
