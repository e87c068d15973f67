"""Consolidation through the CLI on a store the real hooks wrote: the cluster cycle's summary
with its SUMMARIZES edges and demoted members, the decay cycle's arithmetic and exemptions,
``--dry-run`` writing nothing, re-runs changing nothing, and the log."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

from tests.conftest import killed_runs
from tests.conftest import run_memlode as _memlode
from tests.engine.hooked_store import finished_copy
from tests.engine.hooked_store import observe as _observe

from memlode.config import Settings
from memlode.engine import Engine
from memlode.storage import memories
from memlode.storage.values import NewMemory
from memlode.types import MemoryType, format_ts, utcnow


def _counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        tables = ("memories", "graph_edges", "memory_demotions", "consolidation_log")
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}


def test_cluster_summarises_repeats_and_reruns_change_nothing(workdir: Path) -> None:
    (workdir / "src").mkdir()
    _observe(workdir, "s1")
    db = Settings.load({}).database
    before = _counts(db)

    dry = _memlode("consolidate", "--cycle", "cluster", "--dry-run", "--json", cwd=workdir)
    assert dry.returncode == 0, dry.stderr
    [run] = json.loads(dry.stdout)
    assert run["counts"]["new"] == 2 and run["counts"]["members"] == 6
    kinds = {c["kind"]: c for c in run["changes"]}
    assert kinds["read"]["summary"].startswith("Read src/billing.py 3 times in 1 session(s)")
    assert "lines 40-69" in kinds["read"]["summary"]
    assert kinds["command"]["summary"].startswith("Ran `pytest tests/test_billing.py -q` 3 times")
    assert "6 passed in 80.2s" in kinds["command"]["summary"]  # the last run's output
    assert _counts(db) == before  # a dry run writes nothing, not even its log

    done = _memlode("consolidate", "--cycle", "cluster", "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    after = _counts(db)
    assert after["memories"] == before["memories"] + 2
    assert after["memory_demotions"] == 6
    assert after["graph_edges"] - before["graph_edges"] >= 6
    with sqlite3.connect(db) as conn:
        summarizes = conn.execute(
            "SELECT count(*) FROM graph_edges WHERE relationship = 'SUMMARIZES'"
        ).fetchone()[0]
        sources = conn.execute(
            "SELECT source, tags FROM memories WHERE id IN (SELECT summary_id FROM"
            " consolidation_clusters)"
        ).fetchall()
    assert summarizes == 6
    assert {s for s, _ in sources} == {"consolidation"}
    assert all("summary" in json.loads(tags) for _, tags in sources)

    # members rank lower: the engine says so in each member's signals
    found = _memlode("search", "billing.py read lines", "--explain", "--json", cwd=workdir)
    hits = json.loads(found.stdout)
    members = [h for h in hits if h["source"] == "hook"]
    assert members and all(h["signals"].get("summarized", 0) < 0 for h in members)
    assert all("summarized" not in h["signals"] for h in hits if h["source"] != "hook")

    again = _memlode("consolidate", "--cycle", "cluster", "--json", cwd=workdir)
    assert json.loads(again.stdout)[0]["counts"]["unchanged"] == 2
    assert _counts(db)["memories"] == after["memories"]

    # one more read of the file: its group grows, its summary is rewritten, not duplicated
    _observe(workdir, "s2", starts=(100,))
    grown = json.loads(_memlode("consolidate", "--cycle", "cluster", "--json", cwd=workdir).stdout)
    assert grown[0]["counts"]["changed"] >= 1 and grown[0]["counts"]["new"] == 0
    status = _memlode("consolidate", "status", "--json", cwd=workdir)
    rows = json.loads(status.stdout)
    assert [r["state"] for r in rows] == ["finished"] * 3
    assert rows[0]["details"]["counts"]["changed"] >= 1


def test_decay_halves_unused_importance_and_exempts_user_decisions(workdir: Path) -> None:
    engine = Engine(Settings.load({}))
    try:
        old = format_ts(utcnow() - timedelta(days=60))
        with engine.db.write() as conn:
            unused, _ = memories.insert(
                conn,
                NewMemory(
                    "Read config.toml lines 1-40",
                    importance=0.4,
                    namespace=engine.namespace,
                    source="hook",
                    created_at=old,
                ),
            )
            decision, _ = memories.insert(
                conn,
                NewMemory(
                    "We keep SQLite as the default store",
                    MemoryType.DECISION,
                    importance=0.8,
                    namespace=engine.namespace,
                    created_at=old,
                ),
            )
    finally:
        engine.close()

    def importance(memory_id: str) -> float:
        shown = _memlode("get", memory_id, "--json", cwd=workdir)
        return float(json.loads(shown.stdout)["importance"])

    dry = _memlode("consolidate", "--cycle", "decay", "--dry-run", "--json", cwd=workdir)
    assert json.loads(dry.stdout)[0]["counts"]["lowered"] == 1
    assert _memlode("consolidate", "--cycle", "decay", cwd=workdir).returncode == 0
    with sqlite3.connect(Settings.load({}).database) as conn:
        values = dict(conn.execute("SELECT id, importance FROM memories").fetchall())
    assert abs(values[unused] - 0.1) < 0.002  # 0.4 halved twice in 60 days
    assert values[decision] == 0.8  # a decision the user stored does not decay
    again = _memlode("consolidate", "--cycle", "decay", "--json", cwd=workdir)
    assert json.loads(again.stdout)[0]["counts"]["lowered"] == 0  # idempotent
    # opening it counts as use: the next run gives its importance back
    assert importance(unused) < 0.11  # `get` reads (and counts the access)
    raised = json.loads(_memlode("consolidate", "--cycle", "decay", "--json", cwd=workdir).stdout)
    assert raised[0]["counts"]["raised"] == 1
    with sqlite3.connect(Settings.load({}).database) as conn:
        value = conn.execute("SELECT importance FROM memories WHERE id = ?", (unused,)).fetchone()
    assert value[0] == 0.4


def test_bad_cycle_and_half_life_are_clear_errors(workdir: Path) -> None:
    bad = _memlode("consolidate", "--cycle", "shred", cwd=workdir)
    assert bad.returncode == 2 and "shred" in bad.stderr
    zero = _memlode("consolidate", "--half-life", "0", cwd=workdir)
    assert zero.returncode == 1
    assert zero.stderr.strip().splitlines() == [
        "memlode: error: the half-life must be a positive number of days"
    ]


def _fill(engine: Engine, n: int) -> None:
    """``n`` observations in the hooks' shapes: reads of 60 files, three commands re-run."""
    with engine.db.write() as conn:
        for i in range(n):
            path = f"/src/app/module_{i % 60}.py"
            if i % 2:
                new = NewMemory(
                    f"Read app/module_{i % 60}.py lines {i}-{i + 40}",
                    tags=["read", "tool:Read"],
                    metadata={"file": path},
                )
            else:
                command = f"pytest tests/test_{i % 3}.py"
                new = NewMemory(
                    f"$ {command}\n[stdout]\nrun {i}: {i % 50} passed",
                    tags=["command", "tool:Bash"],
                    metadata={"command": command},
                )
            new.namespace, new.source, new.session_id = engine.namespace, "hook", f"s{i % 7}"
            memories.insert(conn, new)


