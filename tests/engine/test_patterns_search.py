"""Repeated searches become a pattern, and ``memlode consolidate --dry-run`` reports a store
whose patterns would change without writing anything: real hook processes fed Grep (and Bash
``rg``) PostToolUse payloads in several sessions, then the real CLI."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.conftest import run_hook_ok, run_memlode

from memlode.config import Settings


def _grep(project: Path, session: str, pattern: str, found: list[str]) -> None:
    payload = {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Grep",
        "tool_input": {"pattern": pattern, "path": str(project / "src")},
        "tool_response": {
            "mode": "files_with_matches",
            "filenames": [str(project / f) for f in found],
            "numFiles": len(found),
        },
    }
    run_hook_ok("post-tool", payload, project)


def _rg(project: Path, session: str, command: str) -> None:
    payload = {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": "src/billing.py:1:RETRY_LIMIT = 3", "stderr": ""},
    }
    run_hook_ok("post-tool", payload, project)


def _sessions(project: Path) -> None:
    """RETRY_LIMIT searched for in four sessions (word for word twice: stored once, met again;
    as a regex; with rg), and `def charge` in two only."""
    (project / "src").mkdir(exist_ok=True)
    _grep(project, "s1", "RETRY_LIMIT", ["src/billing.py"])
    _grep(project, "s1", "def charge", ["src/billing.py"])
    _grep(project, "s2", "RETRY_LIMIT", ["src/billing.py"])
    _grep(project, "s2", "def charge", ["src/billing.py"])
    _grep(project, "s3", r"\bretry_limit\b", ["src/billing.py", "src/config.py"])
    _rg(project, "s4", 'rg -n -t py "RETRY_LIMIT" src')


def _dump(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return list(conn.iterdump())


def _searches(cwd: Path) -> list[dict[str, Any]]:
    done = run_memlode("patterns", "--kind", "search", "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)["patterns"]
    assert isinstance(listed, list)
    return listed


def test_repeated_searches_across_sessions_become_one_pattern(workdir: Path) -> None:
    _sessions(workdir)
    assert _searches(workdir) == []
    detected = run_memlode("patterns", "--detect", "--kind", "search", "--json", cwd=workdir)
    assert detected.returncode == 0, detected.stderr
    [found] = _searches(workdir)
    assert found["kind"] == "search" and found["memory_type"] == "pattern"
    assert found["text"].startswith("The same search was run in 4 sessions (")
    assert '"RETRY_LIMIT" (last found: ' in found["text"]
    assert found["evidence"] == 3  # the Grep stored once and met again, the regex, the rg
    assert found["strength"] == round(4 / 6, 3)
    shown = run_memlode("patterns", cwd=workdir)
    assert "The same search was run in 4 sessions" in shown.stdout
    assert "def charge" not in shown.stdout  # searched in two sessions only


def test_consolidate_dry_run_reports_changed_patterns_and_writes_nothing(workdir: Path) -> None:
    _sessions(workdir)
    db = Settings.load({}).database
    before = _dump(db)
    dry = run_memlode("consolidate", "--dry-run", cwd=workdir)
    assert dry.returncode == 0, dry.stderr
    assert "Traceback" not in dry.stderr
    lines = dry.stdout.splitlines()
    patterns = next(line for line in lines if line.startswith("patterns "))
    assert "search 1, habit 1" in patterns and patterns.endswith("would change 2")
    assert any(
        line.startswith("  new search pattern (strength 0.667, 3 evidence): The same search")
        for line in lines
    )
    assert _dump(db) == before

    # once written, a grown pattern is a change too: the dry run shows it as changed
    assert run_memlode("consolidate", "--cycle", "patterns", cwd=workdir).returncode == 0
    _grep(workdir, "s5", "RETRY_LIMIT", ["src/billing.py"])
    before = _dump(db)
    again = run_memlode("consolidate", "--dry-run", "--cycle", "patterns", cwd=workdir)
    assert again.returncode == 0, again.stderr
    assert "  changed search pattern (strength 0.833, 3 evidence)" in again.stdout
    assert _dump(db) == before
