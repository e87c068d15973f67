"""What a parsed transcript becomes in the store: units of chunk memories.

A *unit* is one turn of one thread, one summary (its chunks), or one message typed while a
reply ran; ``memlode.engine.transcript_units.reconcile`` makes the stored units of a file equal to
the ones built here. Each unit carries a fingerprint of its chunks, so an unchanged unit is
left alone on the next ingest.

Every memory's metadata names the client that wrote the file (``client``: "claude-code",
"codex", "gemini", as the hooks label what they capture).

- turns (``memlode.sources.turns``): Context, importance 0.5, dated at the turn's start;
- a compaction summary, section by section (``memlode.sources.compaction``): Insight, 0.6;
  its state-at-the-time sections ("Pending Tasks", "Current Work") Context, 0.3, tag
  ``history`` (never injected at prompt time);
- a message typed while a reply ran (``queue-operation``): the user's instruction, Context,
  0.4, tag ``instruction``, as the prompt hook stores an instruction.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.engine.transcript_units import IngestReport, Unit
from memlode.hook_events import CLIENT_LABELS
from memlode.sources.transcript import MAIN_THREAD, Transcript
from memlode.sources.turns import (
    Chunk,
    build_turns,
    chunk_metadata,
    summaries,
    summary_chunks,
    turn_chunks,
)
from memlode.storage.values import NewMemory
from memlode.types import MemoryType, format_ts, parse_ts

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["SOURCE", "build_units", "client_label", "timestamp"]

SOURCE = "transcript"
SUMMARY_THREAD = "summary"
# Messages typed while a reply ran (``queue-operation`` records): the user's instructions
# ("new beads were added, tackle them"), which no user line of the transcript holds. Stored
# with the tag the prompt hook gives an instruction, so recall treats them alike.
QUEUED_THREAD = "queued"
QUEUED_MIN_WORDS = 3
QUEUED_MAX_CHARS = 4000
QUEUED_IMPORTANCE = 0.4
INSTRUCTION_TAG = "instruction"
# A compaction summary says what a whole session was about: ranked a little above a turn.
SUMMARY_IMPORTANCE = 0.6
TURN_IMPORTANCE = 0.5
# The sections of a compaction summary that state what was still to do when it was written
# ("Pending Tasks", "Current Work"): searchable, but history once the session went on, so the
# prompt hook leaves them out (tag HISTORY_TAG) and they rank below what the session did.
HISTORY_TAG = "history"
HISTORY_IMPORTANCE = 0.3


def client_label(transcript: Transcript) -> str:
    """What memlode records as the client that wrote the file (sessions.source, metadata)."""
    return CLIENT_LABELS.get(transcript.client, transcript.client)


def timestamp(value: str | None) -> str | None:
    """A transcript timestamp in the store's format; None when absent or unreadable."""
    if not value:
        return None
    try:
        return format_ts(parse_ts(value))
    except ValueError:
        return None


def build_units(
    engine: Engine,
    transcript: Transcript,
    path: Path,
    namespace: str,
    report: IngestReport,
    *,
    first_turn: int = 0,
) -> list[Unit]:
    """Every unit of a parsed file (or file tail, whose first main turn is ``first_turn``),
    each with its fingerprint."""
    builder = _Builder(engine, transcript, path, namespace)
    units = [
        *builder.turns(report, first_turn),
        *builder.summaries(report),
        *builder.queued(),
    ]
    for unit in units:
        unit.fingerprint = _fingerprint(unit.items)
    return units


