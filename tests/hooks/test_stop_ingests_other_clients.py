"""Codex CLI's Stop and Gemini CLI's AfterAgent (memlode's stop) hand the session's own
conversation file (the payload's ``transcript_path``) to a detached ``memlode ingest``, as
Claude Code's Stop does; the turns are stored labelled with the client. Payloads and files are
the ones those CLIs wrote (tests/clients/payloads/)."""

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

PAYLOADS = Path(__file__).resolve().parents[1] / "clients" / "payloads"
# (client, hook event as the client names it, its Stop payload, its conversation file)
CASES = [
    ("codex", "Stop", "codex/session1-11-stop.json", "codex/rollout-fix.jsonl"),
    ("gemini", "AfterAgent", "gemini/session1-12-stop.json", "gemini/chat-fix.jsonl"),
]
SETTLE_SECONDS = 60  # how long the detached ingest may take to show up


def _turn_clients(db: Path) -> list[str]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db) as conn:
            rows = conn.execute(
                "SELECT json_extract(metadata, '$.client') FROM memories"
                " WHERE source = 'transcript'"
            ).fetchall()
    except sqlite3.OperationalError:
        return []
    return [str(r[0]) for r in rows]


@pytest.mark.parametrize(("client", "event", "payload_name", "chat_name"), CASES)
def test_stop_ingests_the_clients_conversation_file(
    tmp_path: Path, memlode_home: Path, client: str, event: str, payload_name: str, chat_name: str
) -> None:
    chat = tmp_path / Path(chat_name).name
    shutil.copy(PAYLOADS / chat_name, chat)
    payload = json.loads((PAYLOADS / payload_name).read_text())
    payload.update({"transcript_path": str(chat), "cwd": str(tmp_path)})
    proc = subprocess.run(
        [sys.executable, "-m", "memlode.hooks", event, client],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MEMLODE_HOOKS_TRANSCRIPTS": "1"},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    db = memlode_home / "memlode.db"
    deadline = time.monotonic() + SETTLE_SECONDS
    while not _turn_clients(db) and time.monotonic() < deadline:
        time.sleep(0.2)
    clients = _turn_clients(db)
    assert clients, "the detached ingest stored no turn"
    assert set(clients) == {client}  # the label the hooks record: "codex", "gemini"
