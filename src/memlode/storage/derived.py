"""Derived state: what each piece was built from, probes that tell when it is stale, and the
marks that make copies held outside the database rebuild.

memlode keeps several things that it can rebuild from the tables holding the data, and each
knows when it is stale:

- per namespace, what ``memlode index`` derives after its commit (the cross-repo links, the
  cached centrality in ``graph_centrality``, the session map): a row ``graph:<namespace>`` of
  ``derived_state`` (migration 0011) holds a *generation* of its inputs, bumped by triggers in
  the same transaction as the change, and *built_from*, what the last build saw. A process
  killed between the commit and the rebuild leaves the generation ahead of ``built_from``; the
  next index run or read sees it (one primary-key lookup) and rebuilds (``index_state.py``). A
  probe of the state itself (are centrality rows missing?) catches damage of any other kind;
- the FTS5 indexes of memories and code symbols, kept by triggers in the same transactions as
  their rows: a probe compares the rows of the table with the documents of the index;
- copies outside the database: the vector index (in a process, mirrored to files under the
  home) and a process's in-memory copy of the FTS index. Each compares a counter the triggers
  keep (``vector_state``, ``memories_fts_log``) before use; a restore or repair moves the
  counters so that every copy rebuilds (:func:`invalidate_copies`).

All SQL for it lives here (L1); ``memlode.engine.code.index_state`` and ``memlode.engine.recovery``
decide when to rebuild.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from memlode.types import format_ts, utcnow

if TYPE_CHECKING:
    from memlode.storage.db import Database

__all__ = [
    "COPY_MARGIN",
    "FTS_TABLES",
    "CopyMarks",
    "FtsProbe",
    "GraphProbe",
    "Record",
    "code_namespaces",
    "copy_marks",
    "fts_integrity",
    "fts_probe",
    "fts_rebuild",
    "graph_name",
    "graph_namespaces",
    "graph_probe",
    "invalidate_copies",
    "mark_built",
    "rebuild_code_edges",
    "record",
]

GRAPH_PREFIX = "graph:"
# FTS5 table -> its external content table
FTS_TABLES = {"memories_fts": "memories", "code_symbols_fts": "code_symbols"}
# How far past every counter the live store had reached a restore or repair moves them, so
# that a copy read from the old store (by a process running meanwhile) can never look current.
# The live store's counters are read just before the restore writes; a million covers any
# number of writes that other processes can make in that moment.
COPY_MARGIN = 1_000_000


@dataclass(frozen=True, slots=True)
class Record:
    """A row of ``derived_state``."""

    name: str
    generation: int
    built_from: dict[str, Any] | None  # None: never built, or a record that cannot be read
    built_at: str | None

    def stale_generation(self) -> bool:
        """The inputs changed (or were never built from) since the last build."""
        return self.built_from is None or self.built_from.get("generation") != self.generation


def graph_name(namespace: str) -> str:
    return GRAPH_PREFIX + namespace


def record(conn: sqlite3.Connection, name: str) -> Record:
    """The record of ``name`` (generation 0 and never built when there is none)."""
    row = conn.execute(
        "SELECT generation, built_from, built_at FROM derived_state WHERE name = ?", (name,)
    ).fetchone()
    if row is None:
        return Record(name, 0, None, None)
    built: dict[str, Any] | None = None
    if row[1] is not None:
        try:
            loaded = json.loads(row[1])
        except (TypeError, ValueError):
            loaded = None
        built = loaded if isinstance(loaded, dict) else None  # unreadable: rebuild it
    return Record(name, int(row[0]), built, row[2])


def mark_built(
    conn: sqlite3.Connection, name: str, generation: int, built_from: dict[str, Any]
) -> None:
    """Record that ``name`` was built from inputs at ``generation`` (the generation itself is
    the triggers' to move: a change committed meanwhile leaves the record stale)."""
    payload = json.dumps({**built_from, "generation": generation}, sort_keys=True)
    conn.execute(
        "INSERT INTO derived_state (name, generation, built_from, built_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (name) DO UPDATE SET built_from = excluded.built_from,"
        " built_at = excluded.built_at",
        (name, generation, payload, format_ts(utcnow())),
    )


# ---- the graph state of a namespace -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GraphProbe:
    """Code (non-memory) nodes of a namespace, and how many of them lack a centrality row."""

    nodes: int
    missing: int


def graph_probe(conn: sqlite3.Connection, namespace: str, *, full: bool) -> GraphProbe:
    """Count the namespace's code nodes without cached centrality (``full``), or look only at
    its first one: a build writes every row in one transaction, so a crash leaves none of them
    and the first node tells (one index lookup instead of a pass over the namespace)."""
    if full:
        row = conn.execute(
            "SELECT count(*), count(c.node_id) FROM graph_nodes n"
            " LEFT JOIN graph_centrality c ON c.node_id = n.id"
            " WHERE n.namespace = ? AND n.kind != 'memory'",
            (namespace,),
        ).fetchone()
        return GraphProbe(int(row[0]), int(row[0]) - int(row[1]))
    row = conn.execute(
        "SELECT EXISTS (SELECT 1 FROM graph_centrality c WHERE c.node_id = n.id)"
        " FROM graph_nodes n WHERE n.namespace = ? AND n.kind != 'memory' LIMIT 1",
        (namespace,),
    ).fetchone()
    if row is None:
        return GraphProbe(0, 0)
    return GraphProbe(1, 0 if row[0] else 1)


def graph_namespaces(conn: sqlite3.Connection) -> list[str]:
    """Namespaces that have graph nodes or indexed code (their graph state can be built)."""
    rows = conn.execute(
        "SELECT DISTINCT namespace FROM graph_nodes UNION SELECT namespace FROM code_files"
        " ORDER BY 1"
    ).fetchall()
    return [str(r[0]) for r in rows]


# ---- FTS5 indexes -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FtsProbe:
    table: str
    rows: int  # rows of the content table
    indexed: int  # documents the FTS index holds
    max_rowid: int
    max_indexed: int

    @property
    def stale(self) -> bool:
        return self.rows != self.indexed or self.max_rowid != self.max_indexed

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "indexed": self.indexed,
            "max_rowid": self.max_rowid,
            "max_indexed": self.max_indexed,
            "stale": self.stale,
        }


