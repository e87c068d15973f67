"""The PostgreSQL store's connections and migrations against a real server (tests/pg_server.py).

Migrations: applied once with their records, nothing to do the second time, the same from many
connections opening a fresh store at once (the advisory lock), and each schema its own store.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from memlode.errors import StorageError
from memlode.storage import embeddings, memories, vector_rows
from memlode.storage.postgres.adapter import PgConnection
from memlode.storage.postgres.connection import (
    PgDatabase,
    connect,
    describe,
    open_pool,
    write_transaction,
)
from memlode.storage.postgres.migrations import MIGRATIONS, apply_migrations, latest_version
from memlode.storage.values import NewMemory


def test_migrations_apply_once_with_their_records(pg_url: str) -> None:
    with connect(pg_url, migrate=False) as conn:
        assert apply_migrations(conn) == [v for v, _, _ in MIGRATIONS]
        assert apply_migrations(conn) == []
        rows = conn.execute("SELECT version, name FROM schema_migrations ORDER BY 1").fetchall()
        assert rows == [(v, n) for v, n, _ in MIGRATIONS]
        assert latest_version() == rows[-1][0]


def test_a_store_of_an_earlier_version_upgrades_in_place(pg_url: str) -> None:
    version, name, script = MIGRATIONS[0]
    with connect(pg_url, migrate=False) as conn:
        conn.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        conn.execute(script.encode())
        conn.execute(
            "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (version, name)
        )
        conn.execute("INSERT INTO store_settings (key, value) VALUES ('kept', 'yes')")
    with connect(pg_url) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]
        assert versions == [v for v, _, _ in MIGRATIONS] and len(versions) > 1
        assert conn.execute("SELECT value FROM store_settings").fetchone() == ("yes",)


def _open(url: str) -> int:
    with connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM schema_migrations").fetchone()
        return int(row[0]) if row else -1


def test_connections_opening_a_fresh_store_at_once_migrate_it_once(pg_url: str) -> None:
    # One server session per connection, as from separate processes or machines (the advisory
    # lock is per session); threads save the seconds that spawning processes takes.
    with ThreadPoolExecutor(6) as pool:
        counts = list(pool.map(_open, [pg_url] * 6))
    assert counts == [len(MIGRATIONS)] * 6


def test_each_schema_is_a_store_of_its_own(pg_server: Any) -> None:
    first, second = pg_server.new_schema(), pg_server.new_schema()
    try:
        with PgDatabase(pg_server.url(schema=first)) as db, db.write() as conn:
            conn.execute("INSERT INTO store_settings (key, value) VALUES ('k', 'v')")
        with PgDatabase(pg_server.url(schema=second)) as db:
            assert db.conn.execute("SELECT count(*) FROM store_settings").fetchone() == (0,)
    finally:
        pg_server.drop_schema(first)
        pg_server.drop_schema(second)


def test_a_write_is_all_or_nothing(pg_url: str) -> None:
    with PgDatabase(pg_url) as db:
        with pytest.raises(RuntimeError), db.write() as conn:
            conn.execute("INSERT INTO store_settings (key, value) VALUES ('k', 'v')")
            raise RuntimeError("fails after the insert")
        assert db.conn.execute("SELECT count(*) FROM store_settings").fetchone() == (0,)


def test_pooled_connections_are_migrated_and_carry_the_writer(pg_url: str) -> None:
    with open_pool(pg_url, created_by="alice@laptop", max_size=2) as pool:
        with pool.connection() as c:
            assert c.execute("SELECT current_setting('memlode.created_by')").fetchone() == (
                "alice@laptop",
            )
            assert c.execute("SELECT count(*) FROM schema_migrations").fetchone() == (
                len(MIGRATIONS),
            )
            with write_transaction(c) as conn:
                memory_id, _ = memories.insert(
                    PgConnection(conn), NewMemory("from the pool", namespace="p")
                )
            vector = b"\x00\x00\x80?"
            with write_transaction(c) as conn:
                embeddings.write_vectors(
                    PgConnection(conn), [(memory_id, "m", 1, vector, "h", "t")]
                )
        with pool.connection() as c:
            row = c.execute("SELECT id, created_by FROM memories").fetchone()
            assert (row["id"], row["created_by"]) == (memory_id, "alice@laptop")
            got = vector_rows.vectors_after(PgConnection(c), "m", 1, 0).fetchall()
            assert [bytes(r[2]) for r in got] == [vector]


def test_an_unreachable_server_is_one_clear_error_without_the_password(pg_server: Any) -> None:
    url = "postgresql://bob:secret@/nosuchdb?host=" + str(pg_server.root)
    with pytest.raises(StorageError) as info:
        connect(url)
    message = str(info.value)
    assert "cannot connect to PostgreSQL at bob@" in message and "/nosuchdb" in message
    assert "secret" not in message
    assert describe("postgresql://u:pw@db.example:5433/team") == "u@db.example:5433/team"