def _state(db: Path) -> tuple[Any, ...]:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return (
            conn.execute("SELECT count(*) FROM memories WHERE source = 'consolidation'").fetchone(),
            conn.execute("SELECT count(*) FROM memory_demotions").fetchone(),
            conn.execute("SELECT count(*) FROM consolidation_clusters").fetchone(),
            conn.execute(
                "SELECT count(*) FROM graph_edges WHERE relationship = 'SUMMARIZES'"
            ).fetchone(),
            sorted(conn.execute("SELECT content FROM memories WHERE source = 'consolidation'")),
        )


def test_a_killed_run_leaves_a_consistent_store_that_the_next_run_completes(
    workdir: Path, tmp_path: Path
) -> None:
    engine = Engine(Settings.load({}))
    try:
        _fill(engine, 3000)
    finally:
        engine.close()
    db = Settings.load({}).database
    args = ["consolidate", "--cycle", "cluster"]
    # the reference: the same store consolidated without interruption
    reference = _state(finished_copy(db, tmp_path / "clean.db", args, cwd=workdir))
    for _delay in killed_runs(args, cwd=workdir, delays=(0.3, 0.6, 0.9)):
        _state(db)  # consistent, whatever moment the kill came at
    finished = _memlode("consolidate", "--cycle", "cluster", "--json", cwd=workdir)
    assert finished.returncode == 0, finished.stderr
    assert _state(db) == reference
    again = json.loads(_memlode("consolidate", "--cycle", "cluster", "--json", cwd=workdir).stdout)
    assert again[0]["changes"] == []


def test_an_automatic_run_is_due_once_per_interval(workdir: Path) -> None:
    from memlode.engine.consolidation import consolidate, due

    engine = Engine(Settings.load({}))
    try:
        assert due(engine, 24.0)  # never ran
        assert not due(engine, 0.0)  # 0: only by hand
        consolidate(engine, namespace="*")
        assert due(engine, 24.0)  # an empty store had nothing to run on
        engine.store("The deploy script lives in ops/deploy.sh", "context")
        consolidate(engine, namespace="*")
        assert not due(engine, 24.0)
        assert due(engine, 24.0, now=utcnow() + timedelta(hours=25))
        dry = consolidate(engine, namespace="*", dry_run=True)
        assert dry and not due(engine, 24.0)  # a dry run is no run
    finally:
        engine.close()


def test_consolidating_changes_no_members_vector(tmp_path: Path) -> None:
    """A member's vector is embedded from its text and its links; a summary's SUMMARIZES edge
    is bookkeeping and must not change it (on the session replay it moved a member from 7th
    to 15th)."""
    from memlode.storage import graph
    from memlode.types import Edge, Relationship

    vectors = []
    for summarised in (False, True):
        home = tmp_path / f"home-{summarised}"
        engine = Engine(Settings.load({"home": home, "db_path": home / "memlode.db"}))
        try:
            member = engine.store("Edited config/config.exs: trace_types [:custom]", "context").id
            if summarised:
                summary = engine.store("Edited config/config.exs 3 times", "context").id
                with engine.db.write() as conn:
                    graph.ensure_memory_node(conn, summary, "summary", engine.namespace)
                    graph.ensure_memory_node(conn, member, "member", engine.namespace)
                    graph.add_edge(conn, Edge(summary, member, Relationship.SUMMARIZES))
            engine.embed_pending()
            with sqlite3.connect(home / "memlode.db") as conn:
                vectors.append(
                    conn.execute(
                        "SELECT vector FROM memory_embeddings WHERE memory_id = ?", (member,)
                    ).fetchone()[0]
                )
        finally:
            engine.close()
    assert vectors[0] == vectors[1]
