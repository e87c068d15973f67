"""What the hooks' injections read: for the SessionStart briefing, counts, recent session
summaries, key memories, recent edits and file hotspots of one namespace; for a recalled
failure, the command that came after it.

Serves SQLite and PostgreSQL alike. Import-light (a hook process reads these at every session
start): parameters in, plain rows out; what to show and how is ``memlode.hooks.injection``'s.
The rendered repo map is kept here too: rendering one needs igraph and the code index, far too
heavy for a hook, so the graph refresh renders it (``memlode.engine.code.repo_map``) and the hook
reads the text.
"""

from __future__ import annotations

from memlode.storage.sql import dialect_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from memlode.storage.sql import Connection

__all__ = [
    "EDIT_TOOLS",
    "SESSION_MAP_KEY",
    "STRONG_PATTERN",
    "file_hotspots",
    "keep_session_map",
    "key_memories",
    "memory_command",
    "next_command",
    "open_reflections",
    "recent_edits",
    "recent_summaries",
    "session_count",
    "session_map",
    "strong_patterns",
    "type_counts",
]

# The store_settings key of a namespace's kept repo map.
SESSION_MAP_KEY = "session_map:{namespace}"
# SessionStart shows detected patterns (engine/consolidation/patterns) at least this strong:
# a hotspot of 3 sessions in 4 (0.45) is not, one of 4 in 5 (0.64) is; a single error -> fix
# pair (0.5) is not, one fixed the same way in another session too (0.75) is.
STRONG_PATTERN = 0.6
# Tools whose observations are edits of a file.
EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")


def type_counts(conn: Connection, namespace: str) -> list[Any]:
    """(memory_type, count, latest created_at) of the namespace, most common type first."""
    rows: list[Any] = conn.execute(
        "SELECT memory_type, count(*), max(created_at) FROM memories WHERE namespace = ?"
        " GROUP BY 1 ORDER BY 2 DESC",
        (namespace,),
    ).fetchall()
    return rows


def session_count(conn: Connection, namespace: str) -> int:
    row = conn.execute("SELECT count(*) FROM sessions WHERE namespace = ?", (namespace,)).fetchone()
    return int(row[0])


def recent_summaries(
    conn: Connection, namespace: str, current_session: str, limit: int
) -> list[Any]:
    """(started_at, summary) of the latest other sessions that have a summary."""
    rows: list[Any] = conn.execute(
        "SELECT started_at, summary FROM sessions WHERE namespace = ? AND id != ?"
        " AND summary IS NOT NULL AND summary != '' ORDER BY started_at DESC LIMIT ?",
        (namespace, current_session, limit),
    ).fetchall()
    return rows


def key_memories(
    conn: Connection,
    namespace: str,
    types: Sequence[str],
    capture_source: str,
    limit: int,
    derived_source: str = "",
) -> list[Any]:
    """(memory_type, content, created_at, id) of memories of ``types`` stored on purpose, or
    the user's own answers and approved plans among captured ones; never a compaction summary's
    chunks (that state is history once the session went on), nor what consolidation derived
    (``derived_source``: detected patterns and reflections have their own sections), nor one a
    later memory replaced (``storage.supersession``: the hook shows it as its successor's
    history). Most important first."""
    d = dialect_of(conn)
    marks = ",".join("?" * len(types))
    rows: list[Any] = conn.execute(
        "SELECT memory_type, content, created_at, id FROM memories WHERE namespace = ?"
        " AND id NOT IN (SELECT target_id FROM graph_edges WHERE relationship = 'SUPERSEDES')"
        f" AND memory_type IN ({marks}) AND source != ?"
        f" AND (source != ? OR {d.json_text('metadata', 'tool')} IN ('AskUserQuestion',"
        " 'ExitPlanMode'))"
        f" AND coalesce({d.json_text('metadata', 'summary')}, '') != 'compaction'"
        f" AND {d.json_text('metadata', 'pattern')} IS NULL"
        " ORDER BY importance DESC, created_at DESC LIMIT ?",
        (namespace, *types, derived_source, capture_source, limit),
    ).fetchall()
    return rows


def open_reflections(
    conn: Connection,
    namespace: str,
    derived_source: str,
    open_tag: str,
    current_session: str,
    limit: int,
) -> list[Any]:
    """(content, created_at) of the latest reflection insights tagged ``open_tag`` of other
    sessions that no later insight stands for (what is still open), newest first."""
    rows: list[Any] = conn.execute(
        "SELECT m.content, m.created_at FROM memories AS m WHERE m.namespace = ?"
        " AND m.source = ? AND (m.session_id IS NULL OR m.session_id != ?)"
        f" AND {dialect_of(conn).json_has('m.tags')}"
        " AND NOT EXISTS (SELECT 1 FROM memory_demotions AS d WHERE d.memory_id = m.id)"
        " ORDER BY m.created_at DESC LIMIT ?",
        (namespace, derived_source, current_session, open_tag, limit),
    ).fetchall()
    return rows


