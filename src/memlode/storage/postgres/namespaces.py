"""Namespaces as a whole on PostgreSQL: which exist, which keys carry a readable name, deleting
one, moving rows from one namespace to another (the counterpart of
``memlode.storage.namespaces``; Protocol ``NamespaceRows``), with the same rules and reports.

Differences that follow from the store, not from the rules: a chosen part travels as arrays of
ids (no temporary table); SQLite's ``UPDATE OR IGNORE`` is an UPDATE that leaves out the rows
whose key the target already holds; a moved memory's vector gets a new ``rowid``
(``SET rowid = DEFAULT``), so that a process's vector index rebuilds with the new namespaces,
as on SQLite. A PostgreSQL store has no code index (it stays in each machine's SQLite store)
and no folder-name namespaces from SQLite's migration 0010, so code moves and legacy notes are
skipped when their tables are absent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memlode.project import is_identity_key, readable_name
from memlode.storage.namespaces import (
    LOOKUP_TABLES,
    LegacyNamespace,
    MoveReport,
    Selection,
)

if TYPE_CHECKING:
    import psycopg

__all__ = [
    "delete",
    "exists",
    "forget_legacy",
    "keys_named",
    "legacy_left",
    "listing",
    "move",
]

_SESSION_MAP = "session_map:{namespace}"


def _tables(conn: psycopg.Connection[Any]) -> set[str]:
    rows = conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
    ).fetchall()
    return {str(r[0]) for r in rows}


def exists(conn: psycopg.Connection[Any], namespace: str) -> bool:
    """Whether any row of the store is in ``namespace``."""
    present = _tables(conn)
    for table in LOOKUP_TABLES:
        if (
            table in present
            and conn.execute(
                f'SELECT 1 FROM "{table}" WHERE namespace = %s LIMIT 1', (namespace,)
            ).fetchone()
        ):
            return True
    return False


def keys_named(conn: psycopg.Connection[Any], name: str) -> list[str]:
    """The project keys in the store whose readable name is ``name`` (``app`` -> ``app-…``)."""
    if not name:
        return []
    low, high = name + "-", name + "."  # every key that starts with "<name>-"
    found: set[str] = set()
    present = _tables(conn)
    for table in LOOKUP_TABLES:
        if table not in present:
            continue
        after = low
        while True:  # one index seek per distinct key instead of reading the whole range
            row = conn.execute(
                f'SELECT min(namespace) FROM "{table}" WHERE namespace > %s AND namespace < %s',
                (after, high),
            ).fetchone()
            if row is None or row[0] is None:
                break
            after = str(row[0])
            if is_identity_key(after) and readable_name(after) == name:
                found.add(after)
    return sorted(found)


def listing(conn: psycopg.Connection[Any]) -> list[dict[str, object]]:
    """Every namespace that holds memories, sessions or a code index, with counts and times."""
    out: dict[str, dict[str, object]] = {}

    def entry(ns: str) -> dict[str, object]:
        return out.setdefault(
            ns,
            {
                "namespace": ns,
                "name": readable_name(ns),
                "memories": 0,
                "sessions": 0,
                "code_files": 0,
                "first_at": None,
                "last_at": None,
            },
        )

    for ns, count, first, last in conn.execute(
        "SELECT namespace, count(*), min(created_at), max(created_at) FROM memories"
        " GROUP BY namespace"
    ).fetchall():
        entry(ns).update(memories=int(count), first_at=first, last_at=last)
    for ns, count in conn.execute(
        "SELECT namespace, count(*) FROM sessions GROUP BY namespace"
    ).fetchall():
        entry(ns)["sessions"] = int(count)
    if "code_files" in _tables(conn):
        for ns, count in conn.execute(
            "SELECT namespace, count(*) FROM code_files GROUP BY namespace"
        ).fetchall():
            entry(ns)["code_files"] = int(count)
    return [out[ns] for ns in sorted(out)]


def delete(conn: psycopg.Connection[Any], namespace: str) -> int:
    """Delete every row of ``namespace`` (inside the caller's transaction); return the number
    of memories deleted. What hangs off a row goes with it (foreign key cascades)."""
    present = _tables(conn)
    deleted = conn.execute("DELETE FROM memories WHERE namespace = %s", (namespace,)).rowcount
    for table in LOOKUP_TABLES[1:]:
        if table in present:
            conn.execute(f'DELETE FROM "{table}" WHERE namespace = %s', (namespace,))
    conn.execute(
        "DELETE FROM store_settings WHERE key = %s", (_SESSION_MAP.format(namespace=namespace),)
    )
    forget_legacy(conn, namespace)
    return int(deleted)


def forget_legacy(conn: psycopg.Connection[Any], namespace: str, *, keep: bool = False) -> bool:
    """Drop the note on a folder-name namespace once nothing is left in it; a PostgreSQL store
    has no such notes unless a ``namespace_legacy`` table was copied into it."""
    if "namespace_legacy" not in _tables(conn) or (not keep and exists(conn, namespace)):
        return False
    cur = conn.execute("DELETE FROM namespace_legacy WHERE namespace = %s", (namespace,))
    return cur.rowcount > 0


def legacy_left(conn: psycopg.Connection[Any]) -> list[LegacyNamespace]:
    """Folder-name namespaces SQLite's migration 0010 left rows in: none on PostgreSQL."""
    return []


def _scope(column: str, values: set[Any] | None) -> tuple[str, list[object]]:
    """`` AND column = ANY(values)`` for a chosen part; nothing for a whole move."""
    if values is None:
        return "", []
    return f" AND {column} = ANY(%s)", [sorted(values)]


def move(
    conn: psycopg.Connection[Any], old: str, new: str, selection: Selection | None = None
) -> MoveReport:
    """Move the rows of namespace ``old`` (all of them, or only ``selection``) to ``new``,
    inside the caller's transaction. A memory whose content ``new`` already holds (same source)
    stays in ``old``; nothing is deleted."""
    report = MoveReport()
    if old == new:
        return report
    whole = selection is None
    present = _tables(conn)
    _move_memories(conn, old, new, None if selection is None else selection.memories, report)
    where, params = _scope("id", None if selection is None else selection.sessions)
    report.sessions = conn.execute(
        f"UPDATE sessions SET namespace = %s WHERE namespace = %s{where}", [new, old, *params]
    ).rowcount
    if "transcript_files" in present:
        where, params = _scope("path", None if selection is None else selection.transcripts)
        conn.execute(
            f"UPDATE transcript_files SET namespace = %s WHERE namespace = %s{where}",
            [new, old, *params],
        )
    if "doc_files" in present:
        where, params = _scope("d.id", None if selection is None else selection.doc_files)
        report.doc_files = conn.execute(
            f"UPDATE doc_files AS d SET namespace = %s WHERE d.namespace = %s{where}"
            " AND NOT EXISTS (SELECT 1 FROM doc_files t WHERE t.namespace = %s"
            " AND t.path = d.path)",
            [new, old, *params, new],
        ).rowcount
    where, params = _scope("id", None if selection is None else selection.file_nodes)
    conn.execute(
        f"UPDATE graph_nodes SET namespace = %s WHERE namespace = %s AND kind = 'file'{where}",
        [new, old, *params],
    )
    if whole:
        _move_rest(conn, old, new, present)
    else:
        # the code map is derived from the code index: the next `memlode index` writes it again
        conn.execute(
            "DELETE FROM store_settings WHERE key = %s", (_SESSION_MAP.format(namespace=old),)
        )
    return report


def _move_memories(
    conn: psycopg.Connection[Any], old: str, new: str, chosen: set[str] | None, report: MoveReport
) -> None:
    where, params = _scope("m.id", chosen)
    moving = [
        str(r[0])
        for r in conn.execute(
            f"SELECT m.id FROM memories m WHERE m.namespace = %s{where}", [old, *params]
        ).fetchall()
    ]
    report.memories = conn.execute(
        f"UPDATE memories AS m SET namespace = %s WHERE m.namespace = %s{where}"
        " AND NOT EXISTS (SELECT 1 FROM memories t WHERE t.namespace = %s"
        " AND t.source = m.source AND t.content_hash = m.content_hash)",
        [new, old, *params, new],
    ).rowcount
    report.duplicates = len(moving) - report.memories
    moved = (
        " AND memory_id = ANY(%s) AND memory_id IN (SELECT id FROM memories WHERE namespace = %s)"
    )
    conn.execute(
        f"UPDATE graph_nodes SET namespace = %s WHERE namespace = %s{moved}",
        (new, old, moving, new),
    )
    # A new rowid for each moved vector: to a process's vector index (memlode.vector.index),
    # which notices rows by count and rowid sum, that is a removal and an insertion, so it
    # rebuilds with the new namespaces instead of filtering by stale ones.
    conn.execute(f"UPDATE memory_embeddings SET rowid = DEFAULT WHERE TRUE{moved}", (moving, new))


def _move_rest(conn: psycopg.Connection[Any], old: str, new: str, present: set[str]) -> None:
    """What only a whole move takes along: the rest of the graph, registered doc folders, the
    consolidation log and the code map."""
    conn.execute(
        "UPDATE graph_nodes SET namespace = %s WHERE namespace = %s AND (memory_id IS NULL OR"
        " memory_id NOT IN (SELECT id FROM memories WHERE namespace = %s))",  # duplicates stay
        (new, old, old),
    )
    if "doc_folders" in present:
        conn.execute(
            "UPDATE doc_folders AS f SET namespace = %s WHERE f.namespace = %s"
            " AND NOT EXISTS (SELECT 1 FROM doc_folders t WHERE t.namespace = %s"
            " AND t.path = f.path)",
            (new, old, new),
        )
        conn.execute("DELETE FROM doc_folders WHERE namespace = %s", (old,))  # already in new
    if "consolidation_log" in present:
        conn.execute("UPDATE consolidation_log SET namespace = %s WHERE namespace = %s", (new, old))
    old_key, new_key = _SESSION_MAP.format(namespace=old), _SESSION_MAP.format(namespace=new)
    conn.execute(
        "INSERT INTO store_settings (key, value) SELECT %s, value FROM store_settings"
        " WHERE key = %s ON CONFLICT (key) DO NOTHING",
        (new_key, old_key),
    )
    conn.execute("DELETE FROM store_settings WHERE key = %s", (old_key,))
