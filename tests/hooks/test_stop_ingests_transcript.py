"""Stop (and PostCompact, right after a compaction wrote its summary) hands the session's
transcript to a detached ``memlode ingest`` and returns at once."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

TRANSCRIPT = Path(__file__).resolve().parents[3] / "shared/data/transcripts/spotter/short.jsonl"


def _transcript_rows(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db) as conn:
            row = conn.execute("SELECT count(*) FROM memories WHERE source = 'transcript'")
            return int(row.fetchone()[0])
    except sqlite3.OperationalError:
        return 0


@pytest.mark.parametrize(
    ("event", "enabled"), [("Stop", True), ("Stop", False), ("PostCompact", True)]
)
def test_stop_ingests_the_transcript_in_the_background(
    tmp_path: Path, memlode_home: Path, event: str, enabled: bool
) -> None:
    if not TRANSCRIPT.exists():
        pytest.skip("../shared/data/transcripts is absent")
    transcript = tmp_path / "session.jsonl"
    shutil.copy(TRANSCRIPT, transcript)
    payload = {
        "session_id": "s-1",
        "transcript_path": str(transcript),
        "cwd": str(tmp_path),
        "hook_event_name": event,
        "stop_hook_active": False,
    }
    env = {**os.environ, "MEMLODE_HOOKS_TRANSCRIPTS": "1" if enabled else "0"}
    proc = subprocess.run(
        [sys.executable, "-m", "memlode.hooks", event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout == ""
    db = memlode_home / "memlode.db"
    deadline = time.monotonic() + 60
    while enabled and _transcript_rows(db) == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    if enabled:
        assert _transcript_rows(db) > 0, "the detached ingest stored no transcript turn"
    else:
        time.sleep(1.0)  # give a wrongly started ingest the chance to show up
        assert _transcript_rows(db) == 0


def _stop_on(
    tmp_path: Path, text: str, name: str = "session.jsonl"
) -> subprocess.CompletedProcess[str]:
    """The real Stop hook, with a "transcript" ``name`` holding ``text``, background ingest on."""
    transcript = tmp_path / name
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text(text, encoding="utf-8")
    payload = {
        "session_id": "s-1",
        "transcript_path": str(transcript),
        "cwd": str(tmp_path),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    return subprocess.run(
        [sys.executable, "-m", "memlode.hooks", "Stop"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, "MEMLODE_HOOKS_TRANSCRIPTS": "1"},
        timeout=60,
    )


def _logged(log: Path, what: str) -> str:
    """hooks.log once ``what`` is in it (or after 60 s)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and what not in _text(log):
        time.sleep(0.2)
    return _text(log)


def test_a_failed_background_ingest_is_in_the_hook_log(tmp_path: Path, memlode_home: Path) -> None:
    """The detached ingest's error is written to hooks.log (which `doctor` shows), not lost,
    as one line like the hooks' own (the time, the process, what failed), redacted: here the
    file is no transcript at all, and its path holds a token."""
    import re

    token = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"
    proc = _stop_on(tmp_path, "this is no transcript\n", f"{token}/session.jsonl")
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    log = memlode_home / "hooks.log"
    [line] = _logged(log, "transcript").splitlines()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ pid=\d+ ingest: memlode: error: .*", line)
    assert "/session.jsonl is not a Claude Code transcript" in line
    assert token not in line and "[redacted:github_token]" in line
    assert oct(log.stat().st_mode & 0o777) == "0o600"


def test_the_hook_log_stays_bounded_when_the_ingest_writes_to_it(
    tmp_path: Path, memlode_home: Path
) -> None:
    """A full hooks.log is rotated before the background ingest appends its error."""
    from memlode.hooks._log import MAX_BYTES

    log = memlode_home / "hooks.log"
    memlode_home.mkdir(parents=True, exist_ok=True)
    log.write_text("x" * (MAX_BYTES + 1), encoding="utf-8")
    proc = _stop_on(tmp_path, "this is no transcript\n")
    assert proc.returncode == 0 and proc.stdout == ""
    assert "is not a Claude Code transcript" in _logged(log, "transcript")
    assert (memlode_home / "hooks.log.1").stat().st_size == MAX_BYTES + 1
    assert log.stat().st_size < 4096


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""
