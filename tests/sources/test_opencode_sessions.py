"""OpenCode's sessions (its SQLite database) read as turns and ingested through the real CLI.

``payloads/opencode/opencode.db`` is the database ``opencode run`` (1.18.33) left after
tests/clients/test_opencode.py's three sessions, checkpointed and vacuumed to 512-byte pages
(its rows untouched): session 1 reads calc.py, edits it, runs a failing then a passing check
and answers; session 2 calls memlode's recall tool; session 3 answers without tools.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memlode.errors import InvalidInput, NotFound
from memlode.sources import transcript_opencode as opencode
from memlode.sources.conversations import session_database
from memlode.sources.transcript import EventKind
from memlode.sources.turns import build_turns

RECORDED = Path(__file__).resolve().parents[1] / "clients" / "payloads" / "opencode" / "opencode.db"
FIX = "ses_dcbd4edf4ffeUK7C8Z04hJYwTd"
RECALL = "ses_dcbd4c34fffeBCjxsK5XlFVJcz"
WEATHER = "ses_dcbd49c93ffeDL3w1YYu0VsEey"
PROMPT = "Fix the add function in calc.py so the checks pass"
FINDING_MARK = "QUOKKA-3"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A copy of the recording (tests that change it change their own)."""
    copy = tmp_path / "opencode.db"
    shutil.copyfile(RECORDED, copy)
    return copy


def test_sessions_listed_oldest_first() -> None:
    assert opencode.is_database(RECORDED)
    assert opencode.list_sessions(RECORDED) == [FIX, RECALL, WEATHER]


def test_session_read_as_one_turn_with_claude_code_tools() -> None:
    transcript = opencode.read_session(RECORDED, FIX)
    assert transcript.client == "opencode"
    assert transcript.session_id == FIX
    assert transcript.cwd == "/tmp/oc_run/opencode0/proj"
    (turn,) = build_turns(transcript.main)
    assert turn.user_text == PROMPT  # verbatim
    tools = [b.tool for b in turn.blocks if b.tool is not None]
    assert [t.name for t in tools] == ["Read", "Edit", "Bash", "Bash"]
    edit = tools[1]
    assert edit.input["file_path"].endswith("/calc.py")
    assert (edit.input["old_string"], edit.input["new_string"]) == ("return a - b", "return a + b")
    failing, passing = tools[2], tools[3]
    assert failing.is_error and "ZEBRA-4471" in (failing.result or "")
    assert not passing.is_error and passing.input["command"] == "sh check.sh"
    texts = [b.text for b in turn.blocks if b.text]
    assert len(texts) == 1 and FINDING_MARK in texts[0]


def test_mcp_tool_keeps_its_name_and_plain_answer_has_no_tools() -> None:
    (recall,) = build_turns(opencode.read_session(RECORDED, RECALL).main)
    assert [b.tool.name for b in recall.blocks if b.tool] == ["memlode_recall_memory"]
    (weather,) = build_turns(opencode.read_session(RECORDED, WEATHER).main)
    assert [b.text for b in weather.blocks] == ["Mild and showery."]


def test_pending_undo_drops_what_it_undoes(db: Path) -> None:
    """``session.revert`` names the first message undone: it and every later one are gone."""
    with sqlite3.connect(db) as conn:
        (edit_step,) = conn.execute(
            'SELECT message_id FROM part WHERE session_id = ? AND data LIKE \'%"tool":"edit"%\'',
            (FIX,),
        ).fetchone()
        conn.execute(
            "UPDATE session SET revert = ? WHERE id = ?",
            (json.dumps({"messageID": edit_step}), FIX),
        )
    transcript = opencode.read_session(db, FIX)
    (turn,) = build_turns(transcript.main)
    assert [b.tool.name for b in turn.blocks if b.tool] == ["Read"]
    assert transcript.abandoned == 4


