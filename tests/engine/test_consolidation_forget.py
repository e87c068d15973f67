"""The creative and forget cycles through the CLI on real stores: links drawn between related
memories of different kinds (and nothing on a re-run or a dry run); old, unused, superseded
rows archived whole and restored whole, never a user's memory or a decision."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import killed_runs
from tests.conftest import run_memlode as _memlode
from tests.engine.hooked_store import finished_copy

from memlode.config import Settings
from memlode.engine import Engine
from memlode.storage import memories
from memlode.storage.values import NewMemory
from memlode.types import MemoryType, format_ts, utcnow

pytestmark = pytest.mark.heavy  # tests/conftest.py: run first


def _json(*args: str, cwd: Path) -> Any:
    done = _memlode(*args, "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _insert(engine: Engine, text: str, **fields: Any) -> str:
    with engine.db.write() as conn:
        new = NewMemory(text, namespace=engine.namespace)
        for name, value in fields.items():
            setattr(new, name, value)
        memory_id, _created = memories.insert(conn, new)
    return memory_id


def _edges(db: Path, relationship: str) -> set[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT source_id, target_id FROM graph_edges WHERE relationship = ?", (relationship,)
        )
        return {(str(a), str(b)) for a, b in rows}


LOCKS = "the job queue takes Postgres advisory locks so two workers never run the same job"


def test_creative_links_related_memories_of_different_kinds(workdir: Path) -> None:
    engine = Engine(Settings.load({}))
    try:
        decision = _insert(
            engine, f"Decision: {LOCKS}", memory_type=MemoryType.DECISION, importance=0.8
        )
        edit = _insert(
            engine, f"Edited queue.py: {LOCKS}", source="hook", session_id="s2", tags=["edit"]
        )
        turn = _insert(engine, f"We agreed that {LOCKS}", source="transcript", session_id="s3")
        twin = _insert(engine, f"Edited queue.py again: {LOCKS}", source="hook", session_id="s4")
        other = _insert(engine, "Read README.md lines 1-40", source="hook", session_id="s2")
        engine.embed_pending()
    finally:
        engine.close()
    db = Settings.load({}).database

    [dry] = _json("consolidate", "--cycle", "creative", "--dry-run", cwd=workdir)
    assert dry["counts"]["vectors_new"] == 5
    assert _edges(db, "SIMILAR_TO") == set()  # a dry run writes nothing

    [run] = _json("consolidate", "--cycle", "creative", cwd=workdir)
    linked = {frozenset(pair) for pair in _edges(db, "SIMILAR_TO")}
    assert run["counts"]["similar_new"] == len(linked)
    assert {frozenset((decision, edit)), frozenset((decision, turn))} <= linked
    assert frozenset((edit, twin)) not in linked  # same type and source: the cluster cycle's
    assert not any(other in pair for pair in linked)
    # one theme: its members each linked to the hub
    themes = _edges(db, "SHARES_THEME")
    assert len(themes) >= 2 and len({hub for _member, hub in themes}) == 1

    [again] = _json("consolidate", "--cycle", "creative", cwd=workdir)
    assert again["counts"]["vectors_new"] == 0 and again["changes"] == []
    assert {frozenset(p) for p in _edges(db, "SIMILAR_TO")} == linked

    # a new related row is linked incrementally; the old rows are not scored again
    engine = Engine(Settings.load({}))
    try:
        late = _insert(engine, f"Runbook: {LOCKS}", source="doc", session_id="s5")
        engine.embed_pending()
    finally:
        engine.close()
    [more] = _json("consolidate", "--cycle", "creative", cwd=workdir)
    assert more["counts"]["vectors_new"] == 1
    assert any(late in pair for pair in _edges(db, "SIMILAR_TO"))


def _forget_store(engine: Engine) -> dict[str, str]:
    old = format_ts(utcnow() - timedelta(days=120))
    ids = {
        "stale": _insert(engine, "Grep 'TODO' -> 0 files", source="hook", importance=0.05),
        "opened": _insert(engine, "Glob '*.md' -> 2 files", source="hook", importance=0.05),
        "mine": _insert(engine, "Tabs in Makefiles", importance=0.05),
        "decision": _insert(
            engine, "Use uv", source="hook", importance=0.05, memory_type=MemoryType.DECISION
        ),
        "young": _insert(engine, "Grep 'FIXME' -> 0 files", source="hook", importance=0.05),
    }
    for n in range(3):  # a file read three times: the cluster cycle's summary stands for them
        ids[f"read{n}"] = _insert(
            engine,
            f"Read app/billing.py lines {n * 40 + 1}-{n * 40 + 40}",
            source="hook",
            importance=0.4,
            tags=["read"],
            metadata={"file": "/proj/app/billing.py"},
            session_id=f"s{n}",
        )
    engine.embed_pending()
    with engine.db.write() as conn:
        conn.execute(
            "UPDATE memories SET created_at = ? WHERE id != ?", (old, ids["young"])
        )  # fmt: skip
        conn.execute(
            "UPDATE memories SET access_count = 1, last_accessed_at = ? WHERE id = ?",
            (old, ids["opened"]),
        )
    return ids


def _store_state(db: Path) -> tuple[Any, ...]:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return (
            sorted(conn.execute("SELECT id, content, importance, created_at FROM memories")),
            sorted(conn.execute("SELECT memory_id, model, vector FROM memory_embeddings")),
            sorted(conn.execute("SELECT source_id, target_id, relationship FROM graph_edges")),
            sorted(conn.execute("SELECT memory_id, summary_id FROM memory_demotions")),
            sorted(conn.execute("SELECT summary_id, members FROM consolidation_clusters")),
        )


def test_forget_archives_old_unused_rows_and_restore_puts_them_back(workdir: Path) -> None:
    engine = Engine(Settings.load({}))
    try:
        ids = _forget_store(engine)
    finally:
        engine.close()
    db = Settings.load({}).database
    _json("consolidate", "--cycle", "cluster", cwd=workdir)
    assert _json("consolidate", cwd=workdir)[0]["cycle"] == "cluster"
    assert all(r["cycle"] != "forget" for r in _json("consolidate", cwd=workdir))  # opt-in
    before = _store_state(db)

    [dry] = _json("consolidate", "--cycle", "forget", "--dry-run", cwd=workdir)
    assert _store_state(db) == before
    reasons = {c["id"]: c["reason"] for c in dry["changes"]}
    assert reasons == {
        ids["stale"]: "low importance",
        **{ids[f"read{n}"]: "superseded" for n in range(3)},
    }

    [run] = _json("consolidate", "--cycle", "forget", cwd=workdir)
    assert run["counts"]["archived"] == 4 and run["counts"]["superseded"] == 3
    with sqlite3.connect(db) as conn:
        left = {r[0] for r in conn.execute("SELECT id FROM memories")}
    assert not left & set(reasons)
    assert {ids["opened"], ids["mine"], ids["decision"], ids["young"]} <= left
    listed = _json("consolidate", "archive", cwd=workdir)
    assert {r["id"] for r in listed} == set(reasons)
    # the summary stays as it was: the cluster cycle sees nothing to rewrite
    [cluster] = _json("consolidate", "--cycle", "cluster", cwd=workdir)
    assert cluster["changes"] == []
    [nothing] = _json("consolidate", "--cycle", "forget", cwd=workdir)
    assert nothing["counts"]["archived"] == 0

    runs = _json("consolidate", "status", cwd=workdir)
    [log_id] = [r["id"] for r in runs if r["details"]["counts"].get("archived") == 4]
    restored = _json("consolidate", "restore", "--run", str(log_id), cwd=workdir)
    assert set(restored.values()) == {"restored"} and set(restored) == set(reasons)
    assert _store_state(db) == before  # every row, vector, edge and record back
    assert _json("consolidate", "archive", cwd=workdir) == []
    missing = _memlode("consolidate", "restore", ids["stale"], cwd=workdir)
    assert missing.returncode == 3  # not found
    assert missing.stderr.strip() == f"memlode: error: not in the archive: {ids['stale']}"
    no_run = _memlode("consolidate", "restore", "--run", "999", cwd=workdir)
    assert no_run.returncode == 3 and "nothing in the archive from run 999" in no_run.stderr


def test_forget_purges_the_archive_after_its_retention(workdir: Path) -> None:
    from memlode.engine.consolidation import consolidate
    from memlode.engine.consolidation.forget import ARCHIVE_DAYS, archived

    engine = Engine(Settings.load({}))
    try:
        ids = _forget_store(engine)
        [run] = consolidate(engine, cycles=["forget"])
        assert run.counts["archived"] == 1 and archived(engine)[0]["id"] == ids["stale"]
        later = utcnow() + timedelta(days=ARCHIVE_DAYS + 1)
        [purge] = consolidate(engine, cycles=["forget"], now=later)
        assert purge.counts["purged"] == 1 and archived(engine) == []
    finally:
        engine.close()


def test_restore_needs_a_choice_and_forget_needs_a_sane_age(workdir: Path) -> None:
    bare = _memlode("consolidate", "restore", cwd=workdir)
    assert bare.returncode == 2 and "name memory ids, --run ID or --all" in bare.stderr
    young = _memlode("consolidate", "--cycle", "forget", "--forget-after", "0", cwd=workdir)
    assert young.returncode == 1
    assert young.stderr.strip() == "memlode: error: forget's age must be at least 1 day"


def _kill_store(engine: Engine, n: int) -> None:
    """``n`` old observations of low importance, and a session-summary line for every fifth
    telling the same work (for the creative cycle to link)."""
    old = format_ts(utcnow() - timedelta(days=200))
    with engine.db.write() as conn:
        for i in range(n):
            text = f"Grep 'handler_{i % 97}' in src/module_{i % 31}.py -> {i % 7} matching lines"
            importance = 0.05 if i % 2 else 0.5  # half of them forgettable
            new = NewMemory(text, namespace=engine.namespace, importance=importance)
            new.source, new.session_id, new.created_at = "hook", f"s{i % 9}", old
            memories.insert(conn, new)
            if i % 5 == 0:
                turn = NewMemory(
                    f"Session summary: {text}",
                    MemoryType.INSIGHT,
                    namespace=engine.namespace,
                )
                turn.source, turn.session_id, turn.created_at = "transcript", f"s{i % 9}", old
                memories.insert(conn, turn)
    engine.embed_pending()


def _kill_state(db: Path) -> tuple[Any, ...]:
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        live = {r[0] for r in conn.execute("SELECT id FROM memories")}
        kept = {r[0] for r in conn.execute("SELECT memory_id FROM memory_archive")}
        assert not live & kept  # a row is in the store or in the archive, never both
        edges = sorted(
            conn.execute(
                "SELECT source_id, target_id, relationship FROM graph_edges"
                " WHERE relationship IN ('SIMILAR_TO', 'SHARES_THEME')"
            )
        )
        return live | kept, len(kept), edges


def test_killed_creative_and_forget_runs_lose_nothing_and_the_next_run_completes(
    workdir: Path, tmp_path: Path
) -> None:
    engine = Engine(Settings.load({}))
    try:
        _kill_store(engine, 3000)
    finally:
        engine.close()
    db = Settings.load({}).database
    args = ["consolidate", "--cycle", "creative", "--cycle", "forget"]
    reference = _kill_state(finished_copy(db, tmp_path / "clean.db", args, cwd=workdir))
    everything = _kill_state(db)[0]
    assert reference[0] == everything and reference[1] == 1500 and reference[2]
    for _delay in killed_runs(args, cwd=workdir, delays=(0.4, 0.8, 1.2, 1.6)):
        assert _kill_state(db)[0] == everything  # nothing lost, whenever the kill came
    finished = _memlode(*args, cwd=workdir)
    assert finished.returncode == 0, finished.stderr
    assert _kill_state(db) == reference


def test_each_cycle_runs_by_itself_at_its_own_interval(tmp_path: Path) -> None:
    from memlode.engine.consolidation import AUTO_CYCLES, run_due, schedule
    from memlode.errors import InvalidInput

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        "[consolidation]\nevery_hours = 24\ndecay_every_hours = 168\ncreative_every_hours = 0\n"
    )
    settings = Settings.load({}, environ={"MEMLODE_HOME": str(home)})
    planned = schedule(settings)
    assert planned == {
        **{c: 24.0 for c in AUTO_CYCLES if c != "creative"},
        "decay": 168.0,
    }  # decay given its week, creative taken out, forget never without an interval
    engine = Engine(settings)
    try:
        engine.store("The release checklist lives in docs/release.md", "context")
        first = {r.cycle for r in run_due(engine)}
        assert first == set(planned)
        assert run_due(engine) == []  # nothing due a moment later
        tomorrow = {r.cycle for r in run_due(engine, now=utcnow() + timedelta(hours=25))}
        assert tomorrow == set(planned) - {"decay"}  # decay waits for its week
        week = utcnow() + timedelta(days=8)
        assert "decay" in {r.cycle for r in run_due(engine, now=week)}
    finally:
        engine.close()
    (home / "config.toml").write_text("[consolidation]\nshred_every_hours = 1\n")
    with pytest.raises(InvalidInput, match="no cycle 'shred'"):
        schedule(Settings.load({}, environ={"MEMLODE_HOME": str(home)}))
    off = Settings.load({}, environ={"MEMLODE_HOME": str(home), "MEMLODE_CONSOLIDATE_EVERY": "0"})
    assert schedule(off) == {}


def test_long_runs_show_progress_and_a_bar_on_a_terminal(workdir: Path) -> None:
    from memlode.engine.consolidation import consolidate

    engine = Engine(Settings.load({}))
    try:
        _kill_store(engine, 300)
        seen: list[tuple[str, int, int]] = []
        consolidate(
            engine,
            cycles=["creative", "forget"],
            progress=lambda cycle, _ns, done, total: seen.append((cycle, done, total)),
        )
    finally:
        engine.close()
    assert seen[0] == ("forget", 0, 0) and ("creative", 0, 0) in seen  # each cycle's start
    # and its end: half the observations forgotten, then what stays scored (150 + 60 turns)
    assert ("forget", 150, 150) in seen and ("creative", 210, 210) in seen

    master, slave = os.openpty()  # stderr on a terminal: the bar is drawn
    try:
        done = subprocess.run(
            [sys.executable, "-m", "memlode", "consolidate", "--cycle", "decay"],
            cwd=workdir, env=dict(os.environ), stdout=subprocess.PIPE, stderr=slave, timeout=120,
        )  # fmt: skip
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
    assert done.returncode == 0
    text = shown.decode()
    assert "decay: proj" in text and "#" * 30 in text
    assert re.search(r"\] (\d+)/\1\b", text), text  # the bar full: all of them done