def _fts_table(table: str) -> str:
    if table not in FTS_TABLES:
        raise ValueError(f"not an FTS table of memlode: {table}")
    return table


def fts_probe(conn: sqlite3.Connection, table: str) -> FtsProbe:
    """Rows of the content table against documents of the index (its ``_docsize`` shadow table
    has one row per indexed document). Two counts: milliseconds at 100k rows."""
    fts = _fts_table(table)
    content = FTS_TABLES[fts]
    rows, max_rowid = conn.execute(
        f"SELECT count(*), coalesce(max(rowid), 0) FROM {content}"
    ).fetchone()
    indexed, max_indexed = conn.execute(
        f"SELECT count(*), coalesce(max(id), 0) FROM {fts}_docsize"
    ).fetchone()
    return FtsProbe(fts, int(rows), int(indexed), int(max_rowid), int(max_indexed))


def fts_rebuild(conn: sqlite3.Connection, table: str) -> None:
    """Rebuild an FTS5 index from its content table (FTS5's own 'rebuild' command)."""
    fts = _fts_table(table)
    conn.execute(f"INSERT INTO {fts} ({fts}) VALUES ('rebuild')")


def fts_integrity(conn: sqlite3.Connection, table: str) -> str | None:
    """FTS5's 'integrity-check' against the content table: None when it passes, else why not.
    It reads every row: for repair and doctor, not for a search."""
    fts = _fts_table(table)
    try:
        conn.execute(f"INSERT INTO {fts} ({fts}, rank) VALUES ('integrity-check', 1)")
    except sqlite3.DatabaseError as exc:
        return str(exc)
    return None


# ---- copies outside the database ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CopyMarks:
    """The counters that copies outside the database compare against."""

    log_seq: int  # memories_fts_log: the in-memory FTS copy applies changes after its seq
    vector_version: int  # vector_state: the vector index and its mirror files are at a version

    def to_dict(self) -> dict[str, int]:
        return {"log_seq": self.log_seq, "vector_version": self.vector_version}


def copy_marks(conn: sqlite3.Connection) -> CopyMarks:
    seq = conn.execute("SELECT coalesce(max(seq), 0) FROM memories_fts_log").fetchone()[0]
    used = conn.execute(
        "SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'memories_fts_log'"
    ).fetchone()[0]
    version = conn.execute("SELECT coalesce(max(version), 0) FROM vector_state").fetchone()[0]
    return CopyMarks(max(int(seq), int(used)), int(version))


def invalidate_copies(conn: sqlite3.Connection, seen: CopyMarks) -> CopyMarks:
    """Move the counters past ``seen`` (the live store's, read before a restore) and this
    store's own, so that any copy taken earlier rebuilds instead of catching up. Run inside a
    write transaction; returns the new marks.

    - The in-memory FTS copy rebuilds when the oldest logged change is past the one after its
      own: the log is replaced by one marker row past every seq either store used.
    - The vector index (and its mirror files) treats a version that went back, or jumped by
      ``COPY_MARGIN`` or more, as a replaced store and rebuilds (``vector/index.py``); appending
      on a count and rowid sum could be fooled by a store whose rowids were reused.
    """
    mine = copy_marks(conn)
    seq = max(seen.log_seq, mine.log_seq) + COPY_MARGIN
    conn.execute("DELETE FROM memories_fts_log")
    conn.execute("INSERT INTO memories_fts_log (seq, row) VALUES (?, 0)", (seq,))
    version = max(seen.vector_version, mine.vector_version) + COPY_MARGIN
    conn.execute("UPDATE vector_state SET version = ?", (version,))
    return copy_marks(conn)


# ---- code edges ---------------------------------------------------------------------------------


def rebuild_code_edges(db: Database, namespace: str) -> int:
    """Recompute every code edge of a namespace from ``code_refs`` and ``code_symbols`` (the
    tables they aggregate: ``storage/code_repo.py``); return the namespace's code edges."""
    from memlode.storage.code_repo import CODE_RELATIONSHIPS, CodeRepo

    repo = CodeRepo(db)
    with db.write() as conn:
        sources = [
            r[0]
            for r in conn.execute(
                "SELECT DISTINCT source_id FROM code_refs WHERE namespace = ?", (namespace,)
            )
        ]
        children = [
            r[0]
            for r in conn.execute(
                "SELECT node_id FROM code_symbols WHERE namespace = ?", (namespace,)
            )
        ]
        repo.rebuild_edges(conn, namespace, sources)
        repo.rebuild_contains(conn, namespace, children)
        marks = ",".join("?" * len(CODE_RELATIONSHIPS))
        row = conn.execute(
            "SELECT count(*) FROM graph_edges e JOIN graph_nodes s ON s.id = e.source_id"
            f" WHERE s.namespace = ? AND e.relationship IN ({marks})",
            (namespace, *CODE_RELATIONSHIPS),
        ).fetchone()
    return int(row[0])


def code_namespaces(conn: sqlite3.Connection) -> list[str]:
    rows = conn.execute("SELECT DISTINCT namespace FROM code_files ORDER BY 1").fetchall()
    return [str(r[0]) for r in rows]
