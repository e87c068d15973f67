"""The decay cycle: memories nobody recalls or opens lose importance, halving every
``half_life_days`` since they were stored or last accessed.

Importance is recomputed from a base each run (``base * 0.5 ** (age / half life)``, never
below ``FLOOR``), so a run is idempotent: the same moment gives the same values, and a second
run writes nothing. Access raises it again (the age counts from the last access); an importance
changed since the cycle last wrote it (by the user) becomes the new base. Memory files (source
``doc``, which have their own age decay in ranking, evergreen ones none), conversation turns
and the decisions a user stored are exempt: what decays is the hooks' observations, the
summaries and the other memories.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memlode.engine.consolidation.cycle import CycleContext, CycleRun, log_finish, log_start
from memlode.search.signals import DEFAULT_HALF_LIFE_DAYS  # DESIGN.md: decay half-life 30 days
from memlode.storage import consolidation as rows
from memlode.types import parse_ts

__all__ = ["DEFAULT_HALF_LIFE_DAYS", "EXEMPT_SOURCES", "FLOOR", "DecayPlan", "plan_decay", "run"]

# The least importance decay leaves: a forgotten row is still found by its words.
FLOOR = 0.05
# A change smaller than this is not written (a run a minute after another changes nothing).
MIN_CHANGE = 0.005
# Memory files have their own age decay in ranking; conversation turns are what was said and
# decided, ranked by recency already (decaying them too cost the session replay prompts).
EXEMPT_SOURCES = ("doc", "transcript", "conversation")
EXEMPT_USER_TYPE = "decision"
# Rows written per transaction: each commit takes milliseconds, so a hook that writes meanwhile
# waits that long, not for the whole run.
BATCH = 2000


@dataclass
class DecayPlan:
    namespace: str
    considered: int
    changes: list[tuple[str, float, float]]  # (memory id, new importance, base)
    raised: int

    def summary(self) -> dict[str, Any]:
        return {
            "considered": self.considered,
            "lowered": len(self.changes) - self.raised,
            "raised": self.raised,
        }


def plan_decay(conn: Any, namespace: str, now: datetime, half_life_days: float) -> DecayPlan:
    """What the cycle would write for ``namespace`` at ``now`` (nothing is written here)."""
    changes: list[tuple[str, float, float]] = []
    raised = 0
    found = rows.decay_candidates(conn, namespace, EXEMPT_SOURCES, EXEMPT_USER_TYPE)
    for memory_id, importance, created_at, accessed_at, base, written in found:
        current = float(importance)
        # an importance changed since the cycle wrote it is the user's: the new base
        start = current if base is None or abs(current - float(written)) > 1e-9 else float(base)
        anchor = parse_ts(created_at)
        if accessed_at:
            anchor = max(anchor, parse_ts(accessed_at))
        days = max(0.0, (now - anchor).total_seconds() / 86400.0)
        value = round(max(min(start, FLOOR), start * 0.5 ** (days / half_life_days)), 4)
        if abs(value - current) >= MIN_CHANGE:
            changes.append((str(memory_id), value, start))
            raised += value > current
    return DecayPlan(namespace, len(found), changes, raised)


def run(ctx: CycleContext, report: CycleRun) -> None:
    report.parameters = {"half_life_days": ctx.half_life_days}
    log_id = log_start(ctx, report)
    plan = plan_decay(ctx.engine.conn, report.namespace, ctx.moment, ctx.half_life_days)
    report.counts = plan.summary()
    report.changes = [
        {"id": memory_id, "importance": value, "base": base}
        for memory_id, value, base in plan.changes
    ]
    if log_id is None:
        return
    for start in range(0, len(plan.changes), BATCH):
        with ctx.engine.db.write() as conn:
            rows.write_decay(conn, plan.changes[start : start + BATCH])
        ctx.tick(report, min(start + BATCH, len(plan.changes)), len(plan.changes))
    log_finish(ctx, log_id, report)
