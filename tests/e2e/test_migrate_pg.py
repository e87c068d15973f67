"""``memlode migrate --to postgresql://...`` through the real CLI: a SQLite store's memories,
vectors, graph and sessions reach a PostgreSQL store; a second run copies nothing new; work
done after the first run goes over on the next; a memory the team already stored (same text,
same namespace and source) is not duplicated; the SQLite store is not changed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from memlode.engine import Engine
from memlode.storage.postgres.connection import PgDatabase


def _fill(engine: Engine) -> dict[str, str]:
    ids = {
        name: engine.store(text, "decision", tags=["db"], namespace="proj").id
        for name, text in (
            ("pool", "We pool PostgreSQL connections with psycopg_pool in long-lived processes."),
            ("hnsw", "Vectors get one partial HNSW index per dimension."),
            ("wal", "SQLite stays in WAL mode with busy_timeout set first."),
        )
    }
    engine.associate(ids["pool"], ids["hnsw"], "RELATES_TO", 0.7)
    session = engine.start_session("s-migrate", namespace="proj")
    engine.end_session(session.id, "talked about storage")
    engine.embed_pending()
    return ids


def _rows(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    with PgDatabase(url) as db:
        return db.conn.execute(sql, params).fetchall()


def test_migrate_copies_checks_and_resumes(engine: Engine, cli: Any, pg_url: str) -> None:
    ids = _fill(engine)
    before = engine.stats()
    blob = engine.conn.execute(
        "SELECT vector FROM memory_embeddings WHERE memory_id = ?", (ids["pool"],)
    ).fetchone()[0]
    engine.close()

    first = cli("--created-by", "migrating@machine", "migrate", "--to", pg_url, "--json")
    assert first.returncode == 0, first.stderr
    report = first.json()
    assert report["checked"] is True and report["memories"] == report["target_memories"]
    by_table = {t["table"]: t for t in report["tables"]}
    assert by_table["memories"]["inserted"] == report["memories"] >= 3
    assert by_table["graph_edges"]["inserted"] >= 1
    assert by_table["sessions"]["inserted"] == 1

    stored = {r[0]: r[1] for r in _rows(pg_url, "SELECT id, created_by FROM memories")}
    assert set(ids.values()) <= set(stored)
    assert set(stored.values()) == {"migrating@machine"}  # the migrating user, not SQLite's ""
    vector = _rows(
        pg_url, "SELECT vector FROM memory_embeddings WHERE memory_id = ?", (ids["pool"],)
    )
    copied = vector[0][0]
    copied = copied.to_numpy() if hasattr(copied, "to_numpy") else np.asarray(copied)
    assert np.allclose(copied.astype(np.float32), np.frombuffer(blob, "<f4"))
    edge = _rows(
        pg_url,
        "SELECT relationship, weight FROM graph_edges WHERE source_id = ? AND target_id = ?",
        (ids["pool"], ids["hnsw"]),
    )
    assert [tuple(r) for r in edge] == [("RELATES_TO", 0.7)]
    indexes = _rows(pg_url, "SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%hnsw%'")
    assert indexes, "the copied vectors' dimension has its HNSW index"

    again = cli("migrate", "--to", pg_url, "--json")
    assert again.returncode == 0, again.stderr
    assert sum(t.get("inserted", 0) for t in again.json()["tables"]) == 0
    assert again.json()["target_memories"] == report["target_memories"]

    # later work on this machine, and a memory a team member stored first
    added = cli("store", "Hooks hand rows to the resident on PostgreSQL.", "-n", "proj", "--json")
    assert added.returncode == 0, added.stderr
    twin = "Migrations run under an advisory lock."
    stored_twin = cli("store", twin, "-n", "proj", "--json")
    assert stored_twin.returncode == 0, stored_twin.stderr
    shown = cli("get", stored_twin.json()["id"], "--json")
    namespace = shown.json()["namespace"]
    with PgDatabase(pg_url) as db, db.write() as conn:
        from memlode.storage import memories
        from memlode.storage.values import NewMemory

        memories.insert(conn, NewMemory(twin, namespace=namespace))

    third = cli("migrate", "--to", pg_url, "--json")
    assert third.returncode == 0, third.stderr
    tables = {t["table"]: t for t in third.json()["tables"]}
    assert tables["memories"]["inserted"] == 1  # the new one; the twin is already there
    assert tables["memories"]["present"] == tables["memories"]["source"] - 1
    assert third.json()["checked"] is True
    assert len(_rows(pg_url, "SELECT id FROM memories WHERE content = ?", (twin,))) == 1

    after = cli("stats", "--json")
    assert after.json()["memories"] == before["memories"] + 2  # SQLite only gained the two


def test_migrate_refuses_what_it_cannot_copy(cli: Any, tmp_path: Any) -> None:
    not_url = cli("migrate", "--to", str(tmp_path / "x.db"))
    assert not_url.returncode != 0
    assert "postgresql://" in not_url.stderr and "Traceback" not in not_url.stderr
    missing = cli("--db", str(tmp_path / "none.db"), "migrate", "--to", "postgresql://u@h/db")
    assert missing.returncode != 0
    assert "no store at" in missing.stderr and "Traceback" not in missing.stderr


@pytest.mark.parametrize("flag", ["--json", None])
def test_migrate_prints_a_summary(engine: Engine, cli: Any, pg_url: str, flag: str | None) -> None:
    _fill(engine)
    engine.close()
    result = cli("migrate", "--to", pg_url, *([flag] if flag else []))
    assert result.returncode == 0, result.stderr
    if flag is None:
        assert result.stdout.startswith("migrated ") and "memories checked" in result.stdout