class _Builder:
    """The memories of one parsed file, as ``NewMemory`` rows of its namespace and session."""

    def __init__(self, engine: Engine, transcript: Transcript, path: Path, namespace: str):
        self.engine = engine
        self.transcript = transcript
        self.path = path
        self.namespace = namespace
        self.client = client_label(transcript)

    def memory(
        self,
        text: str,
        memory_type: MemoryType,
        importance: float,
        meta: dict[str, Any],
        created: str | None,
        tags: list[str] | None = None,
    ) -> NewMemory:
        return self.engine.new_memory(
            text,
            memory_type,
            importance,
            tags=tags,
            namespace=self.namespace,
            metadata={**meta, "client": self.client},
            source=SOURCE,
            session_id=self.transcript.session_id,
            created_at=created,
        )

    def turns(self, report: IngestReport, first_turn: int) -> list[Unit]:
        units: list[Unit] = []
        for thread in self.transcript.threads:
            if thread.origin == "progress" and _subagent_file_exists(
                self.path, self.transcript.session_id, thread.key
            ):
                continue
            turns = build_turns(thread)
            if thread.key == MAIN_THREAD:
                for turn in turns:
                    turn.index += first_turn
                report.turns = first_turn + len(turns)
                report.provisional_turn = turns[-1].index if turns else None
            else:
                report.sidechain_turns += len(turns)
            for turn in turns:
                created = timestamp(turn.started_at)
                items = [
                    self.memory(
                        chunk.text,
                        MemoryType.CONTEXT,
                        TURN_IMPORTANCE,
                        chunk_metadata(turn, chunk, str(self.path)),
                        created,
                    )
                    for chunk in turn_chunks(turn)
                ]
                if items:
                    units.append(Unit(thread.key, turn.index, turn.provisional, items))
        return units

    def summaries(self, report: IngestReport) -> list[Unit]:
        units: list[Unit] = []
        for i, summary in enumerate(summaries(self.transcript)):
            report.summaries += 1
            created = timestamp(summary.timestamp)
            items = []
            for chunk in summary_chunks(summary):
                meta: dict[str, Any] = {
                    "kind": "summary",
                    "summary": summary.kind,
                    "session_id": self.transcript.session_id,
                    "part": chunk.part,
                    "parts": chunk.parts,
                    "uuids": chunk.uuids,
                    "transcript": str(self.path),
                }
                if chunk.section:
                    meta["section"] = chunk.section
                if chunk.history:
                    meta["history"] = True
                if summary.timestamp:
                    meta["started_at"] = summary.timestamp
                items.append(self._summary_memory(chunk, meta, created))
            units.append(Unit(SUMMARY_THREAD, i, False, items))
        return units

    def _summary_memory(self, chunk: Chunk, meta: dict[str, Any], created: str | None) -> NewMemory:
        if chunk.history:  # a summary's "pending tasks", "current work": the state back then
            return self.memory(
                chunk.text, MemoryType.CONTEXT, HISTORY_IMPORTANCE, meta, created, [HISTORY_TAG]
            )
        return self.memory(chunk.text, MemoryType.INSIGHT, SUMMARY_IMPORTANCE, meta, created)

    def queued(self) -> list[Unit]:
        units: list[Unit] = []
        for queued in self.transcript.queued:
            if len(queued.text.split()) < QUEUED_MIN_WORDS:
                continue  # "check again": nothing a later session could use
            meta = {
                "kind": "queued",
                "session_id": self.transcript.session_id,
                "line": queued.line,
                "transcript": str(self.path),
            }
            item = self.memory(
                f"User said while the assistant worked: {queued.text[:QUEUED_MAX_CHARS]}",
                MemoryType.CONTEXT,
                QUEUED_IMPORTANCE,
                meta,
                timestamp(queued.timestamp),
                [INSTRUCTION_TAG],
            )
            # keyed by its line: a tail read numbers lines as the whole file does
            units.append(Unit(QUEUED_THREAD, queued.line, False, [item]))
        return units


def _subagent_file_exists(path: Path, session_id: str | None, agent_id: str) -> bool:
    """Whether a subagent's own file exists (then its agent_progress copy is not needed)."""
    candidates = [path.parent / f"agent-{agent_id}.jsonl"]
    if session_id:
        candidates.append(path.parent / session_id / "subagents" / f"agent-{agent_id}.jsonl")
    return any(c.is_file() for c in candidates)


def _fingerprint(items: list[NewMemory]) -> str:
    digest = hashlib.sha256()
    for item in items:
        digest.update(
            json.dumps(
                [
                    item.content,
                    item.metadata,
                    str(item.memory_type),
                    item.created_at,
                    item.namespace,
                ],
                sort_keys=True,
                ensure_ascii=False,
            ).encode("utf-8")
        )
    return digest.hexdigest()
