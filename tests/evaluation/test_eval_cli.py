"""``memlode eval locomo`` end to end on a small conversation written here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memlode.evaluation.metrics import METRIC_NAMES


def _turn(speaker: str, dia_id: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"speaker": speaker, "dia_id": dia_id, "text": text, **extra}


CONVERSATION = {
    "speaker_a": "Alice",
    "speaker_b": "Bob",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        _turn("Alice", "D1:1", "Hi Bob! How was your weekend?"),
        _turn(
            "Bob", "D1:2", "Great, I finally adopted a greyhound named Biscuit from the shelter."
        ),
        _turn("Alice", "D1:3", "Wonderful. I started pottery classes at the community studio."),
        _turn("Bob", "D1:4", "Pottery sounds relaxing. What did you make so far?"),
        _turn(
            "Alice",
            "D1:5",
            "Something lopsided, take a look.",
            img_url=["https://example.invalid/teapot.jpg"],
            blip_caption="a photo of a blue ceramic teapot",
        ),
        _turn("Alice", "D1:6", "See you!"),
    ],
    "session_2_date_time": "10:04 am on 19 June, 2023",
    "session_2": [
        _turn("Bob", "D2:1", "Guess what, I ran the Lisbon marathon last Sunday."),
        _turn("Alice", "D2:2", "Amazing! How long did it take you?"),
        _turn("Bob", "D2:3", "Four hours and ten minutes over the whole marathon route."),
        _turn("Alice", "D2:4", "I am moving to Copenhagen next month for a job at a bakery."),
        _turn("Bob", "D2:5", "Copenhagen has great pastries; Biscuit will miss you."),
        _turn("Alice", "D2:6", "See you!"),
    ],
}

QA = [
    {"question": "What breed is the greyhound Bob adopted?", "answer": "greyhound",
     "evidence": ["D1:2"], "category": 4},
    {"question": "How long was Bob's Lisbon marathon?", "answer": "4h10",
     "evidence": ["D2:1; D2:3"], "category": 1},
    {"question": "Which city is Alice moving to?", "answer": "Copenhagen",
     "evidence": ["D:2:4"], "category": 4},
    {"question": "What ceramic piece did Alice make?", "answer": "a teapot",
     "evidence": ["D1:5"], "category": 3},
    {"question": "What did Bob say about his cat?", "adversarial_answer": "nothing",
     "evidence": [], "category": 5},
]  # fmt: skip


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny_locomo.json"
    sample = {"sample_id": "conv-tiny", "conversation": CONVERSATION, "qa": QA}
    path.write_text(json.dumps([sample]), encoding="utf-8")
    return path


def test_json_report_has_the_issue_shape_and_sensible_recall(cli: Any, locomo_file: Path) -> None:
    result = cli("eval", "locomo", str(locomo_file), "--json")
    assert result.returncode == 0, result.stderr
    report = result.json()
    assert {"overall", "by_category", "config", "seconds"} <= set(report)
    assert tuple(report["overall"]) == METRIC_NAMES
    assert set(report["by_category"]) == {"1", "3", "4"}
    for metrics in report["by_category"].values():
        assert tuple(metrics) == METRIC_NAMES
        assert all(0.0 <= v <= 1.0 for v in metrics.values())
    assert report["questions"] == 4
    assert report["skipped"] == 1  # the adversarial question has no evidence
    assert report["turns"] == 12
    assert report["memories"] == 11  # the repeated "See you!" is stored once
    assert isinstance(report["seconds"], int | float) and report["seconds"] >= 0
    assert report["config"]["embed_provider"] == "hash"
    # Exact keywords: greyhound, Copenhagen; the caption's "ceramic"; both marathon turns.
    assert report["by_category"]["4"]["turn_recall@5"] == 1.0
    assert report["by_category"]["3"]["turn_recall@5"] == 1.0
    assert report["by_category"]["1"]["turn_recall@5"] == 1.0
    assert report["overall"]["session_recall@5"] == 1.0
    assert report["overall"]["mrr"] > 0.5


def test_text_table(cli: Any, locomo_file: Path) -> None:
    result = cli("eval", "locomo", str(locomo_file), "--progress")
    assert result.returncode == 0, result.stderr
    assert "R@5" in result.stdout and "nDCG@10" in result.stdout
    assert "overall" in result.stdout and "single-hop" in result.stdout
    assert "embed_provider=hash" in result.stdout
    assert "conv-tiny" in result.stderr  # progress goes to stderr, not into the table


def test_question_file_reaches_a_repeated_turn_by_its_second_id(
    cli: Any, locomo_file: Path, tmp_path: Path
) -> None:
    questions = [
        {"sample_id": "conv-tiny", "query": "see you", "evidence": ["D2:6"], "category": 4},
        {"sample_id": "conv-tiny", "query": "pastries Copenhagen", "evidence": "D2:5",
         "category": 2},
    ]  # fmt: skip
    qfile = tmp_path / "questions.json"
    qfile.write_text(json.dumps(questions), encoding="utf-8")
    result = cli("eval", "locomo", str(locomo_file), "--questions", str(qfile), "--json")
    assert result.returncode == 0, result.stderr
    report = result.json()
    assert report["questions"] == 2
    assert set(report["by_category"]) == {"2", "4"}
    assert report["by_category"]["4"]["turn_recall@5"] == 1.0
    assert report["by_category"]["2"]["mrr"] == 1.0


def test_question_file_naming_an_unknown_conversation_is_refused(
    cli: Any, locomo_file: Path, tmp_path: Path
) -> None:
    qfile = tmp_path / "questions.json"
    qfile.write_text(json.dumps([{"sample_id": "conv-x", "query": "q", "evidence": ["D1:1"]}]))
    result = cli("eval", "locomo", str(locomo_file), "--questions", str(qfile))
    assert result.returncode != 0
    assert "conv-x" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_file_that_is_not_locomo_is_refused_without_traceback(cli: Any, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    result = cli("eval", "locomo", str(bad))
    assert result.returncode != 0
    assert "JSON list" in result.stderr
    assert "Traceback" not in result.stderr


def test_progress_on_a_terminal_unless_json(locomo_file: Path, tmp_path: Path) -> None:
    from tests.conftest import run_with_terminal_stderr

    env = {"MEMLODE_EMBED_PROVIDER": "none"}
    code, out, terminal = run_with_terminal_stderr(
        "eval", "locomo", str(locomo_file), cwd=tmp_path, env=env
    )
    assert code == 0, terminal
    assert "[1/1] conv-tiny: 12 turns stored" in terminal
    assert "[1/1]" not in out
    code, out, terminal = run_with_terminal_stderr(
        "eval", "locomo", str(locomo_file), "--json", cwd=tmp_path, env=env
    )
    assert code == 0 and json.loads(out)["questions"] == 4
    assert "[1/1]" not in terminal
