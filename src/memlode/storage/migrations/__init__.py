"""Numbered schema migrations: ``NNNN_name.sql`` files in this package, applied in order.

A change that SQL alone cannot make (one that reads the file system) is a ``NNNN_name.py``
module with a ``migrate(conn)`` function instead, run at its place in the order, in the same
kind of transaction.

Each migration and its record in ``schema_migrations`` commit in one transaction, under
``BEGIN IMMEDIATE`` so that parallel processes opening a fresh database never apply one twice.
A capability that needs tables adds one file here; nothing else changes.
"""

from __future__ import annotations

import re
import sqlite3
from importlib import resources

__all__ = ["MIGRATIONS", "apply_migrations", "latest_version", "split_statements"]

_NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.(sql|py)$")
_PYTHON: dict[int, str] = {}  # version -> module name of a Python migration


def _load() -> list[tuple[int, str, str]]:
    found: list[tuple[int, str, str]] = []
    for entry in resources.files(__package__).iterdir():
        match = _NAME.match(entry.name)
        if match:
            version = int(match.group(1))
            if match.group(3) == "py":
                _PYTHON[version] = entry.name[: -len(".py")]
                found.append((version, match.group(2), ""))  # no SQL: see _run_python
            else:
                found.append((version, match.group(2), entry.read_text(encoding="utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if len(versions) != len(set(versions)):
        raise RuntimeError(f"duplicate migration numbers in {versions}")
    return found


MIGRATIONS = _load()


def latest_version() -> int:
    return MIGRATIONS[-1][0] if MIGRATIONS else 0


def split_statements(script: str) -> list[str]:
    """Split a SQL script into complete statements (trigger bodies keep their semicolons)."""
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip() and not buffer.strip().startswith("--"):
        statements.append(buffer.strip())
    return statements


def _run_python(conn: sqlite3.Connection, version: int) -> None:
    """Run a Python migration (imported only when it is pending)."""
    import importlib

    module = importlib.import_module(f"{__package__}.{_PYTHON[version]}")
    module.migrate(conn)


def _applied(conn: sqlite3.Connection) -> set[int]:
    rows = conn.execute("SELECT version FROM schema_migrations").fetchall()
    return {int(r[0]) for r in rows}


def apply_migrations(conn: sqlite3.Connection) -> list[int]:
    """Apply every pending migration; return the versions applied by this call."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    if _applied(conn) >= {v for v, _, _ in MIGRATIONS}:
        return []
    done: list[int] = []
    for version, name, script in MIGRATIONS:
        conn.execute("BEGIN IMMEDIATE")
        try:
            if version in _applied(conn):  # another process got there first
                conn.execute("COMMIT")
                continue
            for statement in split_statements(script):
                conn.execute(statement)
            if version in _PYTHON:
                _run_python(conn, version)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) "
                "VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                (version, name),
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite rolls back itself after SQLITE_FULL, IOERR
                conn.execute("ROLLBACK")
            raise
        done.append(version)
    return done
