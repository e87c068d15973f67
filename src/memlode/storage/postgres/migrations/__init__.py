"""Numbered schema migrations for PostgreSQL: ``NNNN_name.sql`` files in this package.

The same rules as the SQLite migrations (``memlode.storage.migrations``): applied in order, each
with its record in ``schema_migrations`` in one transaction, a store from any earlier version
upgraded in place. Many processes may open a fresh store at once (every machine of a team), so
the runner holds a session advisory lock keyed by the schema while it checks and applies; the
others wait, then find nothing left to do. A store whose migrations are all applied costs one
query and takes no lock.

A script is sent whole (psycopg sends a query without parameters as one simple query, several
statements and ``$$`` bodies included), so nothing here splits SQL.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

__all__ = ["MIGRATIONS", "apply_migrations", "latest_version"]

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")
# pg_advisory_lock(int, int): the first key says "memlode migrations" ('meml' as an int), the
# second is the hash of the schema, so two stores in one database migrate independently.
_LOCK_CLASS = 0x6D656D6C


def _load() -> list[tuple[int, str, str]]:
    found: list[tuple[int, str, str]] = []
    for entry in resources.files(__package__).iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), match.group(2), entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if len(versions) != len(set(versions)):
        raise RuntimeError(f"duplicate migration numbers in {versions}")
    return found


MIGRATIONS = _load()


def latest_version() -> int:
    return MIGRATIONS[-1][0] if MIGRATIONS else 0


def _applied(conn: psycopg.Connection[Any]) -> set[int] | None:
    """The versions applied (None: no ``schema_migrations`` table in this schema yet).

    Looked for in the current schema (the first of the search path that exists) only: a store
    made in a new schema ahead of one that holds a store (``-csearch_path=team,public`` with a
    store in ``public``) is migrated where it is, not taken for the other one."""
    row = conn.execute(
        "SELECT to_regclass(quote_ident(current_schema()) || '.schema_migrations') IS NOT NULL"
    ).fetchone()
    if row is None or not row[0]:
        return None
    return {int(str(r[0])) for r in conn.execute("SELECT version FROM schema_migrations")}


def apply_migrations(conn: psycopg.Connection[Any]) -> list[int]:
    """Apply every pending migration; return the versions applied by this call.

    ``conn`` must be in autocommit mode (each migration opens its own transaction).
    """
    wanted = {v for v, _, _ in MIGRATIONS}
    applied = _applied(conn)
    if applied is not None and applied >= wanted:
        return []
    conn.execute("SELECT pg_advisory_lock(%s, hashtext(current_schema()))", (_LOCK_CLASS,))
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done: list[int] = []
        for version, name, script in MIGRATIONS:
            if version in (_applied(conn) or set()):  # another process got there first
                continue
            with conn.transaction():
                conn.execute(script.encode("utf-8"))
                conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                    (version, name),
                )
            done.append(version)
        return done
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s, hashtext(current_schema()))", (_LOCK_CLASS,))
