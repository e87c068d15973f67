"""Conversation context on PostgreSQL: each turn of a conversation knows its neighbours in the
session (the counterpart of ``memlode.storage.turn_context``; Protocol ``TurnContextRows``).
Order within a session is insertion order: ``rowid`` here too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.storage.capture import CONVERSATION_SOURCES
from memlode.storage.turn_context import NEIGHBOUR_CHARS

if TYPE_CHECKING:
    from collections.abc import Iterable

    import psycopg

__all__ = ["refresh_context", "session_orders"]


def refresh_context(conn: psycopg.Connection[Any], session_ids: Iterable[str]) -> int:
    """Recompute the context columns of every conversation memory in these sessions.

    Returns the number of rows whose context changed (only those are written).
    """
    changed = 0
    sources = sorted(CONVERSATION_SOURCES)
    for session_id in sorted(set(session_ids)):
        rows = conn.execute(
            "SELECT id, content, context_near, context_far FROM memories"
            " WHERE session_id = %s AND source = ANY(%s) ORDER BY rowid",
            (session_id, sources),
        ).fetchall()
        texts = [r[1][:NEIGHBOUR_CHARS] for r in rows]
        updates: list[tuple[str, str, str]] = []
        for i, row in enumerate(rows):
            near = "\n".join(texts[j] for j in (i - 1, i + 1) if 0 <= j < len(rows))
            far = "\n".join(texts[j] for j in (i - 2, i + 2) if 0 <= j < len(rows))
            if near != row[2] or far != row[3]:
                updates.append((near, far, row[0]))
        if updates:
            with conn.cursor() as cur:
                cur.executemany(
                    "UPDATE memories SET context_near = %s, context_far = %s WHERE id = %s",
                    updates,
                )
        changed += len(updates)
    return changed


def session_orders(
    conn: psycopg.Connection[Any], session_ids: Iterable[str]
) -> dict[str, list[str]]:
    """Memory ids of conversation memories per session, in conversation order."""
    wanted = sorted(set(session_ids))
    out: dict[str, list[str]] = {s: [] for s in wanted}
    if not wanted:
        return out
    rows = conn.execute(
        "SELECT session_id, id FROM memories WHERE session_id = ANY(%s) AND source = ANY(%s)"
        " ORDER BY rowid",
        (wanted, sorted(CONVERSATION_SOURCES)),
    )
    for session_id, memory_id in rows:
        out[session_id].append(memory_id)
    return out
