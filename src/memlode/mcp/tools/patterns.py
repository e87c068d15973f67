"""Pattern tools: detect what repeats across sessions (hotspots, repeated questions, habits,
error → fix pairs, decision chains) and read the patterns stored.

Thin adapters over :mod:`memlode.engine.consolidation.patterns`, the functions behind
``memlode patterns --detect`` and ``memlode patterns``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from memlode.mcp.params import IDEMPOTENT_WRITE, READ_ONLY, ReadNamespace
from memlode.mcp.tooling import ToolCall, mcp_tool

__all__ = ["detect_patterns", "pattern_insights"]

Kind = Literal["hotspot", "question", "search", "habit", "error-fix", "decision-chain"]


class FoundOut(BaseModel):
    namespace: str
    kind: str
    key: str
    state: str = Field(description="new or changed (unchanged ones are not listed)")
    strength: float
    evidence: int = Field(description="How many memories are its evidence")
    text: str
    memory_id: str | None = Field(description="The pattern memory (None on a dry run)")


class DetectOut(BaseModel):
    dry_run: bool
    counts: dict[str, dict[str, int]] = Field(description="Per namespace: patterns by state/kind")
    changes: list[FoundOut] = Field(
        description="New or changed patterns, strongest first: 100 at most"
    )
    changes_total: int = Field(description="How many patterns were new or changed in all")


class PatternOut(BaseModel):
    id: str
    namespace: str
    kind: str
    memory_type: str
    strength: float
    evidence: int
    text: str
    created_at: str
    updated_at: str


class InsightsOut(BaseModel):
    patterns: list[PatternOut]


def _detect_text(out: DetectOut) -> str:
    verb = "would write" if out.dry_run else "wrote"
    lines = [f"{verb} {len(out.changes)} pattern(s)"]
    lines += [f"- {c.state} [{c.kind} {c.strength:.2f}] {c.text}" for c in out.changes]
    return "\n".join(lines)


@mcp_tool(
    IDEMPOTENT_WRITE,
    "Detect patterns across sessions: files worked on in many sessions, the same question "
    "asked again, habits (the test command, the search tool), error -> fix pairs (a failed "
    "command, the change that made it pass), decision chains. Each becomes one memory with its "
    "evidence linked; a re-run writes only what changed. dry_run=true writes nothing. Default "
    "namespace: this project ({project}); '*' for every namespace.",
    text=_detect_text,
    writes=True,
)
def detect_patterns(
    call: ToolCall,
    dry_run: Annotated[bool, Field(description="Report what would change; write nothing")] = False,
    namespace: ReadNamespace = None,
) -> DetectOut:
    from memlode.engine.consolidation import consolidate

    runs = consolidate(call.engine, cycles=("patterns",), namespace=namespace, dry_run=dry_run)
    changes: list[dict[str, Any]] = [
        {**c, "namespace": r.namespace} for r in runs for c in r.changes
    ]
    return DetectOut(
        dry_run=dry_run,
        counts={r.namespace: r.counts for r in runs},
        changes=[
            FoundOut.model_validate(c)
            for c in sorted(changes, key=lambda c: -float(c.get("strength", 0.0)))[:100]
        ],
        changes_total=len(changes),
    )


def _insights_text(out: InsightsOut) -> str:
    if not out.patterns:
        return "no patterns stored (detect_patterns finds them)"
    return "\n".join(
        f"- [{p.kind} {p.strength:.2f}, {p.evidence} evidence] {p.text}" for p in out.patterns
    )


@mcp_tool(
    READ_ONLY,
    "The patterns detected across sessions, strongest first, each one readable sentence "
    "(hotspots, repeated questions, habits, error -> fix pairs, decision chains).",
    text=_insights_text,
)
def pattern_insights(
    call: ToolCall,
    kind: Annotated[Kind | None, Field(description="Only this kind")] = None,
    min_strength: Annotated[float, Field(ge=0, le=1, description="Least strength")] = 0.0,
    limit: Annotated[int, Field(ge=1, le=1000, description="How many")] = 20,
    namespace: ReadNamespace = None,
) -> InsightsOut:
    from memlode.engine.consolidation.patterns import stored

    found = stored(
        call.engine, namespace=namespace, kind=kind, min_strength=min_strength, limit=limit
    )
    return InsightsOut(patterns=[PatternOut.model_validate(p) for p in found])
