"""Reading LoCoMo files: turns, dates, captions, repeated lines and hits mapped back to turns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memlode.config import Settings
from memlode.engine import Engine, SearchHit
from memlode.errors import InvalidInput
from memlode.evaluation import load_locomo, load_questions
from memlode.evaluation.locomo import _ingest, hit_turn_ids, memory_id_of, turn_units
from memlode.types import Memory

SAMPLE = {
    "sample_id": "conv-a",
    "conversation": {
        "speaker_a": "Ann",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "Look at my garden!",
             "blip_caption": "a photo of red tulips"},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Bye!"},
        ],
        "session_2_date_time": "9:00 am on 1 June, 2023",
        "session_2": [{"speaker": "Ben", "dia_id": "D2:1", "text": "Bye!"}],
        "session_3_date_time": "9:00 am on 2 June, 2023",
    },
    "qa": [
        {"question": "What grows in Ann's garden?", "answer": "tulips",
         "evidence": ["D1:1; D2:1"], "category": "4"},
        {"question": "Is Ben a pilot?", "adversarial_answer": "no", "category": 5},
    ],
}  # fmt: skip


@pytest.fixture
def sample_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([SAMPLE]), encoding="utf-8")
    return path


def test_turns_carry_speaker_caption_session_and_date(sample_file: Path) -> None:
    (conv,), _ = load_locomo(sample_file)
    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D2:1"]
    first, second, third = conv.turns
    assert first.content == "Ann: Look at my garden! [shares an image: a photo of red tulips]"
    assert (first.session, first.date) == (1, "1:56 pm on 8 May, 2023")
    assert first.created_at == "2023-05-08T13:56:00+00:00"
    assert second.created_at == "2023-05-08T13:56:01+00:00"  # order within a session kept
    assert third.session == 2
    assert conv.sessions == 2  # a date without turns is no session


def test_questions_parse_evidence_and_keep_those_without(sample_file: Path) -> None:
    _, questions = load_locomo(sample_file)
    assert questions[0].evidence == ("D1:1", "D2:1")
    assert questions[0].category == 4
    assert questions[1].evidence == ()
    assert questions[1].category == 5


def test_repeated_text_becomes_one_unit_holding_every_id(sample_file: Path) -> None:
    (conv,), _ = load_locomo(sample_file)
    units = turn_units(conv)
    assert [u.dia_ids for u in units] == [("D1:1",), ("D1:2", "D2:1")]
    assert units[1].first.dia_id == "D1:2"


def test_hits_map_back_to_turn_ids() -> None:
    def hit(metadata: dict[str, object]) -> SearchHit:
        return SearchHit(Memory(id="m", content="x", metadata=metadata), 1.0)

    assert hit_turn_ids(hit({"dia_id": "D1:1"})) == ["D1:1"]
    assert hit_turn_ids(hit({"dia_id": "D1:1", "dia_ids": ["D1:1", "D2:1"]})) == ["D1:1", "D2:1"]
    assert hit_turn_ids(hit({})) == []


def test_question_file_accepts_a_single_evidence_string(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_text(json.dumps([{"sample_id": "conv-a", "query": "q?", "evidence": "D:1:1"}]))
    (question,) = load_questions(path)
    assert question.evidence == ("D1:1",)
    assert question.category == 0


def test_question_file_without_a_query_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "q.json"
    path.write_text(json.dumps([{"sample_id": "conv-a", "evidence": ["D1:1"]}]))
    with pytest.raises(InvalidInput, match="query"):
        load_questions(path)


def test_every_store_gives_a_turn_the_same_memory_id(sample_file: Path, tmp_path: Path) -> None:
    # Ties in score are broken by id: fixed ids make two runs of the evaluation rank alike.
    (conversation,), _ = load_locomo(sample_file)
    stored = []
    for name in ("one", "two"):
        settings = Settings.load({"home": str(tmp_path / name), "namespace": "locomo"})
        with Engine(settings) as engine:
            assert _ingest(engine, conversation) == 2
            ids = sorted(m.id for m in engine.list_memories(limit=10))
            stored.append(ids)
            assert engine.get(memory_id_of(conversation, "D1:1")).content.startswith("Ann:")
    assert stored[0] == stored[1]
    assert memory_id_of(conversation, "D1:1") != memory_id_of(conversation, "D1:2")
