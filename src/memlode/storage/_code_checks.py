"""Checks the code index's bulk writes make themselves, and the IN-list helpers they share:
SQLite's per-row CHECK and foreign-key work is measurable on a whole project's rows, so the
writers of ``memlode.storage.code_repo`` check a batch once instead."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = ["check_references", "checked_here", "chunks", "foreign_keys_off", "marks"]

_CHUNK = 500  # host parameters per IN (...) list


@contextmanager
def checked_here(
    conn: sqlite3.Connection, values: Iterable[str], allowed: Iterable[str]
) -> Iterator[None]:
    """SQLite's CHECK constraints skipped for the statements prepared inside, once ``values``
    are found among ``allowed`` (the list the schema's CHECK names).

    A CHECK of the form ``x IN (...)`` costs 4 to 10 us a row however the rows arrive (SQLite
    3.40): measured, about half the time of inserting the stdlib's 50k edges (0.3 to 0.5 s) and
    0.07 s of its 22k nodes. The flag is read when a statement is prepared and prepared
    statements are cached, so only statements that run nowhere else may run inside (two, below).
    Foreign keys, NOT NULL and UNIQUE still apply.
    """
    unknown = set(values) - set(allowed)
    if unknown:
        raise ValueError(f"values the schema does not allow: {sorted(unknown)}")
    before = int(conn.execute("PRAGMA ignore_check_constraints").fetchone()[0])
    conn.execute("PRAGMA ignore_check_constraints = ON")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA ignore_check_constraints = {before}")


def foreign_keys_off(conn: sqlite3.Connection) -> bool:
    return not conn.execute("PRAGMA foreign_keys").fetchone()[0]


def check_references(conn: sqlite3.Connection, table: str, ids: Iterable[Any]) -> None:
    """When foreign keys are off (``Database.write(foreign_keys=False)``), what SQLite would
    have checked on each row: every id names a row of ``table`` (by its key ``id``). One
    lookup per distinct id instead of one per row and reference."""
    if not foreign_keys_off(conn):
        return  # SQLite checks them itself
    wanted = sorted(set(ids))
    found = 0
    for chunk in chunks(wanted):
        sql = f'SELECT count(*) FROM "{table}" WHERE id IN ({marks(chunk)})'
        found += int(conn.execute(sql, chunk).fetchone()[0])
    if found != len(wanted):
        raise sqlite3.IntegrityError(f"FOREIGN KEY constraint failed: a row names no {table} row")


def chunks(items: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def marks(items: Sequence[Any]) -> str:
    return ",".join("?" * len(items))
