"""The dashboard's engine reads (``memlode.engine.dashboard``) on a real store."""

from __future__ import annotations

import pytest

from memlode.engine import Engine, dashboard
from memlode.errors import InvalidInput, NotFound


def _store(engine: Engine) -> list[str]:
    ids = [
        engine.store("Use WAL with busy_timeout", "decision", 0.9, tags="sqlite").id,
        engine.store("Small pull requests", "preference", 0.2, tags="review").id,
        engine.store("Stale cookie broke login", "insight", 0.6, tags="auth").id,
        engine.store("A lonely note", "context", 0.5).id,
    ]
    engine.associate(ids[0], ids[1], "LEADS_TO")
    engine.associate(ids[2], ids[0], "EVOLVED_INTO")
    return ids


def test_browse_sorts_filters_and_counts(engine: Engine) -> None:
    ids = _store(engine)
    page = dashboard.browse(engine, sort="importance", limit=2)
    assert page["total"] == 4
    assert [m["id"] for m in page["items"]] == [ids[0], ids[2]]
    assert dashboard.browse(engine, memory_types="preference")["total"] == 1
    assert dashboard.browse(engine, sort="oldest")["items"][0]["id"] == ids[0]
    with pytest.raises(InvalidInput):
        dashboard.browse(engine, sort="id; DROP TABLE memories")


def test_memory_detail_has_links_and_history(engine: Engine) -> None:
    ids = _store(engine)
    detail = dashboard.memory_detail(engine, ids[0])
    assert {n["node_id"] for n in detail["neighbors"]} == {ids[1], ids[2]}
    assert any(h.get("memory_id") == ids[2] for h in detail["history"])
    assert detail["memory"]["access_count"] == 0  # a look is not a read
    with pytest.raises(NotFound):
        dashboard.memory_detail(engine, "missing")


def test_graph_view_draws_the_nodes_and_their_edges(engine: Engine) -> None:
    ids = _store(engine)
    view = dashboard.graph_view(engine)
    nodes = {n["id"]: n for n in view["nodes"]}
    assert set(ids[:3]) <= set(nodes)
    pairs = {(view["nodes"][s]["id"], view["nodes"][t]["id"]) for s, t, _ in view["edges"]}
    assert pairs == {(ids[0], ids[1]), (ids[2], ids[0])}
    assert all(0 <= n["x"] <= 1 and 0 <= n["y"] <= 1 for n in view["nodes"])
    assert max(n["pagerank"] for n in view["nodes"]) == 1.0
    one = dashboard.graph_view(engine, limit=1)
    assert len(one["nodes"]) == 1 and one["edges"] == []


def test_projection_places_every_embedded_memory(engine: Engine) -> None:
    ids = _store(engine)
    assert dashboard.projection(engine)["id"] == []  # nothing embedded yet
    engine.embed_pending()
    result = dashboard.projection(engine)
    assert set(result["id"]) == set(ids)
    assert all(-1 <= v <= 1 for v in result["x"] + result["y"])
    assert max(abs(v) for v in result["x"]) == 1.0  # scaled to the square
    assert 0 < sum(result["explained"]) <= 1
    first = result["id"].index(ids[0])
    assert result["types"][result["type"][first]] == "decision"
    assert result["sources"][result["source"][first]] == "memory"


def test_session_timeline_lists_prompts_and_counts(engine: Engine) -> None:
    session = engine.start_session("s1", source="claude-code")
    engine.store(
        "fix the login bug",
        tags="prompt",
        source="hook",
        session_id=session.id,
        metadata={"recall": "resident", "injected": 3},
    )
    engine.store("Read auth.py", tags="read", source="hook", session_id=session.id)
    engine.end_session(session.id, "Fixed the login bug.")
    [item] = dashboard.session_timeline(engine)
    assert item["summary"] == "Fixed the login bug."
    assert [p["text"] for p in item["prompts"]] == ["fix the login bug"]
    assert item["prompts"][0]["recall"] == "resident" and item["prompts"][0]["injected"] == 3
    assert item["memories"] == {"hook": 2}
    assert item["start_context"] is None  # a session started without the SessionStart hook


def test_change_mark_moves_with_new_memories(engine: Engine) -> None:
    before = dashboard.change_mark(engine, None)
    engine.store("one more")
    after = dashboard.change_mark(engine, None)
    assert after["count"] == before["count"] + 1 and after["latest"] is not None


def test_code_overview_without_an_index_says_so(engine: Engine) -> None:
    result = dashboard.code_overview(engine)
    assert result["indexed"] is False and "memlode index" in result["message"]


def test_health_report_names_the_search_mode(engine: Engine) -> None:
    _store(engine)
    assert dashboard.health_report(engine)["search_mode"] == "text-only"  # no vectors yet
    engine.embed_pending()
    report = dashboard.health_report(engine)
    assert report["search_mode"] == "semantic"
    assert report["pending_embeddings"] == 0 and report["stats"]["memories"] == 4


def test_hook_timings_summarise_the_timing_log(engine: Engine) -> None:
    assert dashboard.hook_timings(engine.settings.home) == []  # no hook has run
    lines = [f"2026-11-28T08:00:00Z post-tool {ms}.0" for ms in range(1, 21)]
    lines += [
        "2026-11-28T08:00:01Z session-start 40.5",
        "torn line",
        "x prompt nan",
        "y stop -1",
        "",
    ]
    (engine.settings.home / "hook-timings.log").write_text("\n".join(lines) + "\n")
    rows = {r["event"]: r for r in dashboard.hook_timings(engine.settings.home)}
    assert set(rows) == {"post-tool", "session-start"}
    post = rows["post-tool"]
    assert (post["runs"], post["p50_ms"], post["p95_ms"], post["max_ms"]) == (20, 11.0, 20.0, 20.0)
    assert rows["session-start"]["runs"] == 1
    assert dashboard.hook_timings(engine.settings.home)[0]["event"] == "session-start"
