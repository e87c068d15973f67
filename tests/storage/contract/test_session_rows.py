"""Contract: ``SessionRows``, ``SessionCaptureRows`` and ``SettingRows`` give the same answers on
SQLite and PostgreSQL: sessions started, resumed, ended and listed; the hooks' capture state;
the store's settings."""

from __future__ import annotations

import json
from typing import Any

from memlode.storage import capture_session, memories, sessions, store_settings
from memlode.storage.values import NewMemory
from memlode.types import Session


def test_start_resume_end_and_list(store: Any) -> None:
    rows = sessions
    with store.write() as conn:
        session, new = rows.start(conn, "s1", "p", "claude-code", {"cwd": "/x"})
        assert new and (session.id, session.namespace, session.source) == ("s1", "p", "claude-code")
        assert session.metadata == {"cwd": "/x"} and session.ended_at is None
        assert rows.end(conn, "s1", "did things")
        assert not rows.end(conn, "nope", None)
        again, new = rows.start(conn, "s1", "p", "claude-code")
        assert not new and again.ended_at is None and again.summary == "did things"
        assert rows.end(conn, "s1", None)  # keeps the summary
        rows.start(conn, "s2", "p", "cli")
        rows.start(conn, "s3", "q", "cli")
    ended = rows.fetch(store.conn, "s1")
    assert ended.summary == "did things" and ended.ended_at is not None
    assert rows.fetch(store.conn, "nope") is None
    assert {s.id for s in rows.list_sessions(store.conn, "p")} == {"s1", "s2"}
    assert len(rows.list_sessions(store.conn, None)) == 3
    assert len(rows.list_sessions(store.conn, None, limit=2)) == 2


def test_summaries_are_redacted_then_cut(store: Any) -> None:
    rows = sessions
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    with store.write() as conn:
        rows.start(conn, "s1", "p", "cli")
        assert rows.set_summary(conn, "s1", f"first {token}", limit=12)
        assert not rows.set_summary(conn, "s1", "second", only_if_empty=True)
        assert not rows.set_summary(conn, "nope", "x")
    summary = rows.fetch(store.conn, "s1").summary
    assert summary.startswith("first ") and len(summary) <= 12 and "ghp_a1B2" not in summary


def test_insert_exact_keeps_every_field(store: Any) -> None:
    session = Session(
        id="imp",
        namespace="p",
        started_at="2025-01-01T00:00:00.000000Z",
        ended_at="2025-01-01T01:00:00.000000Z",
        summary="imported",
        source="claude-code",
        metadata={"a": {"b": [1, 2]}},
    )
    with store.write() as conn:
        assert sessions.insert_exact(conn, session)
        assert not sessions.insert_exact(conn, session)
    assert sessions.fetch(store.conn, "imp") == session


def test_capture_state_of_a_session(store: Any) -> None:
    cs = capture_session
    with store.write() as conn:
        assert cs.start_session(conn, "s1", "p", "claude-code", {"a": 1, "nested": {"x": 1}})
        assert not cs.start_session(conn, "s1", "p", "claude-code", {"b": 2, "nested": {"y": 2}})
        assert not cs.start_session(conn, "s1", "p", "claude-code", {"a": None})
        cs.update_session_metadata(conn, "s1", {"c": [1, 2], "b": {"replaced": True}})
        assert cs.end_session(conn, "s1", "sum")
        assert cs.set_session_summary(conn, "s1", "sum 2")
        assert not cs.set_session_summary(conn, "nope", "x")
    assert cs.session_metadata(store.conn, "s1") == {
        "nested": {"x": 1, "y": 2},
        "b": {"replaced": True},
        "c": [1, 2],
    }
    assert cs.session_metadata(store.conn, "nope") is None
    assert len(cs.session_started_at(store.conn, "s1")) == 27
    assert cs.session_started_at(store.conn, "nope") == ""
    assert sessions.fetch(store.conn, "s1").summary == "sum 2"


def test_seen_memories_and_file_observations(store: Any) -> None:
    cs = capture_session
    with store.write() as conn:
        cs.start_session(conn, "s1", "p", "claude-code")
        cs.start_session(conn, "s2", "p", "claude-code")
        old, _ = memories.insert(
            conn, NewMemory("read yesterday", namespace="p", session_id="s1", tags=["read"])
        )
        mine, _ = memories.insert(
            conn, NewMemory("read today", namespace="p", session_id="s2", metadata={"k": "v"})
        )
        assert cs.remember_seen(conn, "s2", old)
        assert not cs.remember_seen(conn, "s2", old)  # once
        assert not cs.remember_seen(conn, "s2", mine)  # its own
        loose, _ = memories.insert(conn, NewMemory("stored by no session", namespace="p"))
        assert cs.remember_seen(conn, "s2", loose)  # no session stored it: another's
        assert not cs.remember_seen(conn, "nope", old)  # no such session
        cs.remember_file(conn, "s2", "/a.py", old)
        cs.remember_file(conn, "s2", "/a.py", mine)
    assert cs.last_file_observation(store.conn, "s2", "/a.py") == mine
    assert cs.last_file_observation(store.conn, "s2", "/b.py") is None
    got = cs.session_memories(store.conn, "s2")
    assert [(r[0], r[1], r[2]) for r in got] == [
        (old, "read yesterday", "context"),
        (mine, "read today", "context"),
        (loose, "stored by no session", "context"),
    ]
    assert [json.loads(r[3]) for r in got] == [["read"], [], []]
    assert [json.loads(r[4]) for r in got] == [{}, {"k": "v"}, {}]


def test_settings(store: Any) -> None:
    settings = store_settings
    with store.write() as conn:
        settings.put_setting(conn, "weights", "a")
        settings.put_setting(conn, "weights", "b")
        settings.put_setting(conn, "other", "c")
        settings.delete_setting(conn, "other")
    assert settings.get_setting(store.conn, "weights") == "b"
    assert settings.get_setting(store.conn, "other") is None
