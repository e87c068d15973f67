"""The store's own key/value settings on PostgreSQL (the counterpart of
``memlode.storage.store_settings``; Protocol ``SettingRows``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

__all__ = ["delete_setting", "get_setting", "put_setting"]


def get_setting(conn: psycopg.Connection[Any], key: str) -> str | None:
    """The value stored under ``key``, or None."""
    row = conn.execute("SELECT value FROM store_settings WHERE key = %s", (key,)).fetchone()
    return None if row is None else str(row[0])


def put_setting(conn: psycopg.Connection[Any], key: str, value: str) -> None:
    """Store ``value`` under ``key``, replacing what was there (inside the caller's write)."""
    conn.execute(
        "INSERT INTO store_settings (key, value) VALUES (%s, %s)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def delete_setting(conn: psycopg.Connection[Any], key: str) -> None:
    """Forget ``key`` (inside the caller's write)."""
    conn.execute("DELETE FROM store_settings WHERE key = %s", (key,))
