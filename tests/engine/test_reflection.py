"""The reflect cycle through the CLI on a store the real hooks wrote: two sessions, the first
leaving a test run failing (open) beside an approved plan (a decision), the second making it
pass after an edit (solved, superseding the first's open item: edges and demotion); the
SessionStart briefing shows the open item until then; ``--dry-run`` and re-runs write nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.conftest import killed_runs
from tests.conftest import run_hook_ok as _hook
from tests.conftest import run_memlode as _memlode
from tests.engine.hooked_store import finished_copy

from memlode.config import Settings
from memlode.storage.values import NewMemory

TEST = "pytest tests/test_billing.py -q"


def _base(project: Path, session: str, event: str) -> dict[str, Any]:
    return {"session_id": session, "cwd": str(project), "hook_event_name": event}


def _failing_test(project: Path, session: str, n: int, failed: int = 1) -> None:
    failure = {
        **_base(project, session, "PostToolUseFailure"),
        "tool_name": "Bash",
        "tool_use_id": f"toolu_fail_{session}_{n}",
        "tool_input": {"command": f"{TEST} 2>&1", "description": "Run the tests"},
        "error": "Exit code 1\n...F\nE   AssertionError: charge() rounded 10.005 to 10.0\n"
        f"{failed} failed, {4 - failed} passed in 0.4s",
        "is_interrupt": False,
    }
    _hook("post-tool-failure", failure, project)


def _first_session(project: Path) -> None:
    """Approves a plan, runs the tests (they fail), ends."""
    _hook("session-start", {**_base(project, "s1", "SessionStart"), "source": "startup"}, project)
    plan = {
        **_base(project, "s1", "PostToolUse"),
        "tool_name": "ExitPlanMode",
        "tool_use_id": "toolu_plan",
        "tool_input": {"plan": "# Plan: Round charges half-up\n\nUse Decimal with ROUND_HALF_UP."},
        "tool_response": {},
    }
    _hook("post-tool", plan, project)
    _failing_test(project, "s1", 1)
    _hook("session-end", {**_base(project, "s1", "SessionEnd"), "reason": "exit"}, project)


def _second_session(project: Path, failed: int) -> None:
    """Runs the tests (they fail: ``failed`` tests), edits billing.py, runs them again (they
    pass), ends."""
    _hook("session-start", {**_base(project, "s2", "SessionStart"), "source": "startup"}, project)
    _failing_test(project, "s2", 1, failed)
    path = str(project / "src" / "billing.py")
    edit = {
        **_base(project, "s2", "PostToolUse"),
        "tool_name": "Edit",
        "tool_use_id": "toolu_edit",
        "tool_input": {"file_path": path, "old_string": "round(x, 2)", "new_string": "half_up(x)"},
        "tool_response": {
            "filePath": path,
            "oldString": "round(x, 2)",
            "newString": "half_up(x)",
            "structuredPatch": [
                {
                    "oldStart": 3,
                    "oldLines": 1,
                    "newStart": 3,
                    "newLines": 1,
                    "lines": ["-    return round(x, 2)", "+    return half_up(x)"],
                }
            ],
        },
    }
    _hook("post-tool", edit, project)
    passing = {
        **_base(project, "s2", "PostToolUse"),
        "tool_name": "Bash",
        "tool_use_id": "toolu_pass",
        "tool_input": {"command": f"{TEST} 2>&1"},
        "tool_response": {"stdout": "....\n4 passed in 0.3s", "stderr": ""},
    }
    _hook("post-tool", passing, project)
    _hook("session-end", {**_base(project, "s2", "SessionEnd"), "reason": "exit"}, project)


def _state(db: Path) -> tuple[Any, ...]:
    with sqlite3.connect(db) as conn:
        return tuple(
            conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("memories", "graph_edges", "memory_demotions", "consolidation_clusters")
        )


def _reflect(workdir: Path, *extra: str) -> list[dict[str, Any]]:
    done = _memlode("consolidate", "--cycle", "reflect", "--json", *extra, cwd=workdir)
    assert done.returncode == 0, done.stderr
    runs: list[dict[str, Any]] = json.loads(done.stdout)
    return runs


def _briefing(workdir: Path, session: str) -> str:
    out = _hook(
        "session-start", {**_base(workdir, session, "SessionStart"), "source": "startup"}, workdir
    )
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""


def test_reflection_distils_sessions_and_supersedes_what_was_open(workdir: Path) -> None:
    (workdir / "src").mkdir()
    db = Settings.load({}).database
    _first_session(workdir)

    [first] = _reflect(workdir)
    assert first["counts"]["new"] == 2
    kinds = {c["kind"]: c for c in first["changes"]}
    assert set(kinds) == {"decision", "open"}
    assert kinds["decision"]["summary"].startswith("Decided in session s1 (")
    assert "Round charges half-up" in kinds["decision"]["summary"]
    assert f"`{TEST} 2>&1` failed and did not pass again" in kinds["open"]["summary"]
    assert "AssertionError: charge() rounded 10.005 to 10.0" in kinds["open"]["summary"]
    # the next session's briefing says what the last one left open
    briefing = _briefing(workdir, "s-next")
    assert "### Still open" in briefing and "AssertionError: charge()" in briefing

    _second_session(workdir, failed=2)
    before = _state(db)
    [dry] = _reflect(workdir, "--dry-run")
    assert _state(db) == before  # a dry run writes nothing
    assert dry["counts"] == {
        "items": 3,
        "sessions": 2,
        "new": 1,
        "changed": 0,
        "unchanged": 2,
        "superseding": 1,
    }
    [solved] = dry["changes"]
    assert solved["kind"] == "solved" and solved["supersedes"] == f"s1|command:{TEST[:6]}"
    assert solved["summary"].startswith("Solved in session s2 (")
    assert "failed (E AssertionError: charge() rounded" in solved["summary"]
    assert "passed after edits to src/billing.py" in solved["summary"]

    [done] = _reflect(workdir)
    assert done["counts"]["new"] == 1
    with sqlite3.connect(db) as conn:
        insights = {
            json.loads(meta)["reflection"] + ":" + (session or ""): (memory_id, json.loads(tags))
            for memory_id, meta, tags, session in conn.execute(
                "SELECT id, metadata, tags, session_id FROM memories"
                " WHERE source = 'consolidation' AND memory_type = 'insight'"
            )
        }
        edges = conn.execute(
            "SELECT source_id, target_id, relationship FROM graph_edges"
            " WHERE relationship IN ('SUPERSEDES', 'EVOLVED_INTO', 'DERIVED_FROM')"
        ).fetchall()
        demotions = conn.execute("SELECT memory_id, summary_id FROM memory_demotions").fetchall()
        evidence = conn.execute(
            "SELECT m.content FROM graph_edges AS e JOIN memories AS m ON m.id = e.target_id"
            " WHERE e.source_id = ? AND e.relationship = 'DERIVED_FROM'",
            (insights["solved:s2"][0],),
        ).fetchall()
    assert set(insights) == {"decision:s1", "open:s1", "solved:s2"}
    assert insights["solved:s2"][1] == ["reflection", "reflection:solved"]
    new, old = insights["solved:s2"][0], insights["open:s1"][0]
    assert (new, old, "SUPERSEDES") in edges and (old, new, "EVOLVED_INTO") in edges
    assert demotions == [(old, new)]  # recall ranks the open item lower
    texts = sorted(str(e[0]).split("\n", 1)[0] for e in evidence)
    assert texts[0].startswith(f"$ {TEST}") and texts[1].startswith("Edited src/billing.py")
    assert texts[2].startswith(f"Failed: $ {TEST}")
    assert "### Still open" not in _briefing(workdir, "s-later")

    after = _state(db)
    [again] = _reflect(workdir)
    assert again["changes"] == [] and again["counts"]["unchanged"] == 3
    assert _state(db) == after
    found = _memlode("search", "billing tests failed", "--explain", "--json", cwd=workdir)
    hits = {h["id"]: h for h in json.loads(found.stdout)}
    assert old in hits and hits[old]["signals"].get("summarized", 0) < 0


def test_a_failure_seen_before_then_passing_solves_the_earlier_open_item(workdir: Path) -> None:
    """The same failure text in the second session is the first's row again (the hooks keep
    one row per text): the second session only shows the run that passed, and that is enough
    to solve what the first left open."""
    (workdir / "src").mkdir()
    _first_session(workdir)
    _second_session(workdir, failed=1)  # its failure is the first session's row
    [run] = _reflect(workdir)
    kinds = sorted((c["kind"], c["session"]) for c in run["changes"])
    assert kinds == [("decision", "s1"), ("open", "s1"), ("solved", "s2")]
    solved = next(c for c in run["changes"] if c["kind"] == "solved")
    assert solved["supersedes"] == "s1|command:pytest"
    assert (
        "left failing by an earlier session, passed after edits to src/billing.py"
        in (solved["summary"])
    )
    with sqlite3.connect(Settings.load({}).database) as conn:
        [(demoted,)] = conn.execute("SELECT memory_id FROM memory_demotions").fetchall()
        [(tags,)] = conn.execute("SELECT tags FROM memories WHERE id = ?", (demoted,)).fetchall()
    assert "reflection:open" in json.loads(tags)
    assert _reflect(workdir)[0]["changes"] == []


def _fill_sessions(n: int) -> None:
    """``n`` ended sessions in the hooks' shapes, each a test run failing, an edit, the run
    passing: one solved item per session, all on one thread."""
    from memlode.engine import Engine
    from memlode.storage import memories, sessions

    engine = Engine(Settings.load({}))
    try:
        with engine.db.write() as conn:
            for i in range(n):
                sid = f"sess-{i:04d}"
                sessions.start(conn, sid, engine.namespace, "claude-code")
                for content, tags, meta in (
                    (
                        f"Failed: $ pytest -x\nExit code 1\nE   assert {i} == {i + 1}",
                        ["failure", "command", "tool:Bash"],
                        {"command": "pytest -x"},
                    ),
                    (
                        f"Edited src/mod_{i % 9}.py: +1 -1 lines ({i})",
                        ["edit", f"file:src/mod_{i % 9}.py"],
                        {"file": f"/p/src/mod_{i % 9}.py"},
                    ),
                    (
                        f"$ pytest -x\n[stdout]\n{i} passed",
                        ["command", "tool:Bash"],
                        {"command": "pytest -x"},
                    ),
                ):
                    new = NewMemory(content, tags=tags, metadata=meta)
                    new.namespace, new.source, new.session_id = engine.namespace, "hook", sid
                    memories.insert(conn, new)
                sessions.end(conn, sid, None)
    finally:
        engine.close()


def _reflected(db: Path) -> tuple[Any, ...]:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return (
            *(
                conn.execute(sql).fetchone()[0]
                for sql in (
                    "SELECT count(*) FROM memories WHERE source = 'consolidation'",
                    "SELECT count(*) FROM memory_demotions",
                    "SELECT count(*) FROM consolidation_clusters",
                    "SELECT count(*) FROM graph_edges WHERE relationship = 'SUPERSEDES'",
                    "SELECT count(*) FROM graph_edges WHERE relationship = 'DERIVED_FROM'",
                )
            ),
            sorted(conn.execute("SELECT content FROM memories WHERE source = 'consolidation'")),
        )


def test_a_killed_reflection_leaves_a_consistent_store_that_the_next_run_completes(
    workdir: Path, tmp_path: Path
) -> None:
    _fill_sessions(600)
    db = Settings.load({}).database
    args = ["consolidate", "--cycle", "reflect"]
    reference = _reflected(finished_copy(db, tmp_path / "clean.db", args, cwd=workdir))
    assert reference[:5] == (600, 599, 600, 599, 1800)  # a chain of 600 on one thread
    for _delay in killed_runs(args, cwd=workdir, delays=(0.3, 0.6, 0.9)):
        _reflected(db)  # consistent, whatever moment the kill came at
    finished = _reflect(workdir)
    assert _reflected(db) == reference
    assert _reflect(workdir)[0]["changes"] == [] and finished[0]["counts"]["items"] == 600


def test_a_reflection_changes_no_evidence_vector(tmp_path: Path) -> None:
    """Evidence is embedded from its text and its links; a reflection's DERIVED_FROM edge to
    it is what consolidation derived and must not change its vector."""
    from memlode.engine import Engine
    from memlode.storage import graph, memories
    from memlode.types import Edge, MemoryType, Relationship

    vectors = []
    for reflected in (False, True):
        home = tmp_path / f"home-{reflected}"
        engine = Engine(Settings.load({"home": home, "db_path": home / "memlode.db"}))
        try:
            evidence = engine.store("Failed: $ mix test\nExit code 2\n1 failure", "context").id
            if reflected:
                with engine.db.write() as conn:
                    insight, _ = memories.insert(
                        conn,
                        NewMemory(
                            "Solved in session s1: `mix test` failed and passed",
                            MemoryType.INSIGHT,
                            namespace=engine.namespace,
                            source="consolidation",
                        ),
                    )
                    graph.ensure_memory_node(conn, insight, "Solved in s1", engine.namespace)
                    graph.ensure_memory_node(conn, evidence, "evidence", engine.namespace)
                    graph.add_edge(conn, Edge(insight, evidence, Relationship.DERIVED_FROM))
            engine.embed_pending()
            with sqlite3.connect(home / "memlode.db") as conn:
                vectors.append(
                    conn.execute(
                        "SELECT vector FROM memory_embeddings WHERE memory_id = ?", (evidence,)
                    ).fetchone()[0]
                )
        finally:
            engine.close()
    assert vectors[0] == vectors[1]
