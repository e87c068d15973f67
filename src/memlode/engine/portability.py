"""Export and import of a store as JSONL: memories, sessions and the edges between memories.

Each line is one JSON object with a ``kind`` ("memory", "edge", "session"). The round trip is
lossless for every stored field (embeddings are derived and are rebuilt, not exported). Import
reads and validates the whole file before writing anything, then applies it in one transaction;
ids already present are skipped, so importing the same file twice changes nothing.

Validation is strict: a field of the wrong JSON type is an error with its line number, never
coerced (``true`` is not the namespace "True", ``NaN`` not an importance), and ``*`` is no
namespace. A record whose id is stored already with *different* content keeps the stored
version and is reported (``memories_conflicting`` and the ids in ``conflicts``), so a stale
export never silently overwrites nor silently loses an edit.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from memlode import validate
from memlode.errors import ExportWriteError, ImportFormatError, InvalidInput
from memlode.storage import graph as graph_repo
from memlode.storage import memories as memory_repo
from memlode.storage import sessions as session_repo
from memlode.storage.values import MemoryFilter
from memlode.types import Edge, Memory, Session

if TYPE_CHECKING:
    from memlode.storage.store import Store

__all__ = ["ImportReport", "export_lines", "import_lines", "read_import_file", "write_lines"]

FORMAT_VERSION = 1


@dataclass(slots=True)
class ImportReport:
    memories_added: int = 0
    memories_skipped: int = 0  # the same memory is stored already
    memories_conflicting: int = 0  # the id is stored already with other content: kept as stored
    edges_added: int = 0
    edges_skipped: int = 0
    sessions_added: int = 0
    sessions_skipped: int = 0
    conflicts: list[str] = field(default_factory=list)  # ids of the conflicting memories

    def to_dict(self) -> dict[str, Any]:
        return {
            "memories_added": self.memories_added,
            "memories_skipped": self.memories_skipped,
            "memories_conflicting": self.memories_conflicting,
            "edges_added": self.edges_added,
            "edges_skipped": self.edges_skipped,
            "sessions_added": self.sessions_added,
            "sessions_skipped": self.sessions_skipped,
            "conflicts": list(self.conflicts),
        }


def export_lines(db: Store, namespace: str | None) -> Iterator[str]:
    """JSONL lines for everything in ``namespace`` (None: every namespace)."""
    yield json.dumps({"kind": "header", "format": "memlode-jsonl", "version": FORMAT_VERSION})
    conn = db.conn
    for session in session_repo.all_sessions(conn, namespace):
        yield json.dumps({"kind": "session", **session.to_dict()}, ensure_ascii=False)
    for memory in memory_repo.select(conn, MemoryFilter(namespace=namespace), newest_first=False):
        yield json.dumps({"kind": "memory", **memory.to_dict()}, ensure_ascii=False)
    for edge in graph_repo.iter_edges(conn, namespace):
        yield json.dumps({"kind": "edge", **edge.to_dict()}, ensure_ascii=False)


# ---- one record's fields: the JSON type each must have, never coerced -------------------


def _text(obj: dict[str, Any], key: str, *, default: str | None = None) -> str:
    """A required (or defaulted) non-empty string field."""
    value = obj.get(key)
    if value is None:
        if default is not None:
            return default
        raise KeyError(key)
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{key} must be a non-empty string, got {_shown(value)}")
    return validate.utf8_text(value, key)


def _optional_text(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{key} must be a string or null, got {_shown(value)}")
    return validate.utf8_text(value, key)


def _number(obj: dict[str, Any], key: str, default: float) -> float:
    value = obj.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{key} must be a number, got {_shown(value)}")
    if not math.isfinite(value):
        raise InvalidInput(f"{key} must be a finite number, got {value}")
    return float(value)


def _namespace(obj: dict[str, Any]) -> str:
    value = obj.get("namespace")
    return "" if value is None else validate.namespace(value)  # null: no namespace


def _timestamp(obj: dict[str, Any], key: str, *, required: bool = False) -> str | None:
    value = obj.get(key)
    if value is None or value == "":
        if required:
            raise KeyError(key)
        return None
    return validate.timestamp(value, key)


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 40 else text[:37] + "..."


def _memory_from(obj: dict[str, Any], line_no: int) -> Memory:
    try:
        if "content" not in obj:
            raise KeyError("content")
        tags = obj.get("tags", [])
        if not isinstance(tags, list):
            raise InvalidInput(f"tags must be a list of strings, got {_shown(tags)}")
        memory_type = obj.get("memory_type", "context")
        if not isinstance(memory_type, str):
            raise InvalidInput(f"memory_type must be a string, got {_shown(memory_type)}")
        created = _timestamp(obj, "created_at", required=True)
        assert created is not None
        return Memory(
            id=_text(obj, "id"),
            content=validate.content(obj["content"]),
            memory_type=validate.memory_type(memory_type),
            importance=validate.unit_interval(_number(obj, "importance", 0.5), "importance"),
            confidence=validate.unit_interval(_number(obj, "confidence", 1.0), "confidence"),
            access_count=_count(obj, "access_count"),
            tags=validate.tags(tags),
            metadata=validate.metadata(obj.get("metadata", {})),
            namespace=_namespace(obj),
            source=_text(obj, "source", default="memory"),
            session_id=_optional_text(obj, "session_id"),
            created_at=created,
            updated_at=_timestamp(obj, "updated_at") or created,
            last_accessed_at=_timestamp(obj, "last_accessed_at"),
        )
    except KeyError as exc:
        raise ImportFormatError(line_no, f"memory is missing field {exc.args[0]!r}") from None
    except InvalidInput as exc:
        raise ImportFormatError(line_no, str(exc)) from None


def _count(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"{key} must be a whole number, got {_shown(value)}")
    return validate.whole_number(value, key, 0)


def _edge_from(obj: dict[str, Any], line_no: int) -> Edge:
    try:
        relationship = obj.get("relationship")
        if relationship is None:
            raise KeyError("relationship")
        if not isinstance(relationship, str):
            raise InvalidInput(f"relationship must be a string, got {_shown(relationship)}")
        return Edge(
            source_id=_text(obj, "source_id"),
            target_id=_text(obj, "target_id"),
            relationship=validate.relationship(relationship),
            weight=_number(obj, "weight", 1.0),
            properties=validate.metadata(obj.get("properties", {}), "properties"),
            created_at=_timestamp(obj, "created_at") or "",
        )
    except KeyError as exc:
        raise ImportFormatError(line_no, f"edge is missing field {exc.args[0]!r}") from None
    except InvalidInput as exc:
        raise ImportFormatError(line_no, str(exc)) from None


def _session_from(obj: dict[str, Any], line_no: int) -> Session:
    try:
        session_id = _text(obj, "id")
        started = _timestamp(obj, "started_at", required=True)
        assert started is not None
        return Session(
            id=session_id,
            namespace=_namespace(obj),
            started_at=started,
            ended_at=_timestamp(obj, "ended_at"),
            summary=_optional_text(obj, "summary"),
            source=_text(obj, "source", default="cli"),
            metadata=validate.metadata(obj.get("metadata", {})),
        )
    except KeyError as exc:
        raise ImportFormatError(line_no, f"session is missing field {exc.args[0]!r}") from None
    except InvalidInput as exc:
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
            obj = validate.json_text(text, "the record", max_chars=None)
        except InvalidInput as exc:
            raise ImportFormatError(line_no, str(exc)) from None
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


# Records between two progress reports of an import.
_PROGRESS_EVERY = 250


def import_lines(
    db: Store,
    lines: Iterable[str] | IO[str],
    progress: Callable[[int, int], None] | None = None,
) -> ImportReport:
    """Apply an export's records in one transaction; ``progress(done, total)`` is told of the
    records applied as it goes (sessions, then memories, then edges)."""
    sessions, memories, edges = parse_lines(lines)
    report = ImportReport()
    total = len(sessions) + len(memories) + len(edges)
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None and (done % _PROGRESS_EVERY == 0 or done == total):
            progress(done, total)

    with db.write() as conn:
        for session in sessions:
            step()
            added = int(session_repo.insert_exact(conn, session))  # redacts, like every write
            report.sessions_added += added
            report.sessions_skipped += 1 - added
        # An imported memory whose content already exists under another id maps onto it.
        id_map: dict[str, str] = {}
        for memory in memories:
            step()
            dup = memory_repo.find_duplicate(conn, memory.namespace, memory.source, memory.content)
            if dup is not None:
                id_map[memory.id] = dup
                report.memories_skipped += 1
                continue
            id_map[memory.id] = memory.id
            stored = memory_repo.fetch(conn, memory.id)
            if stored is not None:  # the id is taken: the stored memory stays as it is
                if stored.content == memory.content:
                    report.memories_skipped += 1
                else:
                    report.memories_conflicting += 1
                    report.conflicts.append(memory.id)
                continue
            if memory_repo.insert_exact(conn, memory):
                report.memories_added += 1
            else:
                report.memories_skipped += 1
        for edge in edges:
            step()
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


# ---- files ----------------------------------------------------------------------------------


def read_import_file(path: Path) -> list[str]:
    """The lines of an import file: a regular file of UTF-8 text (a device such as /dev/zero
    would never end, a folder is no file)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise InvalidInput(f"no such file: {path}") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InvalidInput(f"{path} is not a regular file; give a JSONL export file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "memlode exports are UTF-8 JSONL"
        ) from None
    return text.splitlines()


