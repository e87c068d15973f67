"""The UserPromptSubmit gate and what it injects, through the real hook process.

- a prompt whose distinctive words nothing stored holds gets nothing, even when its generic
  words ("add", "page", "test") match many memories;
- a long memory is shown by the passage about the prompt, not by its first lines;
- the same text stored twice (a transcript chunk and a doc chunk of one summary) is one item;
- a stored prompt is never injected (a question is not an answer).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memlode.engine import Engine
from memlode.hooks.context import excerpt


def _prompt(project: Path, text: str, session: str = "next-day") -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(project / f"{session}.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def _injected(result: Any) -> str:
    if not result.stdout.strip():
        return ""
    return str(result.context()["hookSpecificOutput"]["additionalContext"])


def _store_project_history(engine: Engine) -> None:
    filler = " ".join(f"Step {i}: add the page test and run the suite again." for i in range(40))
    engine.store(
        f"{filler} The fix for the flaky login test was to start the sandbox owner with "
        "start_owner! and shared: true in the ConnCase setup. " + filler,
        "insight",
        source="transcript",
    )
    for i in range(12):
        engine.store(f"Add the page {i} test; the page test suite passed", "context")


def test_unrelated_prompt_gets_nothing(hook, project: Path, proj_engine: Engine):
    _store_project_history(proj_engine)
    result = hook("prompt", _prompt(project, "Add two-factor TOTP login to the settings page"))
    assert result.returncode == 0
    assert _injected(result) == ""


def test_long_memory_is_shown_by_its_relevant_passage(hook, project: Path, proj_engine: Engine):
    _store_project_history(proj_engine)
    result = hook(
        "prompt", _prompt(project, "what fixed the flaky login test with the sandbox owner?")
    )
    text = _injected(result)
    assert "start_owner!" in text and "shared: true" in text


def test_duplicates_count_once_and_prompts_are_not_answers(
    hook, project: Path, proj_engine: Engine
):
    summary = (
        "Compaction summary: the annotations migration was hand-written because SQLite cannot "
        "ALTER a column; the generated one rebuilt the whole table."
    )
    proj_engine.store(summary, "context", source="transcript")
    proj_engine.store("MEMORY.md > " + summary, "context", source="doc")
    hook("prompt", _prompt(project, "why was the annotations migration hand-written?", "old"))
    text = _injected(
        hook("prompt", _prompt(project, "why was the annotations migration hand-written?"))
    )
    assert "SQLite cannot" in text
    assert text.count("SQLite cannot") == 1
    assert "why was the annotations migration hand-written?" not in text


def test_excerpt_keeps_the_matching_window():
    content = "intro " * 300 + "the answer is ReviewTokenStore one-time token " + "outro " * 300
    shown = excerpt(content, frozenset({"reviewtokenstor", "token"}), 200)
    assert "ReviewTokenStore" in shown and len(shown) <= 202
    assert shown.startswith("…") and shown.endswith("…")
    assert excerpt("short text", frozenset({"short"}), 200) == "short text"
