"""The SQLite store itself: pragmas, migrations from an empty file and from an older schema,
the dedup rule at the engine, and many processes writing at once."""

from __future__ import annotations

import itertools
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.supersession import CANDIDATES
from memlode.storage.db import BUSY_TIMEOUT_MS, connect
from memlode.storage.migrations import MIGRATIONS, apply_migrations, split_statements

ALL_VERSIONS = [v for v, _, _ in MIGRATIONS]


def _versions(path: Path) -> list[int]:
    conn = sqlite3.connect(path)
    try:
        return [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]
    finally:
        conn.close()


def test_every_connection_sets_the_pragmas(tmp_path: Path) -> None:
    conn = connect(tmp_path / "p.db")
    try:
        assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    finally:
        conn.close()


def test_migrations_from_an_empty_file(cli: Any, workdir: Path, tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    assert path.stat().st_size == 0
    result = cli("--db", str(path), "store", "first memory in a file that was empty")
    assert result.returncode == 0, result.stderr
    assert _versions(path) == ALL_VERSIONS
    hits = cli("--db", str(path), "search", "empty", "--json").json()
    assert [h["content"] for h in hits] == ["first memory in a file that was empty"]


def test_migrations_are_applied_once(tmp_path: Path) -> None:
    path = tmp_path / "once.db"
    connect(path).close()
    conn = connect(path)
    try:
        assert apply_migrations(conn) == []
        assert _versions(path) == ALL_VERSIONS
    finally:
        conn.close()


def _database_at_migration_1(path: Path) -> None:
    """What the first release created: only 0001 applied, with a memory stored in it."""
    version, name, script = MIGRATIONS[0]
    assert version == 1
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL)"
    )
    conn.execute("BEGIN")
    for statement in split_statements(script):
        conn.execute(statement)
    conn.execute(
        "INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01T00:00:00.000000Z')",
        (version, name),
    )
    conn.execute(
        "INSERT INTO memories (id, content, memory_type, importance, content_hash, tags,"
        " namespace, created_at, updated_at, search_terms) VALUES ('old-1',"
        " 'parseConfigFile reads the old settings', 'decision', 0.8, 'h', '[\"legacy\"]',"
        " 'proj', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z',"
        " 'parse config file')"
    )
    conn.execute("COMMIT")
    conn.close()


def test_a_database_from_migration_1_upgrades_in_place(
    cli: Any, workdir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "v1.db"
    _database_at_migration_1(path)
    assert _versions(path) == [1]
    with Engine(Settings.load({"db_path": str(path), "namespace": "proj"})) as eng:
        assert _versions(path) == ALL_VERSIONS
        old = eng.get("old-1", touch=False)
        assert old.content == "parseConfigFile reads the old settings"
        assert old.memory_type == "decision"
        assert old.tags == ["legacy"]
        new_id = eng.store("a memory written after the upgrade").id
    # 'proj' recorded no path, so migration 0010 kept it under that name (doctor warns)
    listed = cli("--db", str(path), "list", "-n", "proj", "--json").json()
    assert {m["id"] for m in listed} == {"old-1", new_id}
    hits = cli("--db", str(path), "search", "config file", "-n", "proj", "--json").json()
    assert [h["id"] for h in hits] == ["old-1"]


def test_engine_dedup_bumps_nothing(engine: Engine) -> None:
    first = engine.store("same text", "decision", 0.7, tags=["a"])
    before = engine.get(first.id, touch=False)
    again = engine.store("same text", "insight", 0.1, tags=["b"], metadata={"x": 1})
    assert again.id == first.id
    assert first.created
    assert not again.created
    assert engine.get(first.id, touch=False) == before
    # Another source is another record (a transcript turn may repeat a stored memory).
    assert engine.store("same text", source="transcript").id != first.id


# Each writer imports memlode, then waits at a barrier (a file per process in ``gate``) until
# all have imported, so the eight race to create the database and then write at the same
# moment, instead of in the order their interpreters happened to finish starting.
_WRITER = textwrap.dedent(
    """
    import os, sys, time
    from memlode.config import Settings
    from memlode.engine import Engine

    worker, count, db, gate, workers = sys.argv[1:]
    open(os.path.join(gate, worker), "w").close()
    deadline = time.monotonic() + 60
    while len(os.listdir(gate)) < int(workers):
        if time.monotonic() > deadline:
            sys.exit("the other writers never started")
        time.sleep(0.005)
    with Engine(Settings.load({"db_path": db, "namespace": "load"})) as engine:
        for i in range(int(count)):
            engine.store(f"worker {worker} memory {i} about parallel hook writes")
    print("ok")
    """
)


def test_eight_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"  # does not exist yet: the processes race to create it too
    gate = tmp_path / "gate"
    gate.mkdir()
    # 150 each: with the barrier every writer's stores overlap the others' (checked below);
    # the 1,200 rows are over twice the supersession rules' window (CANDIDATES, 500 similar
    # earlier statements), so most stores read a full window, as with the 4,000 rows of 500
    # each this test wrote before the barrier, at about a quarter of the rules' reads.
    workers, per_worker = 8, 150
    assert workers * per_worker > 2 * CANDIDATES
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                _WRITER,
                str(w),
                str(per_worker),
                str(path),
                str(gate),
                str(workers),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(workers)
    ]
    outcomes = [(p.wait(timeout=120), *p.communicate()) for p in procs]
    for code, out, err in outcomes:
        assert code == 0, err
        assert out.strip() == "ok"
        assert "Traceback" not in err
        assert "error" not in err.lower()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == workers * per_worker
        assert conn.execute("SELECT count(DISTINCT content) FROM memories").fetchone()[0] == (
            workers * per_worker
        )
        fts = conn.execute(
            "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'parallel'"
        ).fetchone()[0]
        assert fts == workers * per_worker
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        # the writes were concurrent: in insertion order the writer changes far more often
        # than the seven times writers one after another would give
        writers = [
            r[0].split()[1] for r in conn.execute("SELECT content FROM memories ORDER BY rowid")
        ]
    finally:
        conn.close()
    switches = sum(a != b for a, b in itertools.pairwise(writers))
    assert switches > 4 * workers, switches
    assert _versions(path) == ALL_VERSIONS
