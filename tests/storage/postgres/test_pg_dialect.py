"""PostgreSQL's dialect is a subclass of SQLite's (``memlode.storage.sql.Dialect``) that spells
every construct and flag itself, and a SQLite process never loads it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from memlode.storage.postgres.adapter import PgConnection
from memlode.storage.postgres.dialect import POSTGRESQL, PostgresDialect
from memlode.storage.sql import SQLITE, Dialect, dialect_of

# What the base builds from the methods a backend overrides, so a backend need not.
BUILT_FROM_OTHERS = {"fetch_vectors"}


def _members(cls: type) -> set[str]:
    return {n for n in vars(cls) if not n.startswith("_")}


def test_postgresql_spells_every_construct_and_flag_itself() -> None:
    constructs = _members(Dialect) - BUILT_FROM_OTHERS
    assert {"has_fts5", "on_server", "typed", "has_code_tables", "json_has"} <= constructs
    assert constructs - _members(PostgresDialect) == set()
    for name in constructs:
        if callable(getattr(Dialect, name)):
            assert getattr(PostgresDialect, name) is not getattr(Dialect, name), name
    assert (SQLITE.has_fts5, SQLITE.on_server, SQLITE.typed) == (True, False, False)
    assert (POSTGRESQL.has_fts5, POSTGRESQL.on_server, POSTGRESQL.typed) == (False, True, True)
    assert not hasattr(SQLITE, "postgres") and not hasattr(POSTGRESQL, "postgres")


def test_a_connection_carries_its_dialect() -> None:
    assert isinstance(POSTGRESQL, Dialect) and PgConnection.dialect is POSTGRESQL
    assert dialect_of(object()) is SQLITE and dialect_of(None) is SQLITE
    assert repr(POSTGRESQL) == "PostgresDialect('postgresql')"


def test_a_sqlite_store_never_loads_the_postgresql_package(tmp_path: Path) -> None:
    """Open a SQLite store, report on it, store a vector, read its texts in a snapshot: no module
    of ``memlode.storage.postgres`` is imported (``storage.sql`` does not know PostgreSQL's
    dialect exists)."""
    code = (
        "import sys\n"
        "from memlode.storage import open_store, embeddings, fts_texts, store_stats\n"
        f"with open_store({str(tmp_path / 'm.db')!r}) as db:\n"
        "    with db.write() as conn:\n"
        "        embeddings.write_vectors(conn, [('x', 'm', 1, b'\\0\\0\\0\\0', 'h', 't')])\n"
        "    assert store_stats.database_state(db.conn)['ok']\n"
        "    with fts_texts.read_snapshot(db.conn):\n"
        "        list(fts_texts.text_rows(db.conn))\n"
        "print(','.join(m for m in sys.modules if m.startswith('memlode.storage.postgres')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