def test_synthetic_text_is_not_the_prompt(db: Path) -> None:
    """OpenCode's own text parts in a user message (``synthetic``) are not the person's."""
    with sqlite3.connect(db) as conn:
        (message,) = conn.execute(
            "SELECT id FROM message WHERE session_id = ? ORDER BY id LIMIT 1", (WEATHER,)
        ).fetchone()
        conn.execute(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
            "VALUES ('prt_zzzz', ?, ?, 0, 0, ?)",
            (
                message,
                WEATHER,
                json.dumps({"type": "text", "text": "Called Read", "synthetic": True}),
            ),
        )
    events = opencode.read_session(db, WEATHER).main.events
    prompts = [e.text for e in events if e.kind is EventKind.PROMPT]
    assert prompts == ["What is the weather usually like in Lisbon in April?"]


def test_unknown_session_and_other_files_refused(tmp_path: Path) -> None:
    with pytest.raises(NotFound):
        opencode.read_session(RECORDED, "ses_nope")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    assert not opencode.is_database(other)
    with pytest.raises(InvalidInput):
        opencode.read_session(other, FIX)
    text = tmp_path / "notes.jsonl"
    text.write_text('{"a": 1}\n')
    assert not opencode.is_database(text)


def test_database_found_where_opencode_keeps_it() -> None:
    env = {"HOME": "/home/u", "XDG_DATA_HOME": "/data"}
    assert session_database("opencode", env) == "/data/opencode/opencode.db"
    env = {"HOME": "/home/u", "XDG_DATA_HOME": "relative"}  # ignored, as XDG says
    assert session_database("opencode", env) == "/home/u/.local/share/opencode/opencode.db"
    assert session_database("opencode", {}) is None


# ---- ingest through the CLI ------------------------------------------------------------------


def ingest(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "memlode", "ingest", "transcript", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def transcript_rows() -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-m", "memlode", "export", "--namespace", "*"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return [r for r in rows if r.get("source") == "transcript"]


def test_ingest_session_once_then_unchanged_then_grown(db: Path) -> None:
    first = ingest(str(db), "--session", FIX)
    (report,) = first["files"]
    assert report["status"] == "ingested" and report["path"] == f"{db.resolve()}#{FIX}"
    assert first["turns"] == 1 and first["chunks_added"] > 0
    rows = transcript_rows()
    assert {r["session_id"] for r in rows} == {FIX}
    assert {r["metadata"]["client"] for r in rows} == {"opencode"}
    assert any(PROMPT in r["content"] and FINDING_MARK in r["content"] for r in rows)

    again = ingest(str(db), "--session", FIX)
    assert [f["status"] for f in again["files"]] == ["unchanged"]
    assert again["chunks_added"] == 0
    assert len(transcript_rows()) == len(rows)

    # OpenCode appends a part to the last reply: the provisional turn is replaced, not added
    with sqlite3.connect(db) as conn:
        (last,) = conn.execute(
            "SELECT id FROM message WHERE session_id = ? ORDER BY id DESC LIMIT 1", (FIX,)
        ).fetchone()
        conn.execute(
            "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
            "VALUES ('prt_zzzz', ?, ?, 1796171575999, 1796171575999, ?)",
            (last, FIX, json.dumps({"type": "text", "text": "Also: PANGOLIN-9."})),
        )
    grown = ingest(str(db), "--session", FIX)
    assert grown["units_added"] == 0 and grown["units_replaced"] == 1
    contents = [r["content"] for r in transcript_rows()]
    assert any("PANGOLIN-9" in c for c in contents)


def test_ingest_whole_database_and_refusals(db: Path, tmp_path: Path) -> None:
    done = ingest(str(db))
    assert [f["session_id"] for f in done["files"]] == [FIX, RECALL, WEATHER]
    assert done["turns"] == 3
    assert ingest(str(db))["files_read"] == 0
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text("")
    refused = subprocess.run(
        [sys.executable, "-m", "memlode", "ingest", "transcript", str(jsonl), "--session", FIX],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode != 0 and "OpenCode database" in refused.stderr