def write_lines(target: Path, lines: Iterable[str]) -> int:
    """Write ``lines`` to ``target``; the number written.

    A regular file (or a new one) is replaced whole: the lines go to a temporary file beside
    it, which is flushed to disk and renamed over the target, so a failure (a full disk) leaves
    the old file as it was and no partial file behind. Anything else that exists there (a
    device such as /dev/null, a pipe) is written in place: renaming over it would replace the
    device itself.
    """
    try:
        info: os.stat_result | None = target.stat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise ExportWriteError(f"cannot write {target}: {exc.strerror}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise ExportWriteError(f"{target} is a folder; give the path of a file")
    if info is not None and not stat.S_ISREG(info.st_mode):
        count = 0
        try:
            with target.open("w", encoding="utf-8") as fh:
                for line in lines:
                    fh.write(line + "\n")
                    count += 1
        except OSError as exc:
            raise ExportWriteError(
                f"cannot write {target}: {exc.strerror}; the export is incomplete"
            ) from None
        return count
    final = Path(os.path.realpath(target))  # a symlink keeps pointing where it pointed
    tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    count = 0
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(line + "\n")
                count += 1
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(final)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            reason = f"cannot write {target}: {exc.strerror}; nothing was exported"
            raise ExportWriteError(reason) from None
        raise
    return count
