"""What every consolidation cycle shares: the run it reports (:class:`CycleRun`), the context
it runs in (:class:`CycleContext`), and its row in ``consolidation_log``.

A cycle is a module with ``run(ctx, run)``: it fills ``run.counts``, ``run.parameters`` and
``run.changes`` (what changed, or would with ``run.dry_run``), and, unless dry, writes in short
transactions between :func:`log_start` and :func:`log_finish` (a run killed in between leaves a
log row without ``finished_at``, and whole batches or nothing of each).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memlode.storage import consolidation as rows
from memlode.types import format_ts, utcnow

if TYPE_CHECKING:
    from datetime import datetime

    from memlode.engine import Engine

__all__ = ["CycleContext", "CycleRun", "Progress", "log_finish", "log_start"]

# (cycle, namespace, done, total) -> None: called as each cycle of each namespace starts
# (0, 0), and as it goes (units of work done of the total: groups, rows, vectors)
Progress = Callable[[str, str, int, int], None]


@dataclass
class CycleContext:
    engine: Engine
    moment: datetime  # "now" for the run (tests pass a fixed one)
    half_life_days: float  # decay
    forget_after_days: float  # forget: only rows older than this
    progress: Progress | None = None

    def tick(self, report: CycleRun, done: int, total: int) -> None:
        """Say how far ``report``'s cycle has come (a progress bar on long runs)."""
        if self.progress is not None:
            self.progress(report.cycle, report.namespace, done, total)


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


def log_start(ctx: CycleContext, run: CycleRun) -> int | None:
    """The run's log row, started now (None on a dry run: a dry run logs nothing)."""
    if run.dry_run:
        return None
    details = {"parameters": run.parameters}
    with ctx.engine.db.write() as conn:
        return rows.log_start(conn, run.cycle, run.namespace, format_ts(ctx.moment), details)


def log_finish(ctx: CycleContext, log_id: int | None, run: CycleRun) -> None:
    if log_id is None:
        return
    details = {"parameters": run.parameters, "counts": run.counts}
    with ctx.engine.db.write() as conn:
        rows.log_finish(conn, log_id, format_ts(utcnow()), details)
