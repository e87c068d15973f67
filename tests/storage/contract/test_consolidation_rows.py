"""Contract: what the consolidation cycles read and keep (``ConsolidationRows``,
``PatternRows``, ``ReflectionRows``, ``CompressionRows``) gives the same answers on SQLite and
PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

from memlode.storage import (
    capture_session,
    compression,
    consolidation,
    memories,
    patterns,
    reflection,
    sessions,
)
from memlode.storage.values import NewMemory
from memlode.types import MemoryType


def _put(store: Any, conn: Any, text: str, **fields: Any) -> str:
    fields.setdefault("namespace", "p")
    memory_id, created = memories.insert(conn, NewMemory(text, **fields))
    assert created
    return str(memory_id)


def _day(n: int) -> str:
    return f"2026-01-{n:02d}T00:00:00.000000Z"


def test_the_log_decay_clusters_and_demotions(store: Any) -> None:
    c = consolidation
    with store.write() as conn:
        first = c.log_start(conn, "decay", "p", _day(1), {"n": 1})
        second = c.log_start(conn, "cluster", "p", _day(2), {})
        c.log_finish(conn, first, _day(3), {"n": 2, "done": True})
        kept = _put(store, conn, "a decision", memory_type=MemoryType.DECISION, created_at=_day(1))
        obs = [
            _put(store, conn, f"observed {i}", source="hook", tags=["read"], created_at=_day(i))
            for i in range(1, 4)
        ]
        _put(store, conn, "in q", namespace="q")
        summary = _put(store, conn, "summary", source="consolidation")
        assert c.write_decay(conn, [(obs[0], 0.3, 0.5), (obs[1], 0.2, 0.5)]) == 2
        assert c.write_decay(conn, [(obs[0], 0.25, 0.5)]) == 1
        c.save_cluster(conn, "p", "file", "/a.py", summary, "h1")
        c.save_cluster(conn, "p", "file", "/a.py", summary, "h2")
        c.set_demotions(conn, summary, obs[:2])
        c.set_demotions(conn, summary, obs[1:])
    log = [tuple(r) for r in c.log_rows(store.conn, 5)]
    assert [(r[0], r[1], r[4]) for r in log] == [
        (second, "cluster", None),
        (first, "decay", _day(3)),
    ]
    assert json.loads(log[1][5]) == {"n": 2, "done": True}
    assert c.latest_start(store.conn, ["decay", "cluster"]) == _day(2)
    assert c.latest_start(store.conn, ["forget"]) is None
    assert c.namespaces_with_rows(store.conn) == ["p", "q"]
    candidates = {
        r[0]: tuple(r) for r in c.decay_candidates(store.conn, "p", ["consolidation"], "decision")
    }
    assert set(candidates) == set(obs)  # the user's decision and the summary are exempt
    assert candidates[obs[0]][1] == 0.25 and candidates[obs[0]][4:] == (0.5, 0.25)
    assert candidates[obs[2]][4:] == (None, None)
    rows = c.observation_rows(store.conn, "p", "hook")
    assert [r[0] for r in rows] == obs and json.loads(rows[0][2]) == ["read"]
    assert json.loads(rows[0][3]) == {} and rows[0][5] == _day(1)
    assert c.cluster_record(store.conn, "p", "file", "/a.py") == (summary, "h2")
    assert c.cluster_record(store.conn, "p", "file", "/b.py") is None
    assert c.demoted(store.conn, [*obs, kept]) == set(obs[1:])
    assert c.demoted(store.conn, []) == set()
    with store.write() as conn:
        c.set_demotions(conn, summary, [])  # it stands for nothing now
    assert c.demoted(store.conn, [*obs, kept]) == set()


def test_patterns(store: Any) -> None:
    p = patterns
    with store.write() as conn:
        d1 = _put(store, conn, "decide a", memory_type=MemoryType.DECISION, created_at=_day(1))
        _put(store, conn, "decide b", memory_type=MemoryType.DECISION, source="consolidation")
        seen = _put(store, conn, "read x", source="hook", session_id="s1")
        capture_session.start_session(conn, "s2", "p", "claude-code")
        capture_session.remember_seen(conn, "s2", seen)
        strong = _put(
            store,
            conn,
            "strong",
            source="consolidation",
            metadata={"pattern": "hotspot", "strength": 0.9},
        )
        weak = _put(
            store,
            conn,
            "weak",
            source="consolidation",
            metadata={"pattern": "chain", "strength": 0.2},
        )
        unrated = _put(store, conn, "unrated", source="consolidation", metadata={"pattern": "x"})
        _put(store, conn, "not a pattern", source="consolidation", metadata={"pattern": None})
        _put(store, conn, "a search", source="hook", memory_type=MemoryType.PATTERN)
    assert [r[0] for r in p.decision_rows(store.conn, "p", "consolidation")] == [d1]
    assert [tuple(r) for r in p.seen_rows(store.conn, "p", "hook")] == [(seen, "s2")]
    found = p.stored_patterns(store.conn, "p", "consolidation", None, 0.0, 10)
    assert [r[0] for r in found] == [strong, weak, unrated]
    assert json.loads(found[0][4]) == {"pattern": "hotspot", "strength": 0.9}
    assert [r[0] for r in p.stored_patterns(store.conn, None, "consolidation", None, 0.5, 10)] == [
        strong
    ]
    assert [r[0] for r in p.stored_patterns(store.conn, "p", "consolidation", "chain", 0, 10)] == [
        weak
    ]


def test_reflection(store: Any) -> None:
    r = reflection
    with store.write() as conn:
        for sid in ("s1", "s2", "s3"):
            sessions.start(conn, sid, "p", "claude-code")
        sessions.end(conn, "s1", None)
        _put(store, conn, "s2 old work", session_id="s2", created_at=_day(1), tags=["x"])
        _put(store, conn, "s3 new work", session_id="s3", created_at="2099-01-01T00:00:00Z")
        _put(store, conn, "s2 summary", session_id="s2", source="consolidation")
        insight = _put(store, conn, "an insight", source="consolidation")
        stand_in = _put(store, conn, "stands for it", source="consolidation")
        c = consolidation
        c.save_cluster(conn, "p", "reflection:decision", "s2", insight, "h")
        c.save_cluster(conn, "p", "reflection:open", "s1", stand_in, "h")
        c.save_cluster(conn, "p", "file", "s0", insight, "h")
        c.set_demotions(conn, stand_in, [insight])
    ids = [row[0] for row in r.sessions_to_reflect(store.conn, "p", "2050-01-01T00:00:00Z")]
    assert sorted(ids) == ["s1", "s2"]
    evidence = r.session_evidence(store.conn, "p", "s2", "consolidation")
    assert [e[1] for e in evidence] == ["s2 old work"] and json.loads(evidence[0][4]) == ["x"]
    records = [tuple(x) for x in r.reflection_records(store.conn, "p")]
    assert records == [  # by key
        ("reflection:open", "s1", stand_in, "h", None),
        ("reflection:decision", "s2", insight, "h", stand_in),
    ]
    with store.write() as conn:
        r.drop_record(conn, "p", "reflection:open", "s1")
        c.log_start(conn, "reflect", "p", "2000-01-01T00:00:00Z", {})
    assert [x[1] for x in r.reflection_records(store.conn, "p")] == ["s2"]
    assert r.sessions_ended_since(store.conn, "reflect") == 1  # none finished: every ended one
    with store.write() as conn:
        run = c.log_start(conn, "reflect", "p", "2999-01-01T00:00:00Z", {})
        c.log_finish(conn, run, "2999-01-01T00:00:01Z", {})
    assert r.sessions_ended_since(store.conn, "reflect") == 0


def test_compression(store: Any) -> None:
    comp = compression
    with store.write() as conn:
        a = _put(
            store, conn, "long output a", source="hook", tags=["bash", "x"], created_at=_day(2)
        )
        b = _put(store, conn, "long output b", source="hook", tags=["read"], created_at=_day(1))
        _put(store, conn, "other", source="hook", tags=["edit"])
        consolidation.save_cluster(conn, "p", "compress", a, a, "hash-a")
        comp.record_usage(conn, "2026-01-01", "ollama", "m", 10, 5)
        comp.record_usage(conn, "2026-01-01", "ollama", "m", 1, 0, failed=True)
        comp.record_usage(conn, "2026-01-01", "openai", "n", 3, 2)
        comp.record_usage(conn, "2026-01-02", "openai", "n", 100, 100)
    got = comp.compress_candidates(store.conn, "p", "hook", ["bash", "read"])
    assert [g[0] for g in got] == [b, a] and json.loads(got[1][2]) == ["bash", "x"]
    assert comp.compress_candidates(store.conn, "p", "hook", []) == []
    assert comp.compress_records(store.conn, "p", "compress") == {a: "hash-a"}
    assert comp.usage_on(store.conn, "2026-01-01") == (3, 1, 14, 7)
    assert comp.usage_on(store.conn, "2026-01-03") == (0, 0, 0, 0)
