"""Contract: what the SessionStart briefing and a recalled failure read (``BriefingRows``) gives
the same answers on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from memlode.storage import briefing, capture, consolidation, memories, sessions
from memlode.storage.values import NewMemory
from memlode.types import MemoryType, Session


def _put(store: Any, conn: Any, text: str, **fields: Any) -> str:
    fields.setdefault("namespace", "p")
    memory_id, created = memories.insert(conn, NewMemory(text, **fields))
    assert created
    return str(memory_id)


def _day(n: int) -> str:
    return f"2026-01-{n:02d}T00:00:00.000000Z"


def test_counts_summaries_and_key_memories(store: Any) -> None:
    b = briefing
    with store.write() as conn:
        for sid, day in (("s1", 1), ("s2", 2), ("s3", 3)):
            sessions.insert_exact(
                conn,
                Session(id=sid, namespace="p", started_at=_day(day), summary=f"did {sid}"),
            )
        sessions.set_summary(conn, "s2", "")
        high = _put(store, conn, "use postgres", memory_type=MemoryType.DECISION, importance=0.9)
        _put(store, conn, "low decision", memory_type=MemoryType.DECISION, importance=0.2)
        _put(store, conn, "a captured read", source="hook", memory_type=MemoryType.DECISION)
        _put(
            store,
            conn,
            "the user answered",
            source="hook",
            memory_type=MemoryType.DECISION,
            metadata={"tool": "AskUserQuestion"},
            importance=0.6,
        )
        _put(
            store,
            conn,
            "compacted",
            memory_type=MemoryType.DECISION,
            metadata={"summary": "compaction"},
        )
        _put(store, conn, "a pattern", memory_type=MemoryType.DECISION, metadata={"pattern": "x"})
        _put(store, conn, "derived", memory_type=MemoryType.DECISION, source="consolidation")
        _put(store, conn, "a context", memory_type=MemoryType.CONTEXT, created_at=_day(9))
    counts = {r[0]: (r[1], r[2]) for r in b.type_counts(store.conn, "p")}
    assert counts["decision"][0] == 7 and counts["context"] == (1, _day(9))
    assert b.session_count(store.conn, "p") == 3 and b.session_count(store.conn, "q") == 0
    assert [tuple(r) for r in b.recent_summaries(store.conn, "p", "s3", 5)] == [(_day(1), "did s1")]
    keys = b.key_memories(store.conn, "p", ["decision"], "hook", 10, "consolidation")
    assert [r[1] for r in keys] == ["use postgres", "the user answered", "low decision"]
    assert keys[0][0] == "decision" and high


def test_reflections_edits_hotspots_and_patterns(store: Any) -> None:
    b = briefing
    with store.write() as conn:
        still_open = _put(
            store,
            conn,
            "open question",
            source="consolidation",
            tags=["reflection:open"],
            session_id="s1",
            created_at=_day(2),
        )
        answered = _put(
            store,
            conn,
            "answered question",
            source="consolidation",
            tags=["reflection:open"],
            session_id="s1",
            created_at=_day(3),
        )
        _put(
            store, conn, "mine", source="consolidation", tags=["reflection:open"], session_id="now"
        )
        later = _put(store, conn, "the answer", source="consolidation")
        consolidation.set_demotions(conn, later, [answered])
        _put(
            store,
            conn,
            "edited a.py",
            source="hook",
            metadata={"tool": "Edit"},
            session_id="s1",
            created_at=_day(4),
        )
        _put(
            store, conn, "wrote b.py", source="hook", metadata={"tool": "Write"}, created_at=_day(5)
        )
        _put(store, conn, "read c.py", source="hook", metadata={"tool": "Read"})
        _put(store, conn, "edited now", source="hook", metadata={"tool": "Edit"}, session_id="now")

        a = capture.upsert_file_node(conn, "/p/a.py", "p", "a.py")
        c = capture.upsert_file_node(conn, "/p/c.py", "p", "c.py")
        for i in range(3):
            obs = _put(store, conn, f"read c {i}", source="hook")
            capture.ensure_memory_node(conn, obs, "r", "p")
            capture.add_edge(conn, obs, c, "RELATES_TO", {"action": "read"})
        obs = _put(store, conn, "edit a", source="hook")
        capture.ensure_memory_node(conn, obs, "e", "p")
        capture.add_edge(conn, obs, a, "RELATES_TO", {"action": "edit"})
        for text, meta in (
            ("hot", {"pattern": "hotspot", "strength": 0.8}),
            ("chain", {"pattern": "chain", "strength": 0.7}),
            ("weak", {"pattern": "hotspot", "strength": 0.3}),
            ("skipped", {"pattern": "tools", "strength": 0.95}),
        ):
            _put(store, conn, text, source="consolidation", metadata=meta)
    opened = b.open_reflections(store.conn, "p", "consolidation", "reflection:open", "now", 5)
    assert [tuple(r) for r in opened] == [("open question", _day(2))] and still_open
    edits = b.recent_edits(store.conn, "p", "hook", "now", 5)
    assert [r[0] for r in edits] == ["wrote b.py", "edited a.py"]
    assert [tuple(r) for r in b.file_hotspots(store.conn, "p", 7, 5)] == [
        ("a.py", 1, 0),
        ("c.py", 0, 3),
    ]
    strong = b.strong_patterns(store.conn, "p", "consolidation", 0.6, 5, ["tools"])
    assert [tuple(r) for r in strong] == [("hot", 0.8), ("chain", 0.7)]


def test_session_map_and_commands(store: Any) -> None:
    b = briefing
    with store.write() as conn:
        b.keep_session_map(conn, "p", "map v1")
        b.keep_session_map(conn, "p", "map v2")
        failed = _put(
            store,
            conn,
            "pytest failed",
            source="hook",
            session_id="s",
            tags=["failure"],
            metadata={"command": "pytest -x tests"},
        )
        _put(
            store,
            conn,
            "failed again",
            source="hook",
            session_id="s",
            tags=["failure"],
            metadata={"command": "PYTEST tests/a"},
        )
        _put(
            store,
            conn,
            "other session",
            source="hook",
            session_id="t",
            metadata={"command": "pytest ok"},
        )
        _put(
            store,
            conn,
            "passed",
            source="hook",
            session_id="s",
            metadata={"command": "PyTest tests/b_c"},
        )
    assert b.session_map(store.conn, "p") == "map v2" and b.session_map(store.conn, "q") is None
    assert b.next_command(store.conn, failed, "pytest%", "failure") == (
        "passed",
        "PyTest tests/b_c",
    )
    assert b.next_command(store.conn, failed, "pytest%b\\_c", "failure") is not None
    assert b.next_command(store.conn, failed, "pytest%b\\_x", "failure") is None
    assert b.memory_command(store.conn, failed) == "pytest -x tests"
    assert b.memory_command(store.conn, "nope") is None


def test_hotspots_count_the_last_days_only(store: Any) -> None:
    now = datetime.now(UTC)
    with store.write() as conn:
        a = capture.upsert_file_node(conn, "/p/a.py", "p", "a.py")
        for age in (1, 6, 8, 400):
            obs = _put(store, conn, f"edit a {age} days ago", source="hook")
            capture.ensure_memory_node(conn, obs, "e", "p")
            capture.add_edge(conn, obs, a, "RELATES_TO", {"action": "edit"})
            when = (now - timedelta(days=age)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
            conn.execute("UPDATE graph_edges SET created_at = ? WHERE source_id = ?", (when, obs))
    b = briefing
    assert [tuple(r) for r in b.file_hotspots(store.conn, "p", 7, 5)] == [("a.py", 2, 0)]
    assert [tuple(r) for r in b.file_hotspots(store.conn, "p", 30, 5)] == [("a.py", 3, 0)]
    assert [tuple(r) for r in b.file_hotspots(store.conn, "p", 1000, 5)] == [("a.py", 4, 0)]
