"""``memlode consolidate``: run the consolidation cycles (cluster, reflect, decay) and show
their log; a thin adapter over :mod:`memlode.engine.consolidation`."""

from __future__ import annotations

from typing import Any

import click

from memlode.cli.common import Count, echo_json, json_option, namespace_option, open_engine
from memlode.search.signals import DEFAULT_HALF_LIFE_DAYS

__all__ = ["consolidate"]

# memlode.engine.consolidation.CYCLES, not imported here: listing the commands (`--help`)
# must not load the engine (a test holds the two equal)
CYCLES = ("cluster", "reflect", "decay")


@click.group(invoke_without_command=True)
@click.option(
    "--cycle",
    "cycles",
    type=click.Choice(CYCLES),
    multiple=True,
    help="Run only this cycle (repeatable; default: all).",
)
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option(
    "--half-life",
    type=float,
    default=DEFAULT_HALF_LIFE_DAYS,
    show_default=True,
    help="Decay: days in which an unused memory's importance halves.",
)
@namespace_option
@json_option
@click.pass_context
def consolidate(
    ctx: click.Context,
    cycles: tuple[str, ...],
    dry_run: bool,
    half_life: float,
    namespace: str | None,
    as_json: bool,
) -> None:
    """Consolidate the store: decay what is never used, summarise repeated observations,
    reflect on ended sessions (decisions, problems solved, what is still open).

    Each cycle is idempotent and logged; `memlode consolidate status` shows the log.
    """
    if ctx.invoked_subcommand is not None:
        return
    from memlode.engine.consolidation import consolidate as run

    def progress(cycle: str, ns: str) -> None:
        if not as_json:
            click.echo(f"{cycle}: {ns or '(no namespace)'} ...", err=True)

    with open_engine(ctx) as engine:
        runs = run(
            engine,
            cycles=cycles or CYCLES,
            namespace=namespace,
            dry_run=dry_run,
            half_life_days=half_life,
            progress=progress,
        )
    if as_json:
        echo_json([r.to_dict() for r in runs])
        return
    for r in runs:
        counts = ", ".join(f"{k} {v}" for k, v in r.counts.items())
        verb = "would change" if dry_run else "changed"
        click.echo(
            f"{r.cycle} {r.namespace or '(no namespace)'}: {counts}; {verb} {len(r.changes)}"
        )
        if dry_run:
            for change in r.changes[:20]:
                click.echo("  " + _change_line(change))
            if len(r.changes) > 20:
                click.echo(f"  ... and {len(r.changes) - 20} more")


def _change_line(change: dict[str, Any]) -> str:
    if "importance" in change:
        return f"{change['id']}: importance {change['base']} -> {change['importance']}"
    return f"{change['state']} {change['kind']} x{change['members']}: {change.get('summary', '')}"


@consolidate.command("status")
@click.option("--limit", type=Count(1, 1000), default=20, show_default=True)
@json_option
@click.pass_context
def status(ctx: click.Context, limit: int, as_json: bool) -> None:
    """The latest consolidation runs, newest first."""
    from memlode.engine.consolidation import status as log

    with open_engine(ctx) as engine:
        rows = log(engine, limit)
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no consolidation has run yet")
    for row in rows:
        counts = ", ".join(f"{k} {v}" for k, v in row["details"].get("counts", {}).items())
        click.echo(
            f"{row['started_at'][:19]} {row['cycle']:<8} {row['namespace'] or '(none)'}"
            f" {row['state']}" + (f": {counts}" if counts else "")
        )