def recent_edits(
    conn: Connection,
    namespace: str,
    capture_source: str,
    current_session: str,
    limit: int,
) -> list[Any]:
    """(content, created_at) of the latest captured edits of other sessions."""
    marks = ",".join("?" * len(EDIT_TOOLS))
    rows: list[Any] = conn.execute(
        "SELECT content, created_at FROM memories WHERE namespace = ? AND source = ?"
        f" AND {dialect_of(conn).json_text('metadata', 'tool')} IN ({marks})"
        " AND (session_id IS NULL OR session_id != ?) ORDER BY created_at DESC LIMIT ?",
        (namespace, capture_source, *EDIT_TOOLS, current_session, limit),
    ).fetchall()
    return rows


def file_hotspots(conn: Connection, namespace: str, days: int, limit: int) -> list[Any]:
    """(file name, edits, reads) of the files most worked on in the last ``days`` days
    (an edit counts three times a read)."""
    d = dialect_of(conn)
    action = d.json_text("e.properties", "action")
    edits = f"sum(CASE WHEN {action} = 'edit' THEN 1 ELSE 0 END)"
    rows: list[Any] = conn.execute(
        f"SELECT n.name, {edits}, sum(CASE WHEN {action} = 'read' THEN 1 ELSE 0 END)"
        " FROM graph_edges e JOIN graph_nodes n ON n.id = e.target_id"
        " WHERE n.kind = 'file' AND n.namespace = ? AND e.relationship = 'RELATES_TO'"
        f" AND e.created_at >= {d.days_ago()}"
        f" GROUP BY n.id ORDER BY 3 * {edits} + count(*) DESC, max(e.id) DESC LIMIT ?",
        (namespace, int(days), limit),
    ).fetchall()
    return rows


def strong_patterns(
    conn: Connection,
    namespace: str,
    source: str,
    min_strength: float,
    limit: int,
    skip_kinds: Sequence[str] = (),
) -> list[Any]:
    """(content, strength) of the strongest patterns ``source`` (consolidation) detected in the
    namespace, at least ``min_strength`` strong and not of ``skip_kinds``; at most ``limit``."""
    d = dialect_of(conn)
    marks = ",".join("?" * len(skip_kinds)) or "''"
    pattern, strength = d.json_text("metadata", "pattern"), d.json_number("metadata", "strength")
    rows: list[Any] = conn.execute(
        f"SELECT content, {strength} FROM memories"
        f" WHERE namespace = ? AND source = ? AND {pattern} IS NOT NULL"
        f" AND {pattern} NOT IN ({marks}) AND {strength} >= ?"
        f" ORDER BY {strength} DESC, updated_at DESC LIMIT ?",
        (namespace, source, *skip_kinds, min_strength, limit),
    ).fetchall()
    return rows


def session_map(conn: Connection, namespace: str) -> str | None:
    """The repo map kept for the namespace's SessionStart, or None when none was kept."""
    from memlode.storage.store_settings import get_setting

    return get_setting(conn, SESSION_MAP_KEY.format(namespace=namespace))


def keep_session_map(conn: Connection, namespace: str, text: str) -> None:
    """Keep ``text`` as the namespace's SessionStart map (inside the caller's write)."""
    from memlode.storage.store_settings import put_setting

    put_setting(conn, SESSION_MAP_KEY.format(namespace=namespace), text)


def next_command(
    conn: Connection, memory_id: str, like: str, failure_tag: str
) -> tuple[str, str] | None:
    """(content, command) of the first observation after ``memory_id`` in its session whose
    command matches the LIKE pattern ``like`` (ASCII case ignored) and that is not tagged
    ``failure_tag``, or None."""
    d = dialect_of(conn)
    command = d.json_text("later.metadata", "command")
    row = conn.execute(
        f"SELECT later.content, {command} FROM memories AS m"
        " JOIN memories AS later ON later.session_id = m.session_id"
        " AND later.source = m.source AND later.rowid > m.rowid"
        f" WHERE m.id = ? AND {command} {d.like()} ? ESCAPE '\\'"
        f" AND {d.json_lacks('later.tags')}"
        " ORDER BY later.rowid LIMIT 1",
        (memory_id, like, failure_tag),
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


def memory_command(conn: Connection, memory_id: str) -> str | None:
    """The command an observation recorded (``metadata.command``), or None."""
    row = conn.execute(
        f"SELECT {dialect_of(conn).json_text('metadata', 'command')} FROM memories WHERE id = ?",
        (memory_id,),
    ).fetchone()
    return None if row is None or row[0] is None else str(row[0])
