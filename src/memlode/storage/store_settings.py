"""The store's own key/value settings (``store_settings``): ranking weights set at run time,
the rendered repo map each project's SessionStart shows. Serves SQLite and PostgreSQL alike.
Import-light: the hooks read it."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = ["delete_setting", "get_setting", "put_setting"]


def get_setting(conn: Connection, key: str) -> str | None:
    """The value stored under ``key``, or None."""
    row = conn.execute("SELECT value FROM store_settings WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def put_setting(conn: Connection, key: str, value: str) -> None:
    """Store ``value`` under ``key``, replacing what was there (inside the caller's write)."""
    conn.execute(
        "INSERT INTO store_settings (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def delete_setting(conn: Connection, key: str) -> None:
    """Forget ``key`` (inside the caller's write)."""
    conn.execute("DELETE FROM store_settings WHERE key = ?", (key,))
