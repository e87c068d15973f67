"""What the hooks hand over once a decision was replaced, through the real hook processes: the
prompt hook injects the current statement and shows the replaced one only as its history
("was: ... until <date>"), even when the replaced one is what matched the prompt's words; the
SessionStart briefing lists the current decision with its history, not the old one as its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memlode.engine import Engine
from memlode.storage import supersession as links

OLD = "We cache user sessions in Redis; the session cache backend is Redis."
NEW = "Sessions move to Memcached; Redis is dropped for sessions."


def _prompt(project: Path, text: str) -> dict[str, Any]:
    return {
        "session_id": "next-day",
        "transcript_path": str(project / "next-day.jsonl"),
        "cwd": str(project),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }


def _store(engine: Engine) -> tuple[str, str]:
    old = engine.store(OLD, "decision", 0.8, created_at="2026-03-01T10:00:00Z").id
    engine.store("Rate-limit counters are kept in Redis.", "decision", created_at="2026-03-02")
    new = engine.store(NEW, "decision", 0.8, created_at="2026-03-20T10:00:00Z").id
    assert links.replaced_by(engine.conn, [old])[old].new_id == new
    return old, new


def test_the_prompt_hook_hands_over_the_current_decision(hook, project: Path, proj_engine):
    _store(proj_engine)
    result = hook("prompt", _prompt(project, "which cache backend holds the user sessions?"))
    assert result.returncode == 0
    text = result.context()["hookSpecificOutput"]["additionalContext"]
    items = [line for line in text.splitlines() if line.startswith("- [")]
    assert items[0].startswith("- [decision, 2026-03-20] Sessions move to Memcached")
    assert "(was: We cache user sessions in Redis" in items[0]
    assert "until 2026-03-20)" in items[0]
    # the replaced statement is never an item of its own
    assert not any(line.split("] ", 1)[1].startswith("We cache") for line in items)


def test_session_start_lists_the_current_decision_with_its_history(
    hook, payloads, proj_engine: Engine
):
    _store(proj_engine)
    result = hook("session-start", payloads["session-start"])
    text = result.context()["hookSpecificOutput"]["additionalContext"]
    lines = [line for line in text.splitlines() if "Redis" in line or "Memcached" in line]
    current = [line for line in lines if "Memcached" in line]
    assert len(current) == 1 and "(was: We cache user sessions in Redis" in current[0]
    assert not any(line.startswith("- [decision, 2026-03-01]") for line in lines)
    assert any("Rate-limit counters" in line for line in lines)  # its neighbour stays
