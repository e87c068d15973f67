"""A direct question about what a user stored on purpose, answered by the prompt hook's own
(lean) path, with no resident: the statement's source reaches the gate there too, so one word
of it ("where do the logs go?") is enough, while the same one word asked of an observation the
hooks captured, or said without asking, opens nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memlode.engine import Engine

STATED = "Application logs go to journald; the file logger was removed in March."


def _prompt(project: Path, text: str) -> dict[str, Any]:
    return {
        "session_id": "next-day",
        "transcript_path": str(project / "next-day.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def _injected(hook: Any, project: Path, text: str) -> str:
    result = hook("prompt", _prompt(project, text))
    assert result.returncode == 0
    if not result.stdout.strip():
        return ""
    return str(result.context()["hookSpecificOutput"]["additionalContext"])


def test_a_one_word_question_about_a_stored_statement_is_answered_without_a_resident(
    hook, project: Path, proj_engine: Engine
) -> None:
    proj_engine.store(STATED, "decision", 0.8, source="memory")
    assert "journald" in _injected(hook, project, "where do the logs go?")


def test_the_same_word_opens_nothing_for_a_captured_observation_or_a_statement(
    hook, project: Path, proj_engine: Engine
) -> None:
    proj_engine.store(STATED, "context", 0.5, source="hook")
    assert _injected(hook, project, "where do the logs go?") == ""
    proj_engine.store(STATED.replace("March", "April"), "decision", 0.8, source="memory")
    assert _injected(hook, project, "the logs go") == ""
