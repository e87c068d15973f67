"""The LoCoMo retrieval evaluation: store the benchmark, ask it, score it (its data is read by
``evaluation.locomo_data``, re-exported here).

LoCoMo (snap-research/LoCoMo) holds long two-person conversations split into dated sessions;
every question names the dialogue turns (``"D3:14"``) that answer it. This module stores each
conversation in a fresh store (``evaluation.stores``: a temporary SQLite file, or a schema of its
own on the user's PostgreSQL server) through the normal store API (one memory per turn,
with speaker, session and the session's date in metadata and as ``created_at``), asks every
question that has evidence through ``Engine.search`` with the settings the user would get, and
maps each hit back to turn ids through its metadata (``dia_ids`` when a memory covers several
turns, else ``dia_id``). What ships is what is measured: nothing here ranks anything.
"""

from __future__ import annotations

import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from memlode.config import Settings
from memlode.engine import Engine, SearchHit
from memlode.errors import InvalidInput
from memlode.evaluation.locomo_data import (
    Conversation,
    Question,
    Turn,
    load_locomo,
    load_questions,
    parse_evidence,
    parse_session_date,
)
from memlode.evaluation.metrics import expand_turns, mean_metrics, question_metrics, session_of
from memlode.evaluation.stores import fresh_store

__all__ = [
    "CATEGORY_NAMES",
    "MIN_DEPTH",
    "Conversation",
    "Question",
    "Turn",
    "hit_turn_ids",
    "load_locomo",
    "load_questions",
    "memory_id_of",
    "parse_evidence",
    "parse_session_date",
    "run_locomo",
    "session_id_of",
    "turn_units",
]

CATEGORY_NAMES = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
# recall@25 needs at least 25 ranked turns.
MIN_DEPTH = 25

# Secrets never go into a report.
_HIDDEN_SETTINGS = frozenset({"embed_api_key"})
# Where the store is says nothing of the ranking (and a URL may carry a password).
_STORE_SETTINGS = frozenset({"home", "db_path", "db_url", "created_by", "namespace", "log_level"})

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class TurnUnit:
    """One memory to store: a turn, or one text shared by several turns of a conversation."""

    content: str
    dia_ids: tuple[str, ...]
    first: Turn


def turn_units(conversation: Conversation) -> list[TurnUnit]:
    """One unit per distinct turn text; turns repeating an earlier text join its unit.

    The store deduplicates identical content in a namespace, so a repeated line ("See you!")
    would otherwise lose its dialogue id.
    """
    by_content: dict[str, TurnUnit] = {}
    for turn in conversation.turns:
        unit = by_content.get(turn.content)
        if unit is None:
            by_content[turn.content] = TurnUnit(turn.content, (turn.dia_id,), turn)
        else:
            by_content[turn.content] = TurnUnit(
                unit.content, (*unit.dia_ids, turn.dia_id), unit.first
            )
    return list(by_content.values())


def hit_turn_ids(hit: SearchHit) -> list[str]:
    """The dialogue ids a retrieved memory covers (``dia_ids`` list, else ``dia_id``)."""
    meta = hit.memory.metadata
    many = meta.get("dia_ids")
    if isinstance(many, list) and many:
        return [str(x) for x in many]
    one = meta.get("dia_id")
    return [str(one)] if one is not None else []


def session_id_of(conversation: Conversation, session: int) -> str:
    return f"{conversation.sample_id}-session-{session}"


