"""Consolidation: cycles that make a store better with age instead of noisier.

- ``cluster``: observations that repeat one another (a file read again and again, a command
  re-run, a chain of edits to one file) get one summary memory; recall ranks the members lower.
- ``decay``: importance of what is never recalled or opened halves every half-life (it runs
  after ``cluster``, so that new summaries are covered in the same run).

Each cycle runs per namespace in short write transactions (a batch of groups or rows each, so
that the hooks never wait long) and leaves a ``consolidation_log`` row, started when it begins
and finished with its counts and parameters at the end; a run killed in between leaves whole
groups or nothing of each batch, a row without ``finished_at``, and a next run that completes
it. Every cycle is idempotent and ``dry_run`` reports what it would change without writing
anything. By hand: ``memlode consolidate [--cycle C] [--dry-run] [--json]`` and ``memlode
consolidate status``; the MCP tools ``consolidate`` and ``consolidation_status``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memlode.engine.consolidation.cluster import (
    MIN_MEMBERS,
    SUMMARY_SOURCE,
    SUMMARY_TAG,
    Cluster,
    plan_clusters,
)
from memlode.engine.consolidation.decay import DEFAULT_HALF_LIFE_DAYS, plan_decay
from memlode.errors import InvalidInput
from memlode.fastjson import loads
from memlode.storage import consolidation as rows
from memlode.storage import graph
from memlode.storage import memories as memory_rows
from memlode.types import Edge, MemoryType, Relationship, format_ts, parse_ts, utcnow

if TYPE_CHECKING:
    import sqlite3
    from datetime import datetime

    from memlode.engine import Engine

__all__ = ["AUTO_CYCLES", "CYCLES", "CycleRun", "consolidate", "due", "status"]

CYCLES = ("cluster", "decay")  # summaries first, so that decay covers them in the same run
# What the resident runs by itself when due: the cycle the session replay has judged (45/52
# with it and without; bench/RESULTS.md). Decay runs when asked until it is measured too.
AUTO_CYCLES = ("cluster",)

# Rows (decay) and groups (cluster) written per transaction: each commit takes milliseconds,
# so a hook that writes meanwhile waits that long, not for the whole run.
DECAY_BATCH = 2000
# Groups whose members keep their rank under their summary (session replay: demoting the steps
# of an edit chain lost a prompt whose answer was one step's added line; bench/RESULTS.md).
KEEP_RANK = frozenset({"edit"})
CLUSTER_BATCH = 50
# (cycle, namespace) -> None: called as each cycle of each namespace starts
Progress = Callable[[str, str], None]


@dataclass
class CycleRun:
    cycle: str
    namespace: str
    dry_run: bool
    counts: dict[str, int] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    changes: list[dict[str, Any]] = field(default_factory=list)  # what changed (or would)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "cycle": self.cycle,
            "namespace": self.namespace,
            "dry_run": self.dry_run,
            "counts": self.counts,
            "parameters": self.parameters,
            "changes": self.changes,
            "seconds": round(self.seconds, 3),
        }


def consolidate(
    engine: Engine,
    *,
    cycles: Sequence[str] = CYCLES,
    namespace: str | None = None,
    dry_run: bool = False,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
    now: datetime | None = None,
    progress: Progress | None = None,
) -> list[CycleRun]:
    """Run ``cycles`` over ``namespace`` (the engine's; '*' every namespace of the store)."""
    import time

    unknown = [c for c in cycles if c not in CYCLES]
    if unknown or not cycles:
        raise InvalidInput(f"unknown cycle {unknown or cycles!r}; the cycles are {list(CYCLES)}")
    if not half_life_days > 0:
        raise InvalidInput("the half-life must be a positive number of days")
    resolved = engine.resolve_namespace(namespace)
    names = rows.namespaces_with_rows(engine.conn) if resolved is None else [resolved]
    moment = now or utcnow()
    out: list[CycleRun] = []
    for ns in names:
        for cycle in cycles:
            if progress is not None:
                progress(cycle, ns)
            started = time.perf_counter()
            run = CycleRun(cycle, ns, dry_run)
            if cycle == "decay":
                run.parameters = {"half_life_days": half_life_days}
                _decay(engine, run, moment, half_life_days)
            else:
                _cluster(engine, run, moment)
            run.seconds = time.perf_counter() - started
            out.append(run)
    return out


def _logged(engine: Engine, run: CycleRun, moment: datetime) -> int | None:
    if run.dry_run:
        return None
    details = {"parameters": run.parameters}
    with engine.db.write() as conn:
        return rows.log_start(conn, run.cycle, run.namespace, format_ts(moment), details)


def _decay(engine: Engine, run: CycleRun, moment: datetime, half_life_days: float) -> None:
    log_id = _logged(engine, run, moment)
    plan = plan_decay(engine.conn, run.namespace, moment, half_life_days)
    run.counts = plan.summary()
    run.changes = [
        {"id": memory_id, "importance": value, "base": base}
        for memory_id, value, base in plan.changes
    ]
    if log_id is None:
        return
    # short transactions: the hooks write meanwhile and must not wait for a whole run
    for start in range(0, len(plan.changes), DECAY_BATCH):
        with engine.db.write() as conn:
            rows.write_decay(conn, plan.changes[start : start + DECAY_BATCH])
    with engine.db.write() as conn:
        rows.log_finish(conn, log_id, format_ts(utcnow()), _details(run))


def _cluster(engine: Engine, run: CycleRun, moment: datetime) -> None:
    log_id = _logged(engine, run, moment)
    clusters = plan_clusters(engine.conn, run.namespace)
    todo = [c for c in clusters if c.state != "unchanged"]
    run.counts = {
        "groups": len(clusters),
        "new": sum(c.state == "new" for c in clusters),
        "changed": sum(c.state == "changed" for c in clusters),
        "unchanged": sum(c.state == "unchanged" for c in clusters),
        "members": sum(len(c.members) for c in clusters),
    }
    run.parameters = {"min_members": MIN_MEMBERS}
    if log_id is None:
        run.changes = [{**c.to_dict(), "summary": c.summary()} for c in todo]
        return
    # one short transaction per batch of groups (each group whole: its summary, edges,
    # demotions and record commit together); a run killed midway is finished by the next
    for start in range(0, len(todo), CLUSTER_BATCH):
        with engine.db.write() as conn:
            for cluster in todo[start : start + CLUSTER_BATCH]:
                _write_summary(conn, cluster)
    run.changes = [c.to_dict() for c in todo]
    with engine.db.write() as conn:
        rows.log_finish(conn, log_id, format_ts(utcnow()), _details(run))


def _write_summary(conn: sqlite3.Connection, cluster: Cluster) -> None:
    text = cluster.summary()
    first, last = cluster.members[0], cluster.members[-1]
    metadata: dict[str, Any] = {
        "cluster": cluster.kind,
        "key": cluster.key,
        "members": len(cluster.members),
        "first_at": first.created_at,
        "last_at": last.created_at,
    }
    if cluster.kind != "command":
        metadata["file"] = cluster.key
    if cluster.summary_id is None:
        new = memory_rows.NewMemory(
            content=text,
            memory_type=MemoryType.CONTEXT,
            importance=max(m.importance for m in cluster.members),
            tags=[SUMMARY_TAG, f"cluster:{cluster.kind}"],
            metadata=metadata,
            namespace=cluster.namespace,
            source=SUMMARY_SOURCE,
            created_at=last.created_at,
        )
        cluster.summary_id, _created = memory_rows.insert(conn, new)
    else:
        memory_rows.update(conn, cluster.summary_id, {"content": text, "metadata": metadata})
    summary_id = cluster.summary_id
    graph.ensure_memory_node(conn, summary_id, text, cluster.namespace)
    for member in cluster.members:
        graph.ensure_memory_node(conn, member.id, member.content, cluster.namespace)
        graph.add_edge(
            conn, Edge(summary_id, member.id, Relationship.SUMMARIZES), keep_existing=True
        )
    # each edit holds its own change (the line that answers "which setting did we keep?"):
    # an edit chain gets its summary, its steps keep their rank
    demoted = [] if cluster.kind in KEEP_RANK else [m.id for m in cluster.members]
    rows.set_demotions(conn, summary_id, demoted)
    rows.save_cluster(
        conn, cluster.namespace, cluster.kind, cluster.key, summary_id, cluster.members_hash
    )


def _details(run: CycleRun) -> dict[str, Any]:
    return {"parameters": run.parameters, "counts": run.counts}


def status(engine: Engine, limit: int = 20) -> list[dict[str, Any]]:
    """The latest cycle runs, newest first (``finished_at`` None: it did not finish)."""
    if not 1 <= limit <= 1000:
        raise InvalidInput("limit must be between 1 and 1000")
    out = []
    for log_id, kind, ns, started, finished, details in rows.log_rows(engine.conn, limit):
        parsed = loads(details) if details else {}
        out.append(
            {
                "id": int(log_id),
                "cycle": kind,
                "namespace": ns,
                "started_at": started,
                "finished_at": finished,
                "state": "finished" if finished else "interrupted",
                "details": parsed if isinstance(parsed, dict) else {},
            }
        )
    return out


def due(engine: Engine, every_hours: float, now: datetime | None = None) -> bool:
    """Whether an automatic run is due: ``every_hours`` (> 0) have passed since the last run
    that finished, or none has; a run started in the last ``every_hours`` and not finished
    (killed, or still going in another process) is not retried before then either."""
    if every_hours <= 0:
        return False
    latest = rows.log_rows(engine.conn, 1)
    if not latest:
        return True
    started = parse_ts(str(latest[0][3]))
    return ((now or utcnow()) - started).total_seconds() >= every_hours * 3600
