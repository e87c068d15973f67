"""Conversation context: each turn of a conversation knows its neighbours in the session.

A question about a conversation is often answered by a turn whose own words say little ("Yes,
last Tuesday!") next to one that names the topic. Memories from conversation sources therefore
carry their neighbours' text (distance 1 in ``context_near``, distance 2 in ``context_far``),
indexed for text search with lower column weights, and recall smooths their vectors and scores
with the same neighbours. Order within a session is insertion order (rowid, a column of its own
on PostgreSQL). One module for SQLite and PostgreSQL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memlode.storage.capture import CONVERSATION_SOURCES

if TYPE_CHECKING:
    from collections.abc import Iterable

    from memlode.storage.sql import Connection

__all__ = [
    "CONVERSATION_SOURCES",
    "NEIGHBOUR_CHARS",
    "refresh_context",
    "session_orders",
]

# Bound on each neighbour's text copied into a turn's context columns.
NEIGHBOUR_CHARS = 800


def refresh_context(conn: Connection, session_ids: Iterable[str]) -> int:
    """Recompute the context columns of every conversation memory in these sessions.

    Returns the number of rows whose context changed (only those are written).
    """
    changed = 0
    marks = ",".join("?" * len(CONVERSATION_SOURCES))
    for session_id in sorted(set(session_ids)):
        rows = conn.execute(
            "SELECT id, content, context_near, context_far FROM memories"
            f" WHERE session_id = ? AND source IN ({marks}) ORDER BY rowid",
            (session_id, *sorted(CONVERSATION_SOURCES)),
        ).fetchall()
        texts = [r[1][:NEIGHBOUR_CHARS] for r in rows]
        updates: list[tuple[str, str, str]] = []
        for i, row in enumerate(rows):
            near = "\n".join(texts[j] for j in (i - 1, i + 1) if 0 <= j < len(rows))
            far = "\n".join(texts[j] for j in (i - 2, i + 2) if 0 <= j < len(rows))
            if near != row[2] or far != row[3]:
                updates.append((near, far, row[0]))
        if updates:
            conn.executemany(
                "UPDATE memories SET context_near = ?, context_far = ? WHERE id = ?", updates
            )
            changed += len(updates)
    return changed


def session_orders(conn: Connection, session_ids: Iterable[str]) -> dict[str, list[str]]:
    """Memory ids of conversation memories per session, in conversation order."""
    wanted = sorted(set(session_ids))
    out: dict[str, list[str]] = {s: [] for s in wanted}
    marks = ",".join("?" * len(CONVERSATION_SOURCES))
    for start in range(0, len(wanted), 400):
        chunk = wanted[start : start + 400]
        rows = conn.execute(
            "SELECT session_id, id FROM memories"
            f" WHERE session_id IN ({','.join('?' * len(chunk))}) AND source IN ({marks})"
            " ORDER BY rowid",
            (*chunk, *sorted(CONVERSATION_SOURCES)),
        )
        for session_id, memory_id in rows:
            out[session_id].append(memory_id)
    return out
