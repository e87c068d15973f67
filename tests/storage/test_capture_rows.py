"""The rows passive capture writes (``memlode.storage.capture``, ``capture_session``) through
the import-light way in (``memlode.storage.fastpath``): they read back through the engine like
rows the engine wrote, the session's capture state is kept in its tables, and a store from
before those tables keeps what its sessions had noted."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from memlode.config import Settings
from memlode.engine import Engine
from memlode.storage import capture, fastpath
from memlode.storage import capture_session as sessions
from memlode.storage.db import BUSY_TIMEOUT_MS, connect


def test_rows_written_by_capture_read_back_through_the_engine(memlode_home: Path) -> None:
    settings = Settings.load({"namespace": "p", "embed_provider": "none"})
    with Engine(settings) as engine:
        conn = fastpath.open_db(str(settings.database))
        with fastpath.write(conn):
            memory_id, created = capture.insert_memory(
                conn,
                content="Edited src/authService.py: getUserToken expiry",
                memory_type="decision",
                importance=0.45,
                tags=["edit", "file:src/authService.py", "edit"],
                metadata={"tool": "Edit"},
                namespace="p",
                source="hook",
                session_id="s1",
            )
            sessions.start_session(conn, "s1", "p", "claude-code", {"transcript_path": "/t"})
        conn.close()
        assert created
        memory = engine.get(memory_id, touch=False)
        assert memory.tags == ["edit", "file:src/authService.py"]
        assert memory.metadata == {"tool": "Edit"}
        assert memory.created_at == memory.updated_at and len(memory.created_at) == 27
        # the same content stored through the engine is the same memory (one insert, one rule)
        again = engine.store(memory.content, "decision", namespace="p", source="hook")
        assert (again.id, again.created) == (memory_id, False)
        # identifier parts are searchable, as for rows the engine writes
        assert [h.memory.id for h in engine.search("user token", namespace="p")] == [memory_id]
        session = engine.sessions(namespace="p")[0]
        assert (session.id, session.source, session.metadata) == (
            "s1",
            "claude-code",
            {"transcript_path": "/t"},
        )


def test_open_db_creates_and_migrates_a_missing_database(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "m.db"
    conn = fastpath.open_db(str(path))
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"memories", "sessions", "session_seen", "session_files"} <= tables
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
    conn.close()
    # an existing file without memlode's schema goes through the migrations
    other = tmp_path / "other.db"
    raw = sqlite3.connect(other)
    raw.execute("CREATE TABLE unrelated (x)")
    raw.commit()
    raw.close()
    conn = fastpath.open_db(str(other))
    assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 0
    conn.close()
    assert json.dumps(fastpath.new_id()).count("-") == 4


def _observe(conn: sqlite3.Connection, session: str, text: str) -> str:
    with fastpath.write(conn):
        sessions.start_session(conn, session, "p", "claude-code")
        memory_id, created = capture.insert_memory(
            conn,
            content=text,
            memory_type="context",
            importance=0.2,
            tags=[],
            metadata={},
            namespace="p",
            source="hook",
            session_id=session,
        )
        if not created:
            sessions.remember_seen(conn, session, memory_id)
    return memory_id


def test_a_session_keeps_what_it_met_again_and_its_last_file_observation(
    tmp_path: Path,
) -> None:
    conn = fastpath.open_db(str(tmp_path / "m.db"))
    yesterday = _observe(conn, "s1", "Read a.py lines 1-40")
    own = _observe(conn, "s2", "Edited a.py: retry on busy")
    assert _observe(conn, "s2", "Read a.py lines 1-40") == yesterday  # met again, not re-stored
    _observe(conn, "s1", "Read a.py lines 1-40")  # its own memory: nothing to note
    assert [r[0] for r in sessions.session_memories(conn, "s2")] == [yesterday, own]
    assert [r[0] for r in sessions.session_memories(conn, "s1")] == [yesterday]
    with fastpath.write(conn):
        assert sessions.last_file_observation(conn, "s2", "/a.py") is None
        sessions.remember_file(conn, "s2", "/a.py", yesterday)
        sessions.remember_file(conn, "s2", "/a.py", own)
        assert sessions.last_file_observation(conn, "s2", "/a.py") == own
        for i in range(sessions.MAX_FILES + 5):
            sessions.remember_file(conn, "s2", f"/f{i}.py", own)
    count = conn.execute("SELECT count(*) FROM session_files WHERE session_id = 's2'").fetchone()
    assert count[0] == sessions.MAX_FILES
    assert sessions.last_file_observation(conn, "s2", "/a.py") is None  # the oldest went
    # the metadata blob is not rewritten by any of this
    assert sessions.session_metadata(conn, "s2") == {}
    conn.close()


def test_a_store_from_before_the_tables_keeps_what_its_sessions_noted(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    conn = connect(path)
    with conn:
        conn.execute(
            "INSERT INTO sessions (id, namespace, source, started_at, metadata) VALUES"
            " ('s1', 'p', 'claude-code', '2026-11-01T10:00:00.000000Z', ?)",
            (json.dumps({"cwd": "/p", "seen": ["m2", "m1", 7], "files": {"/a.py": "m3"}}),),
        )
        # as migration 0011 left it: no capture tables, version 12 not applied
        conn.execute("DROP TABLE session_seen")
        conn.execute("DROP TABLE session_files")
        conn.execute("DELETE FROM schema_migrations WHERE version = 12")
    conn.close()
    conn = connect(path)
    seen = conn.execute("SELECT memory_id FROM session_seen ORDER BY seen_at").fetchall()
    assert [r[0] for r in seen] == ["m2", "m1"]
    files = conn.execute("SELECT session_id, path, memory_id FROM session_files").fetchall()
    assert [tuple(r) for r in files] == [("s1", "/a.py", "m3")]
    meta = conn.execute("SELECT metadata FROM sessions WHERE id = 's1'").fetchone()[0]
    assert json.loads(meta) == {"cwd": "/p"}
    conn.close()
