"""Consolidation tools: run the cycles and read their log.

Thin adapters over :mod:`memlode.engine.consolidation`, the functions behind ``memlode
consolidate`` and ``memlode consolidate status``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field

from memlode.consolidation_cycles import CYCLES, DEFAULT_CYCLES, DEFAULT_FORGET_AFTER_DAYS
from memlode.mcp.params import IDEMPOTENT_WRITE, READ_ONLY, ReadNamespace
from memlode.mcp.tooling import ToolCall, mcp_tool
from memlode.search.signals import DEFAULT_HALF_LIFE_DAYS

if TYPE_CHECKING:
    CycleName = str
else:  # the schema's enum: the cycles of memlode.consolidation_cycles, in their order
    CycleName = Literal[CYCLES]

__all__ = ["consolidate", "consolidation_status"]

MAX_CHANGES = 100  # changes listed per cycle run in a tool result (the CLI's --json has all)


class CycleOut(BaseModel):
    cycle: str
    namespace: str
    dry_run: bool
    counts: dict[str, int]
    parameters: dict[str, Any]
    changes: list[dict[str, Any]] = Field(
        description=f"What changed (or would, with dry_run): the first {MAX_CHANGES}"
    )
    changes_total: int = Field(description="How many changes there were in all")
    seconds: float


class ConsolidateOut(BaseModel):
    runs: list[CycleOut]


class LogRowOut(BaseModel):
    id: int
    cycle: str
    namespace: str
    started_at: str
    finished_at: str | None
    state: str = Field(description="finished, or interrupted (the run did not commit)")
    details: dict[str, Any]


class StatusOut(BaseModel):
    runs: list[LogRowOut]


def _consolidate_text(out: ConsolidateOut) -> str:
    lines = []
    for run in out.runs:
        counts = ", ".join(f"{k} {v}" for k, v in run.counts.items())
        verb = "would change" if run.dry_run else "changed"
        lines.append(
            f"{run.cycle} {run.namespace or '(none)'}: {counts}; {verb} {len(run.changes)}"
        )
    return "\n".join(lines) or "nothing to consolidate"


@mcp_tool(
    IDEMPOTENT_WRITE,
    "Consolidate memory: summarise repeated observations (a file read again and again, a "
    "command re-run, a chain of edits) into one memory each, ranking the repeats lower; "
    "detect patterns; reflect on ended sessions (decisions taken, problems solved and how, "
    "what is still open: insight memories); with a language model configured, compress "
    "summaries into short facts (raw text kept); link related memories of different kinds "
    "(creative); decay the importance of what is never used. 'forget' (only when named) "
    "archives old, unused, superseded rows (`memlode consolidate restore` puts them back). "
    "dry_run=true shows what would change. Default "
    "namespace: this project ({project}); '*' for every namespace.",
    text=_consolidate_text,
    writes=True,
)
def consolidate(
    call: ToolCall,
    cycles: Annotated[
        list[CycleName] | None,
        Field(
            max_length=len(CYCLES),
            description="Cycles to run; default: all but forget, which runs only when named",
        ),
    ] = None,
    dry_run: Annotated[bool, Field(description="Report what would change; write nothing")] = False,
    namespace: ReadNamespace = None,
    half_life_days: Annotated[
        float, Field(gt=0, le=3650, description="Decay: days in which importance halves")
    ] = DEFAULT_HALF_LIFE_DAYS,
    forget_after_days: Annotated[
        float, Field(ge=1, le=36500, description="Forget: only rows older than this many days")
    ] = DEFAULT_FORGET_AFTER_DAYS,
) -> ConsolidateOut:
    from memlode.engine.consolidation import consolidate as run

    runs = run(
        call.engine,
        cycles=cycles or DEFAULT_CYCLES,
        namespace=namespace,
        dry_run=dry_run,
        half_life_days=half_life_days,
        forget_after_days=forget_after_days,
    )
    out = []
    for r in runs:
        shown = r.to_dict()
        shown["changes_total"] = len(r.changes)
        shown["changes"] = r.changes[:MAX_CHANGES]  # a first creative run draws thousands
        out.append(CycleOut.model_validate(shown))
    return ConsolidateOut(runs=out)


def _status_text(out: StatusOut) -> str:
    if not out.runs:
        return "no consolidation has run yet"
    return "\n".join(
        f"{r.started_at[:19]} {r.cycle} {r.namespace or '(none)'} {r.state}" for r in out.runs
    )


@mcp_tool(READ_ONLY, "The latest consolidation runs, newest first.", text=_status_text)
def consolidation_status(
    call: ToolCall,
    limit: Annotated[int, Field(ge=1, le=1000, description="How many runs")] = 20,
) -> StatusOut:
    from memlode.engine.consolidation import status

    return StatusOut(runs=[LogRowOut.model_validate(r) for r in status(call.engine, limit)])
