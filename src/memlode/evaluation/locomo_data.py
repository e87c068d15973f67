"""The LoCoMo benchmark's data: conversations, turns and questions read from ``locomo10.json``
(or a question set of one's own), with the data's typos tolerated and what cannot be read
reported. ``memlode.evaluation.locomo`` stores and asks them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memlode.errors import InvalidInput

__all__ = [
    "Conversation",
    "Question",
    "Turn",
    "load_locomo",
    "load_questions",
    "parse_evidence",
    "parse_session_date",
]

_EVIDENCE_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)
_SESSION_KEY = re.compile(r"session_(\d+)")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%d %B, %Y", "%d %B %Y")


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
