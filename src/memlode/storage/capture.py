"""The memory row every writer inserts, and the graph rows passive capture adds beside it.

``insert_memory`` is the one insert of a new memory: the engine (through
``memlode.storage.memories.insert``), transcript and document ingest, and the hooks all end
here, so deduplication (namespace, source, SHA-256 of the redacted content), redaction and the
extra search terms follow one rule. The module is import-light (no ``sqlite3``, ``json``,
``uuid`` or ``dataclasses``) because a hook process imports it on every tool call; it takes a
connection of either backend (``memlode.storage.fastpath``, ``memlode.storage.db``, or a
PostgreSQL ``PgConnection``): its SQL runs on both.

Every text written goes through ``memlode.storage.scrub`` first, the one redaction choke point.
"""

from __future__ import annotations

from memlode.fastjson import dumps
from memlode.storage import scrub
from memlode.storage.fastpath import new_id, now_ts
from memlode.textutil import content_hash, date_words, search_terms

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from memlode.storage.sql import Connection

__all__ = [
    "COMMAND_REST",
    "CONVERSATION_SOURCES",
    "FAILURE_TAG",
    "GLOBAL_NAMESPACE",
    "HOOK_SOURCE",
    "REFLECTION_TAG",
    "SUMMARY_SOURCE",
    "SUMMARY_TAG",
    "add_edge",
    "ensure_memory_node",
    "file_node_id",
    "find_by_hash",
    "index_terms",
    "insert_memory",
    "node_exists",
    "stored_hash",
    "touch",
    "update_memory_content",
    "upsert_file_node",
]

# The namespace of what belongs to no project (global memory files, memories stored for every
# project): a project's searches read it beside their own.
GLOBAL_NAMESPACE = "global"
# Sources whose memories are turns of a conversation (LoCoMo-style chats, assistant transcripts).
CONVERSATION_SOURCES = frozenset({"conversation", "transcript"})
# memories.source of everything the hooks capture (observations, prompts, edits)
HOOK_SOURCE = "hook"
# The tag of an observation of something that failed (a tool call Claude Code reported failing)
FAILURE_TAG = "failure"
# The tag and source of a consolidation summary (memlode.engine.consolidation): many
# observations in one
SUMMARY_TAG = "summary"
SUMMARY_SOURCE = "consolidation"
# The tag of an observation that holds a settings file's lines (a manifest or a unit file read,
# or written whole by the Write tool: memlode.hooks.manifest): what the file says, not why
SETTINGS_TAG = "settings"
# The tag of a reflection insight (what a session established; engine/consolidation/reflect),
# and with ":open" of what it left open
REFLECTION_TAG = "reflection"
# How the prompt hook writes the user's answers to the assistant's questions (AskUserQuestion),
# one pair per line (memlode.hooks.extract); the supersession rules and search read them back.
QUESTION_LINE, ANSWER_LINE = "Q: ", "A (user): "
# What a command observation holds after its outcome and output: the rest of a long command
# (a heredoc's body), which two runs of one command share whatever each printed.
COMMAND_REST = "\n[command]\n"

# A conflicting row deleted between our insert and our look-up (PostgreSQL, READ COMMITTED)
# leaves nothing to return: the insert is tried again (once is almost always enough).
_DEDUP_TRIES = 5


def index_terms(content: str, source: str, created_at: str) -> str:
    """The extra FTS tokens of a memory: identifier parts, and for conversation turns the
    words of their date (a conversation is searched by when things were said)."""
    terms = search_terms(content)
    if source in CONVERSATION_SOURCES:
        terms = f"{terms} {date_words(created_at)}".strip()
    return terms


def find_by_hash(conn: Connection, namespace: str, source: str, digest: str) -> str | None:
    """The id of the memory of ``namespace`` and ``source`` whose content hashes to ``digest``."""
    row = conn.execute(
        "SELECT id FROM memories WHERE namespace = ? AND source = ? AND content_hash = ?",
        (namespace, source, digest),
    ).fetchone()
    return str(row[0]) if row is not None else None


