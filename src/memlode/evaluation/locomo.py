"""The LoCoMo retrieval evaluation: load the benchmark, store it, ask it, score it.

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

import json
import re
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memlode.config import Settings
from memlode.engine import Engine, SearchHit
from memlode.errors import InvalidInput
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

_EVIDENCE_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)
_SESSION_KEY = re.compile(r"session_(\d+)")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B, %Y", "%d %B %Y")
# Secrets never go into a report.
_HIDDEN_SETTINGS = frozenset({"embed_api_key"})
# Where the store is says nothing of the ranking (and a URL may carry a password).
_STORE_SETTINGS = frozenset({"home", "db_path", "db_url", "created_by", "namespace", "log_level"})

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    session: int
    speaker: str
    text: str
    image_caption: str | None
    date: str  # the session's date as the data gives it
    created_at: str | None  # ISO-8601, from the session date (None if unparseable)

    @property
    def content(self) -> str:
        body = f"{self.speaker}: {self.text}"
        if self.image_caption:
            body += f" [shares an image: {self.image_caption}]"
        return body


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]

    @property
    def sessions(self) -> int:
        return len({t.session for t in self.turns})


@dataclass(frozen=True, slots=True)
class Question:
    sample_id: str
    query: str
    evidence: tuple[str, ...]
    category: int
    unparsed_evidence: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TurnUnit:
    """One memory to store: a turn, or one text shared by several turns of a conversation."""

    content: str
    dia_ids: tuple[str, ...]
    first: Turn


def parse_evidence(entries: Iterable[object]) -> tuple[list[str], list[str]]:
    """Dialogue ids from evidence entries, tolerating the data's typos.

    ``"D8:6; D9:17"`` and ``"D9:1 D4:4"`` give two ids, ``"D:11:26"`` gives ``"D11:26"``,
    spaces are ignored. Returns ``(ids, unparsed)``: ids in order, each once, and the entries
    holding no id at all (such as a bare ``"D"``), which the caller reports instead of hiding.
    """
    ids: dict[str, None] = {}
    unparsed: list[str] = []
    for entry in entries:
        text = str(entry)
        found = _EVIDENCE_ID.findall(text)
        if not found:
            unparsed.append(text)
        for session, turn in found:
            ids.setdefault(f"D{int(session)}:{int(turn)}", None)
    return list(ids), unparsed


def parse_session_date(text: str) -> datetime | None:
    """A session's date (``"1:56 pm on 8 May, 2023"``) as UTC, or None if it is not one."""
    cleaned = " ".join(str(text).split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _read_json(path: Path, what: str) -> Any:
    if Path(path).exists() and not Path(path).is_file():  # /dev/zero would never end
        raise InvalidInput(f"{what} {path} is not a regular file; give the path to the file")
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInput(f"{what} {path} does not exist; give the path to the file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read {what} {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{what} {path} is not valid JSON: {exc}") from None


def _category(value: object, where: str) -> int:
    try:
        return int(str(value))
    except ValueError:
        raise InvalidInput(f"{where}: category must be an integer, got {value!r}") from None


def _conversation(sample_id: str, data: Mapping[str, Any]) -> Conversation:
    sessions = sorted(
        (int(m.group(1)), key)
        for key in data
        if (m := _SESSION_KEY.fullmatch(key)) and isinstance(data[key], list)
    )
    turns: list[Turn] = []
    for number, key in sessions:
        date = str(data.get(f"{key}_date_time", "") or "")
        start = parse_session_date(date)
        for index, raw in enumerate(data[key]):
            if not isinstance(raw, Mapping) or "dia_id" not in raw:
                raise InvalidInput(f"{sample_id} {key} turn {index}: not a turn with a dia_id")
            # Turns of a session share its date; a second apart keeps their order in time.
            created = (start + timedelta(seconds=index)).isoformat() if start else None
            caption = raw.get("blip_caption")
            turns.append(
                Turn(
                    dia_id=str(raw["dia_id"]).strip(),
                    session=number,
                    speaker=str(raw.get("speaker", "")).strip(),
                    text=str(raw.get("text", "")),
                    image_caption=str(caption).strip() if caption else None,
                    date=date,
                    created_at=created,
                )
            )
    return Conversation(sample_id, tuple(turns))


def load_locomo(path: Path) -> tuple[list[Conversation], list[Question]]:
    """The conversations and questions of a ``locomo10.json``-shaped file."""
    data = _read_json(path, "LoCoMo file")
    if not isinstance(data, list):
        raise InvalidInput(f"LoCoMo file {path} must hold a JSON list of samples")
    conversations: list[Conversation] = []
    questions: list[Question] = []
    for position, sample in enumerate(data):
        if not isinstance(sample, Mapping) or not isinstance(sample.get("conversation"), Mapping):
            raise InvalidInput(f"sample {position} in {path} has no 'conversation' object")
        sample_id = str(sample.get("sample_id", f"sample-{position}"))
        conversations.append(_conversation(sample_id, sample["conversation"]))
        for number, qa in enumerate(sample.get("qa", [])):
            where = f"{sample_id} question {number}"
            ids, unparsed = parse_evidence(qa.get("evidence") or [])
            questions.append(
                Question(
                    sample_id=sample_id,
                    query=str(qa.get("question", "")),
                    evidence=tuple(ids),
                    category=_category(qa.get("category", 0), where),
                    unparsed_evidence=tuple(unparsed),
                )
            )
    return conversations, questions


def load_questions(path: Path) -> list[Question]:
    """A question set: a JSON list of {"sample_id", "query", "evidence", "category"}."""
    data = _read_json(path, "questions file")
    if not isinstance(data, list):
        raise InvalidInput(f"questions file {path} must hold a JSON list of questions")
    out: list[Question] = []
    for number, item in enumerate(data):
        where = f"questions file {path} item {number}"
        if not isinstance(item, Mapping):
            raise InvalidInput(f"{where}: not an object")
        query = item.get("query", item.get("question"))
        if not isinstance(query, str) or "sample_id" not in item:
            raise InvalidInput(f"{where}: needs 'sample_id' and a 'query' string")
        raw_evidence = item.get("evidence") or []
        if isinstance(raw_evidence, str):
            raw_evidence = [raw_evidence]
        ids, unparsed = parse_evidence(raw_evidence)
        out.append(
            Question(
                sample_id=str(item["sample_id"]),
                query=query,
                evidence=tuple(ids),
                category=_category(item.get("category", 0), where),
                unparsed_evidence=tuple(unparsed),
            )
        )
    return out


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
