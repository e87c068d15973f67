"""``memlode.storage.open_store``: one way to open a store, by its location. A SQLite file gives a
``Database``, a ``postgresql://`` URL a ``PgDatabase``; both have what the engine uses of a store
(``memlode.storage.store.Store``), and who stores (``created_by``) reaches the server's rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from memlode.errors import StorageError
from memlode.storage import open_store
from memlode.storage.db import Database
from memlode.storage.postgres.adapter import PgConnection
from memlode.storage.postgres.connection import PgDatabase, store_key
from memlode.storage.postgres.dialect import POSTGRESQL
from memlode.storage.sql import SQLITE, dialect_of


def test_a_file_opens_sqlite(tmp_path: Path) -> None:
    with open_store(tmp_path / "m.db") as db:
        assert isinstance(db, Database) and db.dialect.name == "sqlite"
        assert db.path == tmp_path / "m.db" and db.key == str((tmp_path / "m.db").resolve())
        assert db.writable and db.size_bytes() > 0 and dialect_of(db.conn) is SQLITE is db.dialect
        reader = db.reader()
        assert reader is not None
        reader.close()
    with open_store(":memory:") as memory:
        assert memory.key is None and memory.reader() is None


def test_a_url_opens_postgresql(pg_store_url: str) -> None:
    with open_store(f"  {pg_store_url}  ", created_by="ana@laptop") as db:
        assert isinstance(db, PgDatabase) and isinstance(db.conn, PgConnection)
        assert db.dialect.name == "postgresql" and dialect_of(db.conn) is POSTGRESQL is db.dialect
        assert db.path is None and db.writable and db.size_bytes() > 0
        assert db.key == store_key(pg_store_url) and db.display.startswith("postgres@")
        with db.write() as conn:
            conn.execute("INSERT INTO store_settings (key, value) VALUES (?, ?)", ("k", "v"))
        assert db.one("SELECT value FROM store_settings WHERE key = ?", ("k",)) == ("v",)
        assert [tuple(r) for r in db.query("SELECT key FROM store_settings")] == [("k",)]
        assert db.one("SELECT current_setting('memlode.created_by')") == ("ana@laptop",)
        reader = db.reader()
        try:
            assert reader.execute("SELECT value FROM store_settings").fetchone() == ("v",)
        finally:
            reader.close()


def test_a_read_only_store_refuses_writes_with_the_reason(pg_store_url: str) -> None:
    with open_store(pg_store_url, readonly=True) as db:
        assert not db.writable
        with pytest.raises(StorageError, match="opened read-only"), db.write():
            pass


def test_the_key_names_the_store_without_its_password() -> None:
    plain = "postgresql://team@db.example:5432/memory?options=-csearch_path%3Dteam"
    secret = "postgresql://team:s3cret@db.example:5432/memory?options=-csearch_path%3Dteam"
    assert store_key(plain) == store_key(secret) and "s3cret" not in store_key(secret)
    other = "postgresql://team@db.example:5432/memory?options=-csearch_path%3Dother"
    assert store_key(other) != store_key(plain)