def insert_memory(
    conn: Connection,
    *,
    content: str,
    memory_type: str,
    importance: float,
    tags: Sequence[str],
    metadata: Mapping[str, Any] | None,
    namespace: str,
    source: str,
    session_id: str | None,
    confidence: float = 1.0,
    memory_id: str | None = None,
    created_at: str | None = None,
) -> tuple[str, bool]:
    """Insert unless the same content exists in (namespace, source); returns (id, created).

    On a duplicate the existing id comes back and nothing changes, also when the other insert
    is concurrent: the UNIQUE (namespace, source, content_hash) index decides (``ON CONFLICT``,
    after the other transaction ends), never a check-then-insert.
    """
    content = scrub.text(content)
    digest = content_hash(content)
    memory_id = memory_id or new_id()
    now = now_ts()
    created = created_at or now
    row = (
        memory_id,
        content,
        memory_type,
        importance,
        confidence,
        digest,
        dumps(list(dict.fromkeys(scrub.tags(tags))), ensure_ascii=False),
        dumps(scrub.mapping(metadata), ensure_ascii=False, sort_keys=True),
        namespace,
        source,
        session_id,
        created,
        now,
        index_terms(content, source, created),
    )
    for _ in range(_DEDUP_TRIES):
        inserted = conn.execute(
            "INSERT INTO memories (id, content, memory_type, importance, confidence,"
            " content_hash, tags, metadata, namespace, source, session_id, created_at,"
            " updated_at, search_terms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (namespace, source, content_hash) DO NOTHING RETURNING id",
            row,
        ).fetchone()
        if inserted is not None:
            return memory_id, True
        existing = find_by_hash(conn, namespace, source, digest)
        if existing is not None:
            return existing, False
    raise RuntimeError(f"memory {memory_id}: a duplicate kept appearing and vanishing")


def update_memory_content(
    conn: Connection, memory_id: str, content: str, metadata: Mapping[str, Any]
) -> bool:
    """Replace a memory's text and metadata (a refreshed session summary); drop its vector."""
    content = scrub.text(content)
    cur = conn.execute(
        "UPDATE memories SET content = ?, content_hash = ?, search_terms = ?, metadata = ?,"
        " updated_at = ? WHERE id = ?",
        (
            content,
            content_hash(content),
            search_terms(content),
            dumps(scrub.mapping(metadata), ensure_ascii=False, sort_keys=True),
            now_ts(),
            memory_id,
        ),
    )
    conn.execute("DELETE FROM memory_embeddings WHERE memory_id = ?", (memory_id,))
    return int(cur.rowcount) > 0


def stored_hash(conn: Connection, memory_id: str) -> str | None:
    """The content hash of a stored memory; None when it does not exist."""
    row = conn.execute("SELECT content_hash FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return str(row[0]) if row is not None else None


def touch(conn: Connection, memory_ids: Sequence[str]) -> None:
    """Record an access: bump access_count and last_accessed_at."""
    now = now_ts()
    conn.executemany(
        "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? WHERE id = ?",
        [(now, memory_id) for memory_id in memory_ids],
    )


# ---- graph -----------------------------------------------------------------------------------


def file_node_id(path: str) -> str:
    return "file:" + path


def node_exists(conn: Connection, node_id: str) -> bool:
    return conn.execute("SELECT 1 FROM graph_nodes WHERE id = ?", (node_id,)).fetchone() is not None


def ensure_memory_node(conn: Connection, memory_id: str, name: str, namespace: str) -> None:
    """The memory's graph node (kind ``memory``, named by its first 80 characters)."""
    now = now_ts()
    conn.execute(
        "INSERT INTO graph_nodes (id, kind, name, namespace, memory_id, created_at, updated_at)"
        " VALUES (?, 'memory', ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
        (memory_id, scrub.text(name[:4096])[:80], namespace, memory_id, now, now),
    )


def upsert_file_node(conn: Connection, path: str, namespace: str, name: str) -> str:
    """The file's node (kind ``file``, id ``file:<abs path>``); existing properties are kept."""
    node_id = file_node_id(path)
    now = now_ts()
    conn.execute(
        "INSERT INTO graph_nodes (id, kind, name, namespace, properties, created_at, updated_at)"
        " VALUES (?, 'file', ?, ?, ?, ?, ?)"
        " ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at",
        (node_id, scrub.text(name), namespace, dumps(scrub.mapping({"path": path})), now, now),
    )
    return node_id


def add_edge(
    conn: Connection,
    source_id: str,
    target_id: str,
    relationship: str,
    properties: Mapping[str, Any] | None = None,
    weight: float = 1.0,
) -> bool:
    """Add the edge unless it exists (the stored one is kept); True when added."""
    cur = conn.execute(
        "INSERT INTO graph_edges (source_id, target_id, relationship, weight, properties,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (source_id, target_id, relationship) DO NOTHING",
        (
            source_id,
            target_id,
            relationship,
            weight,
            dumps(scrub.mapping(properties), sort_keys=True),
            now_ts(),
        ),
    )
    return int(cur.rowcount) > 0
