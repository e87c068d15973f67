"""Consolidation at scale: time per cycle and what it does to a store of N observations.

A synthetic month of hook observations in one namespace, in the hooks' own row shapes: reads
of a few hundred files at different line ranges, test and build commands re-run with changing
output (a tenth of them failing), edits to the files, spread over 30 days and 60 sessions; and
for every tenth observation a session-summary line (source ``transcript``, type insight) that
tells the same work, for the creative cycle to link.
Each run: the rows before and after, summaries created, members demoted, rows whose importance
decayed, links the creative cycle drew (vectors from the ``hash`` embedder, which is fast and
deterministic: the figures time the cycle, not a model), and the seconds each cycle took (first
run, then an unchanged re-run); then forget (opt-in) with rows older than 14 days eligible, and
restoring everything it archived.

    .venv/bin/python bench/bench_consolidation.py [--sizes 10000 100000] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.consolidation import consolidate
from memlode.storage import memories
from memlode.storage.values import NewMemory
from memlode.types import MemoryType, format_ts, utcnow

NAMESPACE = "bench-month"


def _fill(engine: Engine, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    files = [f"/work/app/src/module_{i}/file_{i % 17}.py" for i in range(max(50, n // 40))]
    commands = [f"pytest tests/test_{i}.py -q" for i in range(max(10, n // 400))]
    commands += ["make build", "ruff check src", "git status", "git log --oneline -5"]
    start = utcnow() - timedelta(days=30)
    with engine.db.write() as conn:
        for i in range(n):
            at = format_ts(start + timedelta(seconds=i * (30 * 86400 // max(n, 1))))
            session = f"session-{i * 60 // n}"
            roll = rng.random()
            path = rng.choice(files)
            shown = path.removeprefix("/work/app/")
            if roll < 0.5:
                first = rng.randrange(1, 400, 20)
                new = NewMemory(
                    f"Read {shown} lines {first}-{first + 59} of 460; defines f{i % 9}, g{i % 5}",
                    tags=["read", f"file:{shown}", "tool:Read"],
                    metadata={"file": path, "tool": "Read"},
                )
            elif roll < 0.8:
                command = rng.choice(commands)
                failed = rng.random() < 0.1
                new = NewMemory(
                    ("Failed: " if failed else "")
                    + f"$ {command}\n[stdout]\nrun {i}: {rng.randrange(3, 90)} passed",
                    tags=[*(["failure"] if failed else []), "command", "tool:Bash"],
                    metadata={"command": command, "tool": "Bash"},
                )
            else:
                added = rng.randrange(1, 40)
                new = NewMemory(
                    f"Edited {shown}: +{added} -{added // 3} lines in 1 hunk; symbols: f{i % 9}"
                    f"\n+    value_{i} = compute({i})",
                    tags=["edit", f"file:{shown}", "tool:Edit"],
                    metadata={"file": path, "tool": "Edit"},
                )
            new.namespace = NAMESPACE
            new.source = "hook"
            new.session_id = session
            new.created_at = at
            new.importance = 0.3
            memories.insert(conn, new)
            if i % 10 == 0:  # a conversation's session summary telling the same work
                turn = NewMemory(
                    f"Session summary · Files and Code Sections: {shown} — "
                    + new.content.split(chr(10), 1)[0],
                    memory_type=MemoryType.INSIGHT,
                )
                turn.namespace, turn.source, turn.session_id = NAMESPACE, "transcript", session
                turn.created_at = at
                memories.insert(conn, turn)


def _count(db: Path, sql: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(sql).fetchone()[0])


def run(n: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memlode-bench-consolidation-") as tmp:
        settings = Settings.load(
            {"home": Path(tmp), "db_path": Path(tmp) / "memlode.db", "embed_provider": "hash"}
        )
        engine = Engine(settings)
        try:
            mark = time.perf_counter()
            _fill(engine, n)
            fill_s = time.perf_counter() - mark
            mark = time.perf_counter()
            engine.embed_pending()
            embed_s = time.perf_counter() - mark
            db = settings.database
            before = _count(db, "SELECT count(*) FROM memories")
            first = consolidate(engine, namespace=NAMESPACE)
            passes = _creative_until_done(engine, first)
            again = consolidate(engine, namespace=NAMESPACE)
            after = _count(db, "SELECT count(*) FROM memories")
            forget = _forget_and_restore(engine, db)
            return {
                "observations": n,
                "fill_seconds": round(fill_s, 2),
                "embed_seconds": round(embed_s, 2),
                "rows_before": before,
                "rows_after": after,
                "summaries": after - before,
                "demoted": _count(db, "SELECT count(*) FROM memory_demotions"),
                "decayed": next(r.counts["lowered"] for r in first if r.cycle == "decay"),
                "linked": next(r.counts for r in first if r.cycle == "creative"),
                "creative_passes": passes,
                "first_run_seconds": {r.cycle: round(r.seconds, 3) for r in first},
                "rerun_seconds": {r.cycle: round(r.seconds, 3) for r in again},
                "rerun_changes": sum(len(r.changes) for r in again),
                **forget,
            }
        finally:
            engine.close()


def _creative_until_done(engine: Engine, first: list[Any]) -> int:
    """The creative cycle scores at most MAX_NEW new vectors a run: run it until it has seen
    every vector, adding each pass's time and counts to the first run's; the passes taken."""
    from memlode.engine.consolidation.creative import MAX_NEW

    run = next(r for r in first if r.cycle == "creative")
    passes = 1
    while run.counts["vectors_new"] and run.counts["vectors_new"] % MAX_NEW == 0:
        [more] = consolidate(engine, namespace=NAMESPACE, cycles=["creative"])
        if not more.counts["vectors_new"]:
            break
        passes += 1
        run.seconds += more.seconds
        for key in ("vectors_new", "similar_new", "theme_edges_new"):
            run.counts[key] += more.counts[key]
        run.counts["similar_total"] = more.counts["similar_total"]
    return passes


def _forget_and_restore(engine: Engine, db: Path) -> dict[str, Any]:
    from memlode.engine.consolidation.forget import restore

    before = _count(db, "SELECT count(*) FROM memories")
    [run] = consolidate(engine, namespace=NAMESPACE, cycles=["forget"], forget_after_days=14)
    archived = _count(db, "SELECT count(*) FROM memory_archive")
    mark = time.perf_counter()
    states = restore(engine, namespace=NAMESPACE)
    restore_s = time.perf_counter() - mark
    return {
        "forget": run.counts,
        "forget_seconds": round(run.seconds, 3),
        "rows_after_forget": before - archived,
        "restored": sum(state == "restored" for state in states.values()),
        "restore_seconds": round(restore_s, 3),
        "rows_after_restore": _count(db, "SELECT count(*) FROM memories"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [run(n) for n in args.sizes]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for r in results:
            print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
