"""Re-keying a store's folder-name namespaces (before migration 0010) to project identities.

Before 0010 a project's namespace was its root folder's name (``app``), so two repositories
both called ``app`` shared one. Now it is a key derived from the repository's identity
(``memlode.project``: ``app-1a2b3c4d``). For each old folder-name namespace this finds the
project root of every row that recorded a path — a session's ``cwd``, a transcript turn's
``cwd``, an observation's ``file``, a doc file's or code index's root, a file node's path —
as the nearest folder of that path named like the namespace (the old rule named the namespace
after the root), and computes that root's key (reading its ``.git/config`` if it is still there;
its path if it is gone). Then:

- the rows point at one project: every row of the namespace moves to its key, with or without
  a recorded path;
- they point at several (two repositories called ``app``): each row with a path moves to its
  own project's key; rows without one stay under the old name;
- no row recorded a path: everything stays.

Every old namespace is noted in ``namespace_legacy`` with what happened, so that ``memlode
doctor`` can warn about rows that stayed (and ``memlode namespaces --move`` can place them).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import defaultdict

from memlode.project import identity_at, is_identity_key, project_root
from memlode.storage.namespaces import LOOKUP_TABLES, MoveReport, Selection, move

__all__ = ["RESERVED", "legacy_namespaces", "rekey_legacy"]

# Namespaces that never named a project folder: outside any project, and the global docs.
RESERVED = frozenset({"", "global"})

LEGACY_TABLE = """
CREATE TABLE IF NOT EXISTS namespace_legacy (
    namespace   TEXT PRIMARY KEY,          -- a folder-name namespace from before migration 0010
    keys        TEXT NOT NULL DEFAULT '[]', -- JSON list: the project keys its rows went to
    moved       INTEGER NOT NULL DEFAULT 0, -- memories moved
    reason      TEXT NOT NULL DEFAULT '',   -- why rows stayed: no-paths, several-projects,
                                            -- duplicates; '' when none did
    migrated_at TEXT NOT NULL
)
"""


def legacy_namespaces(conn: sqlite3.Connection) -> list[str]:
    """Namespaces that are neither reserved nor project keys (folder names, or names a user
    chose with ``-n`` / ``MEMLODE_NAMESPACE``)."""
    present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    names: set[str] = set()
    for table in LOOKUP_TABLES:
        if table in present:
            names.update(r[0] for r in conn.execute(f'SELECT DISTINCT namespace FROM "{table}"'))
    return sorted(n for n in names if n not in RESERVED and not is_identity_key(n))


def _meta(text: object) -> dict[str, object]:
    if not isinstance(text, str) or not text.startswith("{"):
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and os.path.isabs(value) else None


class _Keys:
    """The project key of a recorded path, for one old namespace name (cached)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._paths: dict[str, str | None] = {}
        self._roots: dict[str, str] = {}

    def _named_ancestors(self, path: str) -> list[str]:
        found: list[str] = []
        here = os.path.normpath(path)
        while True:
            if os.path.basename(here) == self.name:
                found.append(here)
            parent = os.path.dirname(here)
            if parent == here:
                return found
            here = parent

    def _root(self, path: str) -> str | None:
        for candidate in dict.fromkeys([path, os.path.realpath(path)]):
            named = self._named_ancestors(candidate)
            if not named:
                continue
            # The old rule's root (the git top level, else the nearest marker folder) when the
            # folder is still there; else the nearest folder with the namespace's name.
            actual = project_root(candidate) if os.path.exists(candidate) else None
            return actual if actual in named else named[0]
        return None

    def key(self, path: str | None) -> str | None:
        if not path:
            return None
        if path not in self._paths:
            root = self._root(path)
            if root is None:
                self._paths[path] = None
            else:
                if root not in self._roots:
                    self._roots[root] = identity_at(root).key
                self._paths[path] = self._roots[root]
        return self._paths[path]

    def first(self, *paths: str | None) -> str | None:
        for path in paths:
            key = self.key(path)
            if key is not None:
                return key
        return None


