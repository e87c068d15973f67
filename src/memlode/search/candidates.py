"""The rows recall scores: only the columns the signals read, decoded only as far as needed.

Recall weighs a few hundred candidates to return ten. Building a full ``Memory`` for each
(content, JSON tags and metadata, enum, every timestamp) cost as much as the FTS query itself,
so candidates are ``CandidateRow``s - no content (only whether it ends in a question mark),
tags decoded only when there are some, metadata only when it can hold an evergreen mark - and
whole memories are fetched for the few that are returned (and the MMR window).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from memlode.storage.recall_rows import candidate_rows
from memlode.storage.turn_context import CONVERSATION_SOURCES, session_orders
from memlode.storage.values import PROMPT_TAG, MemoryFilter

__all__ = ["CandidateRow", "conversation_neighbours", "load_rows", "passes"]

# Transcript turns join several messages (user, assistant, next user): one that ends in a
# question still holds the answer before it, so only single utterances count as asking.
_MULTI_MESSAGE_SOURCES = frozenset({"transcript"})


@dataclass(slots=True)
class CandidateRow:
    rowid: int
    id: str
    memory_type: str
    importance: float
    confidence: float
    tags: list[str]
    namespace: str
    source: str
    session_id: str | None
    created_at: str
    evergreen: bool  # metadata says so
    path: str | None  # metadata's path, for the evergreen file names
    asks: bool = False  # one utterance that ends in a question: it asks rather than tells
    created_by: str = ""  # who stored it (a team store; empty on SQLite)

    @property
    def conversation(self) -> str | None:
        """The session this row is a turn of, if it is one."""
        return self.session_id if self.session_id and self.source in CONVERSATION_SOURCES else None


def load_rows(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, CandidateRow]:
    """The candidate rows of ``ids`` that exist (by primary key, in chunks)."""
    wanted = list(dict.fromkeys(ids))
    out: dict[str, CandidateRow] = {}
    if wanted:
        for (
            rowid,
            memory_id,
            kind,
            imp,
            conf,
            tags,
            ns,
            source,
            session,
            created,
            meta,
            author,
            question,
        ) in candidate_rows(conn, wanted):
            evergreen, path = _metadata_marks(meta)
            out[memory_id] = CandidateRow(
                rowid,
                memory_id,
                kind,
                imp,
                conf,
                json.loads(tags) if tags != "[]" else [],
                ns,
                source,
                session,
                created,
                evergreen,
                path,
                bool(question) and source not in _MULTI_MESSAGE_SOURCES,
                author,
            )
    return out


def _metadata_marks(text: str) -> tuple[bool, str | None]:
    # Most metadata names neither key: skip the JSON decode for those.
    if '"evergreen"' not in text and '"path"' not in text:
        return False, None
    try:
        meta = json.loads(text)
    except ValueError:
        return False, None
    if not isinstance(meta, dict):
        return False, None
    path = meta.get("path")
    return bool(meta.get("evergreen")), path if isinstance(path, str) else None


def passes(row: CandidateRow, flt: MemoryFilter) -> bool:
    """``flt`` evaluated on a loaded row (vector and graph candidates come unfiltered)."""
    if (
        flt.namespace is not None
        and row.namespace != flt.namespace
        and row.namespace not in flt.also_namespaces
    ):
        return False
    if flt.memory_types and row.memory_type not in flt.memory_types:
        return False
    if flt.tags and not set(flt.tags) <= set(row.tags):
        return False
    if flt.sources and row.source not in flt.sources:
        return False
    if flt.exclude_prompts and PROMPT_TAG in row.tags:
        return False
    if flt.session_id is not None and row.session_id != flt.session_id:
        return False
    if flt.exclude_session_id is not None and row.session_id == flt.exclude_session_id:
        return False
    if flt.since is not None and row.created_at < flt.since:
        return False
    if flt.created_by is not None and row.created_by != flt.created_by:
        return False
    return not (flt.until is not None and row.created_at >= flt.until)


def conversation_neighbours(
    conn: sqlite3.Connection, rows: dict[str, CandidateRow]
) -> dict[str, tuple[str, ...]]:
    """Previous and next turn of each conversation row among ``rows``."""
    sessions = {s for s in (r.conversation for r in rows.values()) if s}
    if not sessions:
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for order in session_orders(conn, sessions).values():
        for i, memory_id in enumerate(order):
            if memory_id in rows:
                out[memory_id] = tuple(order[j] for j in (i - 1, i + 1) if 0 <= j < len(order))
    return out
