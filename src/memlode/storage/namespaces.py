"""Namespaces as a whole: which exist, which keys carry a readable name, deleting one, and
moving rows from one namespace to another (all of them, or a chosen part).

A namespace is a column on many tables (memories, sessions, the graph, code and doc indexes,
transcript offsets, the consolidation log) and part of two kinds of graph node id
(``sym:<namespace>:<qualified name>`` and ``pkg:project:<namespace>``, see ``memlode.code``), so
deleting or moving one is more than one UPDATE: this module keeps those pieces together.

Serves SQLite and PostgreSQL alike, skipping the tables a store lacks: PostgreSQL has no code
index (it stays in each machine's SQLite store) and no notes of SQLite's migration 0010, so
moving code (``_move_code``, SQLite's deferred foreign keys) and legacy notes are SQLite's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memlode.project import is_identity_key, readable_name
from memlode.storage.sql import dialect_of

if TYPE_CHECKING:
    from memlode.storage.sql import Connection

__all__ = [
    "LOOKUP_TABLES",
    "LegacyNamespace",
    "MoveReport",
    "Selection",
    "delete",
    "exists",
    "forget_legacy",
    "keys_named",
    "legacy_left",
    "listing",
    "move",
]

# Tables whose namespace column leads an index or that stay small: enough to tell whether a
# namespace exists (code symbols, references and packages always sit beside their code_files).
LOOKUP_TABLES = (
    "memories",
    "sessions",
    "graph_nodes",
    "code_files",
    "doc_files",
    "doc_folders",
    "transcript_files",
    "consolidation_log",
)
# The code map ``memlode index`` keeps for the SessionStart hook (memlode.engine.code).
_SESSION_MAP = "session_map:{namespace}"
_CHUNK = 500


def _tables(conn: Connection) -> set[str]:
    return {r[0] for r in conn.execute(dialect_of(conn).table_names())}


def exists(conn: Connection, namespace: str) -> bool:
    """Whether any row of the store is in ``namespace``."""
    present = _tables(conn)
    for table in LOOKUP_TABLES:
        if (
            table in present
            and conn.execute(
                f'SELECT 1 FROM "{table}" WHERE namespace = ? LIMIT 1', (namespace,)
            ).fetchone()
        ):
            return True
    return False


def keys_named(conn: Connection, name: str) -> list[str]:
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
                f'SELECT min(namespace) FROM "{table}" WHERE namespace > ? AND namespace < ?',
                (after, high),
            ).fetchone()
            if row is None or row[0] is None:
                break
            after = row[0]
            if is_identity_key(after) and readable_name(after) == name:
                found.add(after)
    return sorted(found)


def listing(conn: Connection) -> list[dict[str, object]]:
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
    ):
        entry(ns).update(memories=count, first_at=first, last_at=last)
    for ns, count in conn.execute("SELECT namespace, count(*) FROM sessions GROUP BY namespace"):
        entry(ns)["sessions"] = count
    if "code_files" in _tables(conn):
        for ns, count in conn.execute(
            "SELECT namespace, count(*) FROM code_files GROUP BY namespace"
        ):
            entry(ns)["code_files"] = count
    return [out[ns] for ns in sorted(out)]


def delete(conn: Connection, namespace: str) -> int:
    """Delete every row of ``namespace`` (inside the caller's transaction); return the number
    of memories deleted. Embeddings, memory nodes, edges, code symbols and references, doc
    chunks and transcript records go with their rows (foreign key cascades)."""
    present = _tables(conn)
    deleted = conn.execute("DELETE FROM memories WHERE namespace = ?", (namespace,)).rowcount
    for table in LOOKUP_TABLES[1:]:
        if table in present:
            conn.execute(f'DELETE FROM "{table}" WHERE namespace = ?', (namespace,))
    conn.execute(
        "DELETE FROM store_settings WHERE key = ?", (_SESSION_MAP.format(namespace=namespace),)
    )
    forget_legacy(conn, namespace)
    return int(deleted)


# ---- folder-name namespaces left by migration 0010 (memlode.storage.namespace_rekey) ----------


def _has_legacy_table(conn: Connection) -> bool:
    return "namespace_legacy" in _tables(conn)


def forget_legacy(conn: Connection, namespace: str, *, keep: bool = False) -> bool:
    """Drop the note on a folder-name namespace once nothing is left in it (or, ``keep``, when
    the user keeps the name on purpose); True if there was one."""
    if not _has_legacy_table(conn) or (not keep and exists(conn, namespace)):
        return False
    cur = conn.execute("DELETE FROM namespace_legacy WHERE namespace = ?", (namespace,))
    return bool(cur.rowcount > 0)


@dataclass(slots=True, frozen=True)
class LegacyNamespace:
    """A folder-name namespace migration 0010 left rows in."""

    namespace: str
    memories: int  # still in it
    sessions: int
    moved: int  # memories the migration moved out of it
    reason: str  # no-paths, several-projects, duplicates
    keys: tuple[str, ...]  # where the moved rows went


def legacy_left(conn: Connection) -> list[LegacyNamespace]:
    """Folder-name namespaces that migration 0010 could not (wholly) re-key and that still hold
    rows."""
    if not _has_legacy_table(conn):
        return []
    out: list[LegacyNamespace] = []
    for name, keys, moved, reason in conn.execute(
        "SELECT namespace, keys, moved, reason FROM namespace_legacy ORDER BY namespace"
    ).fetchall():
        if not exists(conn, name):
            continue
        memories = conn.execute("SELECT count(*) FROM memories WHERE namespace = ?", (name,))
        sessions = conn.execute("SELECT count(*) FROM sessions WHERE namespace = ?", (name,))
        parsed = json.loads(keys) if keys.startswith("[") else []
        out.append(
            LegacyNamespace(
                name,
                int(memories.fetchone()[0]),
                int(sessions.fetchone()[0]),
                int(moved),
                str(reason),
                tuple(str(k) for k in parsed),
            )
        )
    return out


# ---- moving rows ------------------------------------------------------------------------------


@dataclass(slots=True)
class Selection:
    """A part of a namespace to move: the rows named here and nothing else."""

    memories: set[str] = field(default_factory=set)
    sessions: set[str] = field(default_factory=set)
    code_roots: set[str] = field(default_factory=set)  # code_files.root
    doc_files: set[int] = field(default_factory=set)  # doc_files.id
    transcripts: set[str] = field(default_factory=set)  # transcript_files.path
    file_nodes: set[str] = field(default_factory=set)  # graph node ids 'file:<path>'

    def __bool__(self) -> bool:
        return bool(
            self.memories
            or self.sessions
            or self.code_roots
            or self.doc_files
            or self.transcripts
            or self.file_nodes
        )


@dataclass(slots=True)
class MoveReport:
    memories: int = 0  # moved
    duplicates: int = 0  # left behind: the same content is already in the target
    sessions: int = 0
    code_files: int = 0  # moved with their symbols
    code_files_dropped: int = 0  # the target had its own code index: re-index to rebuild
    doc_files: int = 0

    def add(self, other: MoveReport) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def to_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__}


def _fill(conn: Connection, kind: str, values: Iterable[object]) -> None:
    conn.execute("DELETE FROM _ns_set WHERE kind = ?", (kind,))
    rows = ((kind, str(v)) for v in values)  # text: _scope casts where a column is not
    conn.executemany("INSERT INTO _ns_set VALUES (?, ?) ON CONFLICT DO NOTHING", rows)


def _scope(kind: str, column: str, cast: str = "") -> str:  # cast: the column's if not text
    value = f"CAST(value AS {cast})" if cast else "value"
    return f" AND {column} IN (SELECT {value} FROM _ns_set WHERE kind = '{kind}')"


def move(conn: Connection, old: str, new: str, selection: Selection | None = None) -> MoveReport:
    """Move the rows of namespace ``old`` (all of them, or only ``selection``) to ``new``,
    inside the caller's transaction. A memory whose content ``new`` already holds (same source)
    stays in ``old``; nothing is deleted except a code index that ``new`` already has its own
    of (it is derived from the files and rebuilt by ``memlode index``)."""
    report = MoveReport()
    if old == new:
        return report
    conn.execute(
        "CREATE TEMP TABLE IF NOT EXISTS _ns_set (kind TEXT, value TEXT, PRIMARY KEY (kind, value))"
    )
    conn.execute("DELETE FROM _ns_set")
    whole = selection is None
    if selection is not None:
        _fill(conn, "memory", selection.memories)
        _fill(conn, "session", selection.sessions)
        _fill(conn, "root", selection.code_roots)
        _fill(conn, "doc", selection.doc_files)
        _fill(conn, "transcript", selection.transcripts)
        _fill(conn, "file", selection.file_nodes)
    present = _tables(conn)
    _move_memories(conn, old, new, whole, report)
    report.sessions = conn.execute(
        "UPDATE sessions SET namespace = ? WHERE namespace = ?"
        + ("" if whole else _scope("session", "id")),
        (new, old),
    ).rowcount
    if "transcript_files" in present:
        conn.execute(
            "UPDATE transcript_files SET namespace = ? WHERE namespace = ?"
            + ("" if whole else _scope("transcript", "path")),
            (new, old),
        )
    if "doc_files" in present:
        report.doc_files = conn.execute(  # not over a file the target has: it stays
            "UPDATE doc_files AS d SET namespace = ? WHERE d.namespace = ?"
            + ("" if whole else _scope("doc", "d.id", "INTEGER"))
            + " AND NOT EXISTS (SELECT 1 FROM doc_files t WHERE t.namespace = ?"
            " AND t.path = d.path)",
            (new, old, new),
        ).rowcount
    if "code_files" in present:
        _move_code(conn, old, new, whole, report)
    conn.execute(
        "UPDATE graph_nodes SET namespace = ? WHERE namespace = ? AND kind = 'file'"
        + ("" if whole else _scope("file", "id")),
        (new, old),
    )
    if whole:
        _move_rest(conn, old, new, present)
    else:
        # the code map is derived from the code index: the next `memlode index` writes it again
        conn.execute(
            "DELETE FROM store_settings WHERE key = ?", (_SESSION_MAP.format(namespace=old),)
        )
    conn.execute("DELETE FROM _ns_set")
    return report


def _move_memories(conn: Connection, old: str, new: str, whole: bool, report: MoveReport) -> None:
    scope = "" if whole else _scope("memory", "id")
    conn.execute("DELETE FROM _ns_set WHERE kind = 'moving'")
    conn.execute(
        "INSERT INTO _ns_set (kind, value) SELECT 'moving', id FROM memories"
        " WHERE namespace = ?" + scope,
        (old,),
    )
    report.memories = conn.execute(  # not over a memory the target holds (memories_dedup)
        "UPDATE memories AS m SET namespace = ? WHERE m.namespace = ?" + scope + " AND NOT EXISTS"
        " (SELECT 1 FROM memories t WHERE t.namespace = ? AND t.source = m.source"
        " AND t.content_hash = m.content_hash)",
        (new, old, new),
    ).rowcount
    report.duplicates = conn.execute(
        "SELECT count(*) FROM memories WHERE namespace = ?" + _scope("moving", "id"), (old,)
    ).fetchone()[0]
    moved = _scope("moving", "memory_id") + " AND memory_id IN (SELECT id FROM memories"
    moved += " WHERE namespace = ?)"
    conn.execute(
        "UPDATE graph_nodes SET namespace = ? WHERE namespace = ?" + moved, (new, old, new)
    )
    # The vector index's mirror (memlode.vector.index) keeps each row's namespace and notices
    # rows that were added or removed, by count and by the sum of their rowids. A new rowid for
    # each moved embedding is, to it, a removal and an insertion: it rebuilds, with the new
    # namespaces, instead of filtering by stale ones.
    rowid = dialect_of(conn).renumber_rowid("memory_embeddings")
    conn.execute(
        f"UPDATE memory_embeddings SET rowid = {rowid} WHERE 1 = 1"
        + _scope("moving", "memory_id")
        + " AND memory_id IN (SELECT id FROM memories WHERE namespace = ?)",
        (new,),
    )


def _move_code(conn: Connection, old: str, new: str, whole: bool, report: MoveReport) -> None:
    files_sql = "SELECT id FROM code_files WHERE namespace = ?" + (
        "" if whole else _scope("root", "root")
    )
    conn.execute("DELETE FROM _ns_set WHERE kind = 'code'")
    conn.execute(
        f"INSERT INTO _ns_set (kind, value) SELECT 'code', id FROM ({files_sql}) AS f", (old,)
    )
    count = conn.execute("SELECT count(*) FROM _ns_set WHERE kind = 'code'").fetchone()[0]
    if not count:
        return
    in_files = _scope("code", "file_id", "INTEGER")
    prefix = f"sym:{old}:"
    renames = [
        (node, f"sym:{new}:" + node[len(prefix) :])
        for (node,) in conn.execute(
            "SELECT node_id FROM code_symbols WHERE substr(node_id, 1, ?) = ?" + in_files,
            (len(prefix), prefix),
        )
    ]
    if whole:
        renames.append((f"pkg:project:{old}", f"pkg:project:{new}"))
    target_has_code = conn.execute(
        "SELECT 1 FROM code_files WHERE namespace = ? LIMIT 1", (new,)
    ).fetchone()
    clash = any(
        conn.execute("SELECT 1 FROM graph_nodes WHERE id = ?", (n,)).fetchone() for _, n in renames
    )
    if target_has_code or clash:
        # ``new`` has its own index of this code (fresher than ours): ours goes, the files'
        # nodes (which memories link to) stay and move with the other file nodes.
        conn.execute(
            "DELETE FROM graph_nodes WHERE id IN (SELECT node_id FROM code_symbols WHERE 1 = 1"
            + in_files
            + ")"
        )
        report.code_files_dropped = conn.execute(
            "DELETE FROM code_files WHERE 1 = 1" + _scope("code", "id", "INTEGER")
        ).rowcount
        if whole:
            conn.execute("DELETE FROM graph_nodes WHERE id = ?", (f"pkg:project:{old}",))
        return
    _rename_nodes(conn, renames)
    for table in ("code_symbols", "code_refs", "code_packages"):
        conn.execute(f"UPDATE {table} SET namespace = ? WHERE 1 = 1" + in_files, (new,))
    report.code_files = conn.execute(
        "UPDATE code_files SET namespace = ? WHERE 1 = 1" + _scope("code", "id", "INTEGER"), (new,)
    ).rowcount
    conn.execute(
        "UPDATE graph_nodes SET namespace = ? WHERE namespace = ? AND id IN"
        " (SELECT node_id FROM code_symbols WHERE 1 = 1" + in_files + ")",
        (new, old),
    )


def _rename_nodes(conn: Connection, renames: list[tuple[str, str]]) -> None:
    """Give graph nodes new ids everywhere an id is kept (edges, centrality, code tables)."""
    if not renames:
        return
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS _ns_rename (old TEXT PRIMARY KEY, new TEXT)")
    conn.execute("DELETE FROM _ns_rename")
    conn.executemany("INSERT INTO _ns_rename VALUES (?, ?) ON CONFLICT DO NOTHING", renames)
    # Edges and centrality point at the old ids until their own UPDATE: check foreign keys at
    # commit, when every reference has moved (reset by SQLite when the transaction ends).
    conn.execute("PRAGMA defer_foreign_keys = ON")
    for table, column in (
        ("graph_nodes", "id"),
        ("graph_edges", "source_id"),
        ("graph_edges", "target_id"),
        ("graph_centrality", "node_id"),
        ("code_symbols", "node_id"),
        ("code_refs", "source_id"),
        ("code_refs", "target_id"),
    ):
        conn.execute(
            f"UPDATE {table} SET {column} = (SELECT new FROM _ns_rename WHERE old = {column})"
            f" WHERE {column} IN (SELECT old FROM _ns_rename)"
        )
    conn.execute("DELETE FROM _ns_rename")


def _move_rest(conn: Connection, old: str, new: str, present: set[str]) -> None:
    """What only a whole move takes along: the rest of the graph, registered doc folders, the
    consolidation log and the code map."""
    conn.execute(
        "UPDATE graph_nodes SET namespace = ? WHERE namespace = ? AND (memory_id IS NULL OR"
        " memory_id NOT IN (SELECT id FROM memories WHERE namespace = ?))",  # duplicates stay
        (new, old, old),
    )
    if "doc_folders" in present:
        conn.execute(  # not over a folder the target has registered: it goes below
            "UPDATE doc_folders AS f SET namespace = ? WHERE f.namespace = ? AND NOT EXISTS"
            " (SELECT 1 FROM doc_folders t WHERE t.namespace = ? AND t.path = f.path)",
            (new, old, new),
        )
        conn.execute("DELETE FROM doc_folders WHERE namespace = ?", (old,))  # already in new
    if "consolidation_log" in present:
        conn.execute("UPDATE consolidation_log SET namespace = ? WHERE namespace = ?", (new, old))
    old_key, new_key = _SESSION_MAP.format(namespace=old), _SESSION_MAP.format(namespace=new)
    conn.execute(
        "INSERT INTO store_settings (key, value) SELECT ?, value FROM store_settings"
        " WHERE key = ? ON CONFLICT (key) DO NOTHING",
        (new_key, old_key),
    )
    conn.execute("DELETE FROM store_settings WHERE key = ?", (old_key,))
