"""Export and import of a store as JSONL: memories, sessions and the edges between memories.

Each line is one JSON object with a ``kind`` ("memory", "edge", "session"). The round trip is
lossless for every stored field (embeddings are derived and are rebuilt, not exported). Import
reads and validates the whole file before writing anything, then applies it in one transaction;
ids already present are skipped, so importing the same file twice changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from memlode import validate
from memlode.errors import ImportFormatError, InvalidInput
from memlode.storage import graph as graph_repo
from memlode.storage import memories as memory_repo
from memlode.storage.db import Database
from memlode.storage.memories import MemoryFilter
from memlode.storage.sessions import row_to_session
from memlode.types import Edge, Memory, Session

__all__ = ["ImportReport", "export_lines", "import_lines"]

FORMAT_VERSION = 1


@dataclass(slots=True)
class ImportReport:
    memories_added: int = 0
    memories_skipped: int = 0
    edges_added: int = 0
    edges_skipped: int = 0
    sessions_added: int = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "memories_added": self.memories_added,
            "memories_skipped": self.memories_skipped,
            "edges_added": self.edges_added,
            "edges_skipped": self.edges_skipped,
            "sessions_added": self.sessions_added,
        }


def export_lines(db: Database, namespace: str | None) -> Iterator[str]:
    """JSONL lines for everything in ``namespace`` (None: every namespace)."""
    yield json.dumps({"kind": "header", "format": "memlode-jsonl", "version": FORMAT_VERSION})
    conn = db.conn
    if namespace is None:
        session_rows = conn.execute("SELECT * FROM sessions ORDER BY started_at, id")
    else:
        session_rows = conn.execute(
            "SELECT * FROM sessions WHERE namespace = ? ORDER BY started_at, id", (namespace,)
        )
    for row in session_rows.fetchall():
        yield json.dumps({"kind": "session", **row_to_session(row).to_dict()}, ensure_ascii=False)
    for memory in memory_repo.select(conn, MemoryFilter(namespace=namespace), newest_first=False):
        yield json.dumps({"kind": "memory", **memory.to_dict()}, ensure_ascii=False)
    for edge in graph_repo.iter_edges(conn, namespace):
        yield json.dumps({"kind": "edge", **edge.to_dict()}, ensure_ascii=False)


def _memory_from(obj: dict[str, Any], line_no: int) -> Memory:
    try:
        memory_id = obj["id"]
        if not isinstance(memory_id, str) or not memory_id:
            raise InvalidInput("id must be a non-empty string")
        created = validate.timestamp(obj["created_at"], "created_at")
        last = obj.get("last_accessed_at")
        session_id = obj.get("session_id")
        if session_id is not None and not isinstance(session_id, str):
            raise InvalidInput("session_id must be a string or null")
        access_count = int(obj.get("access_count", 0))
        if access_count < 0:
            raise InvalidInput("access_count must be 0 or more")
        return Memory(
            id=memory_id,
            content=validate.content(obj["content"]),
            memory_type=validate.memory_type(obj.get("memory_type", "context")),
            importance=validate.unit_interval(obj.get("importance", 0.5), "importance"),
            confidence=validate.unit_interval(obj.get("confidence", 1.0), "confidence"),
            access_count=access_count,
            tags=validate.tags(obj.get("tags", [])),
            metadata=validate.metadata(obj.get("metadata", {})),
            namespace=str(obj.get("namespace") or ""),  # null is no namespace, not "None"
            source=str(obj.get("source") or "memory"),
            session_id=session_id,
            created_at=created,
            updated_at=validate.timestamp(obj.get("updated_at") or created, "updated_at"),
            last_accessed_at=validate.timestamp(last, "last_accessed_at") if last else None,
        )
    except KeyError as exc:
        raise ImportFormatError(line_no, f"memory is missing field {exc.args[0]!r}") from None
    except (InvalidInput, TypeError, ValueError) as exc:
        raise ImportFormatError(line_no, str(exc)) from None


def _edge_from(obj: dict[str, Any], line_no: int) -> Edge:
    try:
        return Edge(
            source_id=str(obj["source_id"]),
            target_id=str(obj["target_id"]),
            relationship=validate.relationship(obj["relationship"]),
            weight=float(obj.get("weight", 1.0)),
            properties=validate.metadata(obj.get("properties", {})),
            created_at=validate.timestamp(obj["created_at"], "created_at")
            if obj.get("created_at")
            else "",
        )
    except KeyError as exc:
        raise ImportFormatError(line_no, f"edge is missing field {exc.args[0]!r}") from None
    except (InvalidInput, TypeError, ValueError) as exc:
        raise ImportFormatError(line_no, str(exc)) from None


def _session_from(obj: dict[str, Any], line_no: int) -> Session:
    try:
        summary = obj.get("summary")
        if summary is not None and not isinstance(summary, str):
            raise InvalidInput("summary must be a string or null")
        return Session(
            id=str(obj["id"]),
            namespace=str(obj.get("namespace") or ""),
            started_at=validate.timestamp(obj["started_at"], "started_at"),
            ended_at=validate.timestamp(obj["ended_at"], "ended_at")
            if obj.get("ended_at")
            else None,
            summary=summary,
            source=str(obj.get("source") or "cli"),
            metadata=validate.metadata(obj.get("metadata", {})),
        )
    except KeyError as exc:
        raise ImportFormatError(line_no, f"session is missing field {exc.args[0]!r}") from None
    except (InvalidInput, TypeError, ValueError) as exc:
        raise ImportFormatError(line_no, str(exc)) from None


def parse_lines(lines: Iterable[str]) -> tuple[list[Session], list[Memory], list[Edge]]:
    """Parse and validate every line; the first bad line raises with its line number."""
    sessions: list[Session] = []
    memories: list[Memory] = []
    edges: list[Edge] = []
    for line_no, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ImportFormatError(line_no, f"not valid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise ImportFormatError(line_no, "each line must be a JSON object")
        kind = obj.get("kind", "memory")
        if kind == "header":
            continue
        if kind == "memory":
            memories.append(_memory_from(obj, line_no))
        elif kind == "edge":
            edges.append(_edge_from(obj, line_no))
        elif kind == "session":
            sessions.append(_session_from(obj, line_no))
        else:
            raise ImportFormatError(line_no, f"unknown kind {kind!r} (memory, edge or session)")
    return sessions, memories, edges


def import_lines(db: Database, lines: Iterable[str] | IO[str]) -> ImportReport:
    sessions, memories, edges = parse_lines(lines)
    report = ImportReport()
    with db.write() as conn:
        for session in sessions:
            cur = conn.execute(
                "INSERT OR IGNORE INTO sessions (id, namespace, source, started_at, ended_at,"
                " summary, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    session.id,
                    session.namespace,
                    session.source,
                    session.started_at,
                    session.ended_at,
                    session.summary,
                    json.dumps(session.metadata, sort_keys=True),
                ),
            )
            report.sessions_added += cur.rowcount
        # An imported memory whose content already exists under another id maps onto it.
        id_map: dict[str, str] = {}
        for memory in memories:
            dup = memory_repo.find_duplicate(conn, memory.namespace, memory.source, memory.content)
            if dup is not None:
                id_map[memory.id] = dup
                report.memories_skipped += 1
                continue
            if memory_repo.insert_exact(conn, memory):
                report.memories_added += 1
            else:
                report.memories_skipped += 1
            id_map[memory.id] = memory.id
        for edge in edges:
            src = id_map.get(edge.source_id, edge.source_id)
            dst = id_map.get(edge.target_id, edge.target_id)
            ends = memory_repo.fetch_many(conn, [src, dst])
            if src not in ends or dst not in ends:
                report.edges_skipped += 1
                continue
            for m in (ends[src], ends[dst]):
                graph_repo.ensure_memory_node(conn, m.id, m.content, m.namespace)
            edge.source_id, edge.target_id = src, dst
            if graph_repo.add_edge(conn, edge):
                report.edges_added += 1
            else:
                report.edges_skipped += 1
    return report
