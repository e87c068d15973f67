"""The session-replay evaluation on one small real session, through ``memlode eval replay``:
the transcript replayed line by line through the hook commands ``memlode init`` registers,
then the next-day prompts and the control prompts of bench/replay_prompts.json. The figures
are asserted; the full run over the three long sessions is a benchmark (bench/RESULTS.md)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "bench" / "replay_prompts.json"
DATA = ROOT.parent / "shared" / "data" / "transcripts" / "spotter"


def test_replay_of_a_small_session(tmp_path: Path):
    if not (DATA / "tool_heavy.jsonl").is_file():
        pytest.skip(f"{DATA} is missing (../shared/data)")
    started = datetime.now(UTC)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "memlode",
            "eval",
            "replay",
            str(QUESTIONS),
            "--data",
            str(DATA),
            "--only",
            "tool_heavy",
            "--keep",
            str(tmp_path / "replay"),
            "--json",
        ],
        capture_output=True,
        text=True,
        # the product's default embedder, as a user runs it (the shipped model wheel)
        env={**os.environ, "MEMLODE_EMBED_PROVIDER": "local"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["sessions"] == 1 and report["relevant_prompts"] == 4
    replay = report["per_session"]["tool_heavy"]["replay"]
    assert replay["lines"] == 39 and replay["prompts"] == 2 and replay["tool_results"] >= 5
    assert replay["shifted_days"] > 200  # recorded on 2026-02-10
    assert report["failed_hooks"] == 0
    # alone in its store (some 30 memories, every word rare) the gate answers 1 of the 4; in
    # the full replay's store, 3 (bench/RESULTS.md)
    assert report["answered"] >= 1, report["unanswered"]
    # every next-day prompt was ranked, by the resident or (past its deadline) by the hook
    controls = len(json.loads(QUESTIONS.read_text())["controls"])
    paths = report["recall_paths"]
    assert set(paths) <= {"resident", "lean"} and sum(paths.values()) == 4 + controls, paths
    assert report["controls_silent_rate"] >= 0.95, report["noisy_controls"]
    assert report["overnight_embed"]["result"].endswith("0 pending")
    assert report["echo_hits"] == 0, report["echoes"]
    assert report["end_state_stated"] == 1
    assert report["files_left"] == {}
    assert set(report["hook_ms"]) >= {"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"}
    # the session (two minutes, recorded in February) is replayed as if it ended as the run
    # began: what its transcript's lines date and what the hooks date by the clock agree
    with sqlite3.connect(tmp_path / "replay" / "memlode-home" / "memlode.db") as conn:
        dated = dict(conn.execute("SELECT source, min(created_at) FROM memories GROUP BY source"))
    assert {"transcript", "hook"} <= set(dated), dated
    earliest = (started - timedelta(minutes=3)).strftime("%Y-%m-%dT%H:%M:%S")
    assert min(dated.values()) >= earliest, dated
    # the resident the hooks started is stopped with the run
    status = subprocess.run(
        [sys.executable, "-m", "memlode", "resident", "status"],
        capture_output=True,
        text=True,
        env={**os.environ, "MEMLODE_HOME": str(tmp_path / "replay" / "memlode-home")},
        timeout=60,
    )
    assert status.returncode == 3, status.stdout