def memory_id_of(conversation: Conversation, dia_id: str) -> str:
    """The same UUID for the same turn of the same conversation, in every store and run."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"memlode:locomo/{conversation.sample_id}/{dia_id}"))


def _ingest(engine: Engine, conversation: Conversation) -> int:
    # Each LoCoMo session is a memlode session, so turns know their conversational neighbours.
    dates = {t.session: t.date for t in conversation.turns}
    for session, date in dates.items():
        engine.start_session(
            session_id_of(conversation, session),
            source="locomo",
            metadata={"date": date, "sample_id": conversation.sample_id},
        )
    items = []
    for unit in turn_units(conversation):
        turn = unit.first
        metadata: dict[str, Any] = {
            "dia_id": turn.dia_id,
            "session": turn.session,
            "speaker": turn.speaker,
            "date": turn.date,
            "sample_id": conversation.sample_id,
        }
        if len(unit.dia_ids) > 1:
            metadata["dia_ids"] = list(unit.dia_ids)
        item = engine.new_memory(
            unit.content,
            # The speaker is what the memory is about as much as its words; a tag lets recall's
            # tag signal match a question that names them.
            tags=[turn.speaker],
            metadata=metadata,
            source="conversation",
            session_id=session_id_of(conversation, turn.session),
            created_at=turn.created_at,
        )
        # Ties in score are broken by memory id: ids drawn at random made identical runs
        # differ by about 0.0005; ids derived from the turn make every run rank the same.
        items.append(replace(item, id=memory_id_of(conversation, turn.dia_id)))
    engine.store_many(items)
    # Stores embed new rows later, in batches; an evaluation wants them all before asking.
    embed_pending = getattr(engine, "embed_pending", None)
    if callable(embed_pending):
        embed_pending()
    return len(items)


def _describe_config(engine: Engine, settings: Settings) -> dict[str, Any]:
    describe = getattr(engine, "describe_config", None)
    if callable(describe):
        described = describe()
        if isinstance(described, Mapping):
            return {k: v for k, v in described.items() if k not in _HIDDEN_SETTINGS}
    out: dict[str, Any] = {}
    for f in fields(settings):
        if f.name in _HIDDEN_SETTINGS or f.name in _STORE_SETTINGS:
            continue
        out[f.name] = getattr(settings, f.name)
    out["weights"] = settings.effective_weights
    return out


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_locomo(
    conversations: Sequence[Conversation],
    questions: Sequence[Question],
    settings: Settings,
    *,
    k: int = MIN_DEPTH,
    consolidate: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Store each conversation in a fresh database, ask its questions, and score the rankings.

    ``settings`` are the user's (embedding provider, weights, ...); the home, the database and
    the namespace are replaced by fresh temporary ones (on the user's server when their store is
    on PostgreSQL: ``evaluation.stores``; the report's ``store`` says which). Returns the
    report: ``overall`` and ``by_category`` metrics, the ``config`` used, timings and counts.
    ``k`` memories are retrieved per question; their turns, cut at ``k``, are what the metrics
    see. With ``consolidate`` each store is consolidated (the default cycles) before its
    questions, and the report's ``consolidation`` holds what the cycles did.
    """
    if k < MIN_DEPTH:
        raise InvalidInput(f"k must be at least {MIN_DEPTH} (recall@25 needs 25 turns)")
    started = time.perf_counter()
    known = {c.sample_id for c in conversations}
    run = _Run([q for q in questions if q.sample_id in known], k, consolidate)
    with tempfile.TemporaryDirectory(prefix="memlode-locomo-") as tmp:
        for number, conversation in enumerate(conversations, start=1):
            namespace = f"locomo-{conversation.sample_id}"
            asked_before = len(run.latencies)
            home = Path(tmp) / conversation.sample_id
            with (
                fresh_store(settings, home, namespace) as conv_settings,
                Engine(conv_settings) as engine,
            ):
                stored_in = run.conversation(engine, conv_settings, conversation, namespace)
            if progress is not None:
                progress(
                    f"[{number}/{len(conversations)}] {conversation.sample_id}:"
                    f" {len(conversation.turns)} turns stored in {stored_in:.1f} s,"
                    f" {len(run.latencies) - asked_before} questions asked in"
                    f" {sum(run.latencies[asked_before:]):.1f} s"
                )
    report = run.report(conversations, time.perf_counter() - started)
    report["store"] = "sqlite" if settings.db_url is None else "postgresql"
    return report


