"""Consolidation: cycles that make a store better with age instead of noisier.

- ``cluster``: observations that repeat one another (a file read again and again, a command
  re-run, a chain of edits to one file) get one summary memory; recall ranks the members lower.
- ``patterns``: what repeats across sessions (file hotspots, repeated questions, habits, error
  → fix pairs, decision chains) becomes one readable ``pattern`` or ``insight`` memory each,
  its evidence linked (``memlode patterns``; the MCP tools ``detect_patterns`` and
  ``pattern_insights``).
- ``reflect``: what each ended session established (decisions taken, problems solved and how,
  what is still open) becomes insight memories linked to their evidence, each superseding the
  earlier session's insight on the same thread (``reflect.py``).
- ``supersede``: what the user told the assistant, as the prompt hook kept it, is linked to the
  earlier statement it replaces, as a stored memory is when stored (``supersede.py``).
- ``compress``: with a language model configured (``MEMLODE_LLM_PROVIDER``), summaries and
  reflections become one short fact each, their raw text kept (``compress.py``); without one it
  does nothing.
- ``decay``: importance of what is never recalled or opened halves every half-life (it runs
  after the cycles that write memories, so that what they wrote is covered in the same run).
- ``forget`` (only when named): old, unused, low-importance or superseded rows move whole into
  an archive that ``restore`` empties again (``forget.py``).
- ``creative`` (last, over what the others left): memories of different kinds that say
  related things get ``SIMILAR_TO`` links (from the stored vectors), and each theme of them
  ``SHARES_THEME`` edges to its hub.

Each cycle runs per namespace in short write transactions (a batch of groups or rows each, so
that the hooks never wait long) and leaves a ``consolidation_log`` row, started when it begins
and finished with its counts and parameters at the end; a run killed in between leaves whole
groups or nothing of each batch, a row without ``finished_at``, and a next run that completes
it. Every cycle is idempotent and ``dry_run`` reports what it would change without writing
anything. By hand: ``memlode consolidate [--cycle C] [--dry-run] [--json]`` and ``memlode
consolidate status``; the MCP tools ``consolidate`` and ``consolidation_status``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memlode.consolidation_cycles import (
    AUTO_CYCLES,
    CYCLES,
    DEFAULT_CYCLES,
    DEFAULT_FORGET_AFTER_DAYS,
    MODEL_CYCLES,
    OPT_IN,
)
from memlode.engine.consolidation.cycle import CycleContext, CycleRun, Progress
from memlode.errors import InvalidInput
from memlode.fastjson import loads
from memlode.search.signals import DEFAULT_HALF_LIFE_DAYS
from memlode.storage import consolidation as rows
from memlode.types import parse_ts, utcnow

if TYPE_CHECKING:
    from datetime import datetime

    from memlode.config import Settings
    from memlode.engine import Engine

__all__ = [
    "AUTO_CYCLES",
    "CYCLES",
    "DEFAULT_CYCLES",
    "DEFAULT_FORGET_AFTER_DAYS",
    "MODEL_CYCLES",
    "OPT_IN",
    "REFLECT",
    "CycleRun",
    "auto_cycles",
    "consolidate",
    "due",
    "reflection_due",
    "run_due",
    "schedule",
    "status",
]

# The cycles are declared in memlode.consolidation_cycles (their order, which run only when
# named, which the resident runs by itself); each is the module of that name here.
# The resident also runs reflect by itself soon after a session ends (``reflection_due``),
# whatever the interval; those runs do not count as the interval's run (``due``).
REFLECT = "reflect"


def auto_cycles(settings: Settings) -> tuple[str, ...]:
    """What the resident runs when due: ``AUTO_CYCLES``, and ``compress`` when a language model
    provider is set."""
    if settings.llm_provider == "none":
        return AUTO_CYCLES
    return tuple(c for c in CYCLES if c in AUTO_CYCLES or c in MODEL_CYCLES)


def consolidate(
    engine: Engine,
    *,
    cycles: Sequence[str] = DEFAULT_CYCLES,
    namespace: str | None = None,
    dry_run: bool = False,
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS,
    forget_after_days: float = DEFAULT_FORGET_AFTER_DAYS,
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
    if not forget_after_days >= 1:
        raise InvalidInput("forget's age must be at least 1 day")
    resolved = engine.resolve_namespace(namespace)
    names = rows.namespaces_with_rows(engine.conn) if resolved is None else [resolved]
    ctx = CycleContext(engine, now or utcnow(), half_life_days, forget_after_days, progress)
    ordered = [c for c in CYCLES if c in cycles]
    out: list[CycleRun] = []
    for ns in names:
        for cycle in ordered:
            if progress is not None:
                progress(cycle, ns, 0, 0)
            started = time.perf_counter()
            report = CycleRun(cycle, ns, dry_run)
            module = importlib.import_module(f"{__name__}.{cycle}")
            module.run(ctx, report)
            report.seconds = time.perf_counter() - started
            out.append(report)
    return out


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


def due(
    engine: Engine,
    every_hours: float,
    now: datetime | None = None,
    cycles: Sequence[str] | None = None,
) -> bool:
    """Whether an automatic run of ``cycles`` (default: every cycle but reflect's own runs) is
    due: ``every_hours`` (> 0) have passed since the last run that started, or none has; a run
    started in the last ``every_hours`` and not finished (killed, or still going in another
    process) is not retried before then either."""
    if every_hours <= 0:
        return False
    kinds = [c for c in CYCLES if c != REFLECT] if cycles is None else list(cycles)
    latest = rows.latest_start(engine.conn, kinds)
    if latest is None:
        return True
    started = parse_ts(latest)
    return ((now or utcnow()) - started).total_seconds() >= every_hours * 3600


def schedule(settings: Settings) -> dict[str, float]:
    """Each cycle the resident runs by itself, with its interval in hours: ``AUTO_CYCLES`` (and
    ``compress`` with a language model) every ``consolidate_every_hours``; any cycle (decay,
    forget included) at the interval ``[consolidation] <cycle>_every_hours`` gives it, 0
    taking it out. Nothing at all when ``consolidate_every_hours`` is 0."""
    if settings.consolidate_every_hours <= 0:
        return {}
    every = settings.consolidate_every_hours
    out = {c: every for c in auto_cycles(settings)}
    for cycle, hours in (settings.consolidate_cycle_hours or {}).items():
        if cycle not in CYCLES:
            raise InvalidInput(
                f"[consolidation] {cycle}_every_hours: no cycle {cycle!r}; the cycles are"
                f" {list(CYCLES)}"
            )
        out[cycle] = hours
    return {c: out[c] for c in CYCLES if out.get(c, 0) > 0}


def run_due(engine: Engine, now: datetime | None = None) -> list[CycleRun]:
    """What the resident does when it checks: every scheduled cycle whose interval has passed
    since its own last run, together in one run over every namespace."""
    todo = [
        cycle
        for cycle, hours in schedule(engine.settings).items()
        if due(engine, hours, now, cycles=[cycle])
    ]
    return consolidate(engine, cycles=todo, namespace="*", now=now) if todo else []


def reflection_due(engine: Engine) -> bool:
    """Whether a session ended since the latest finished reflect run started (a count over
    the sessions table: cheap enough for the resident to ask every minute)."""
    from memlode.storage import reflection

    return reflection.sessions_ended_since(engine.conn, REFLECT) > 0