def _assign(conn: sqlite3.Connection, name: str) -> dict[str, Selection]:
    """The rows of namespace ``name`` that recorded a path, by the key of their project."""
    keys = _Keys(name)
    out: dict[str, Selection] = defaultdict(Selection)
    session_cwd: dict[str, str | None] = {}

    def cwd_of(session_id: object) -> str | None:
        if not isinstance(session_id, str):
            return None
        if session_id not in session_cwd:
            row = conn.execute("SELECT metadata FROM sessions WHERE id = ?", (session_id,))
            found = row.fetchone()
            session_cwd[session_id] = _text(_meta(found[0]).get("cwd")) if found else None
        return session_cwd[session_id]

    for session_id, metadata in conn.execute(
        "SELECT id, metadata FROM sessions WHERE namespace = ?", (name,)
    ).fetchall():
        session_cwd[session_id] = _text(_meta(metadata).get("cwd"))
        key = keys.key(session_cwd[session_id])
        if key is not None:
            out[key].sessions.add(session_id)

    memory_key: dict[str, str] = {}
    # The paths a memory recorded, best first: its own cwd (a transcript turn), its session's
    # cwd (a hook observation), its doc file's root, the file it is about. Read by SQLite's
    # JSON functions: a store may hold millions of rows.
    for memory_id, *paths in conn.execute(
        "SELECT m.id, CASE WHEN json_valid(m.metadata) THEN json_extract(m.metadata, '$.cwd') END,"
        " (SELECT CASE WHEN json_valid(s.metadata) THEN json_extract(s.metadata, '$.cwd') END"
        "  FROM sessions s WHERE s.id = m.session_id),"
        " (SELECT f.root FROM doc_chunks c JOIN doc_files f ON f.id = c.file_id"
        "  WHERE c.memory_id = m.id LIMIT 1),"
        " CASE WHEN json_valid(m.metadata) THEN json_extract(m.metadata, '$.file') END,"
        " CASE WHEN json_valid(m.metadata) THEN json_extract(m.metadata, '$.path') END"
        " FROM memories m WHERE m.namespace = ?",
        (name,),
    ):
        key = keys.first(*(_text(p) for p in paths))
        if key is not None:
            out[key].memories.add(memory_id)
            memory_key[memory_id] = key

    for (root,) in conn.execute(
        "SELECT DISTINCT root FROM code_files WHERE namespace = ?", (name,)
    ).fetchall():
        key = keys.key(root)
        if key is not None:
            out[key].code_roots.add(root)
    for file_id, root in conn.execute(
        "SELECT id, root FROM doc_files WHERE namespace = ?", (name,)
    ).fetchall():
        key = keys.key(root)
        if key is not None:
            out[key].doc_files.add(file_id)
    for path, session_id in conn.execute(
        "SELECT path, session_id FROM transcript_files WHERE namespace = ?", (name,)
    ).fetchall():
        key = keys.key(cwd_of(session_id))
        if key is None:  # else: where the transcript's turns went
            chunk = conn.execute(
                "SELECT memory_id FROM transcript_chunks WHERE path = ?", (path,)
            ).fetchall()
            key = next((memory_key[r[0]] for r in chunk if r[0] in memory_key), None)
        if key is not None:
            out[key].transcripts.add(path)
    for (node_id,) in conn.execute(
        "SELECT id FROM graph_nodes WHERE namespace = ? AND kind = 'file' AND id LIKE 'file:%'",
        (name,),
    ).fetchall():
        key = keys.key(node_id[len("file:") :])
        if key is not None:
            out[key].file_nodes.add(node_id)
    return dict(out)


def rekey_legacy(conn: sqlite3.Connection, now: str) -> dict[str, MoveReport]:
    """Re-key every folder-name namespace (inside the caller's transaction); record each in
    ``namespace_legacy``. Returns what moved, by old namespace."""
    conn.execute(LEGACY_TABLE)
    reports: dict[str, MoveReport] = {}
    for name in legacy_namespaces(conn):
        parts = _assign(conn, name)
        report = MoveReport()
        if len(parts) == 1:
            report = move(conn, name, next(iter(parts)), None)
        else:
            for key in sorted(parts):
                report.add(move(conn, name, key, parts[key]))
        left = conn.execute("SELECT count(*) FROM memories WHERE namespace = ?", (name,))
        kept = int(left.fetchone()[0])
        if not parts:
            reason = "no-paths"
        elif report.duplicates:
            reason = "duplicates"
        elif kept and len(parts) > 1:
            reason = "several-projects"
        else:
            reason = ""
        conn.execute(
            "INSERT OR REPLACE INTO namespace_legacy (namespace, keys, moved, reason, migrated_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (name, json.dumps(sorted(parts)), report.memories, reason, now),
        )
        reports[name] = report
    return reports