@dataclass
class _Run:
    """What one LoCoMo run gathers, conversation by conversation."""

    asked: list[Question]
    k: int
    consolidate: bool = False
    consolidation: dict[str, int] = field(default_factory=dict)
    rows: list[tuple[Question, dict[str, float]]] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    skipped: int = 0
    unknown_evidence: int = 0
    stored_units: int = 0
    ingest_seconds: float = 0.0

    def conversation(
        self, engine: Engine, settings: Settings, conversation: Conversation, namespace: str
    ) -> float:
        """Store one conversation and ask its questions; the seconds storing took."""
        session = {t.dia_id: f"D{t.session}" for t in conversation.turns}

        def session_key(turn_id: str) -> str:
            return session.get(turn_id) or session_of(turn_id)

        t0 = time.perf_counter()
        self.stored_units += _ingest(engine, conversation)
        stored_in = time.perf_counter() - t0
        self.ingest_seconds += stored_in
        if self.consolidate:
            from memlode.engine.consolidation import consolidate

            for cycle_run in consolidate(engine, namespace=namespace):
                for name, value in cycle_run.counts.items():
                    key = f"{cycle_run.cycle}.{name}"
                    self.consolidation[key] = self.consolidation.get(key, 0) + value
        if not self.config:
            self.config = _describe_config(engine, settings)
        for question in (q for q in self.asked if q.sample_id == conversation.sample_id):
            if not question.evidence:
                self.skipped += 1
                continue
            self.unknown_evidence += sum(1 for e in question.evidence if e not in session)
            t1 = time.perf_counter()
            try:
                hits = engine.search(question.query, k=self.k, namespace=namespace)
            except InvalidInput:  # e.g. a query of punctuation only: nothing found
                hits = []
            self.latencies.append(time.perf_counter() - t1)
            ranked = expand_turns((hit_turn_ids(h) for h in hits), limit=self.k)
            self.rows.append((question, question_metrics(ranked, question.evidence, session_key)))
        return stored_in

    def report(self, conversations: Sequence[Conversation], seconds: float) -> dict[str, Any]:
        rows, latencies = self.rows, self.latencies

        def mean(selected: Sequence[Mapping[str, float]]) -> dict[str, float]:
            return {name: round(value, 4) for name, value in mean_metrics(selected).items()}

        search_seconds = sum(latencies)
        categories = sorted({q.category for q, _ in rows})
        report: dict[str, Any] = {
            "overall": mean([m for _, m in rows]),
            "by_category": {
                str(c): mean([m for q, m in rows if q.category == c]) for c in categories
            },
            "config": {**self.config, "k": self.k, "unit": "turn"},
            "seconds": round(seconds, 3),
            "questions": len(rows),
            "questions_by_category": {
                str(c): sum(1 for q, _ in rows if q.category == c) for c in categories
            },
            "skipped": self.skipped,
            "unparsed_evidence": sum(len(q.unparsed_evidence) for q in self.asked),
            "unknown_evidence": self.unknown_evidence,
            "conversations": len(conversations),
            "turns": sum(len(c.turns) for c in conversations),
            "memories": self.stored_units,
            "ingest_seconds": round(self.ingest_seconds, 3),
            "search_seconds": round(search_seconds, 3),
            "questions_per_second": round(len(latencies) / search_seconds, 2)
            if search_seconds
            else 0.0,
            "search_ms_p50": round(1000 * statistics.median(latencies), 2) if latencies else 0.0,
            "search_ms_p95": round(1000 * _percentile(latencies, 0.95), 2),
        }
        if self.consolidate:
            report["consolidation"] = dict(sorted(self.consolidation.items()))
        if 5 in categories and len(categories) > 1:
            report["overall_without_adversarial"] = mean([m for q, m in rows if q.category != 5])
        return report
