"""``memlode consolidate``: run the consolidation cycles, show their log, and the forget
cycle's archive and restore; a thin adapter over :mod:`memlode.engine.consolidation`."""

from __future__ import annotations

import sys
from typing import Any

import click

from memlode.cli.common import Count, echo_json, json_option, namespace_option, open_engine
from memlode.consolidation_cycles import CYCLES, DEFAULT_CYCLES, DEFAULT_FORGET_AFTER_DAYS
from memlode.search.signals import DEFAULT_HALF_LIFE_DAYS

__all__ = ["consolidate"]


@click.group(invoke_without_command=True)
@click.option(
    "--cycle",
    "cycles",
    type=click.Choice(CYCLES),
    multiple=True,
    help="Run only this cycle (repeatable; default: all but forget, which runs only when named).",
)
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option(
    "--half-life",
    type=float,
    default=DEFAULT_HALF_LIFE_DAYS,
    show_default=True,
    help="Decay: days in which an unused memory's importance halves.",
)
@click.option(
    "--forget-after",
    type=float,
    default=DEFAULT_FORGET_AFTER_DAYS,
    show_default=True,
    help="Forget: only rows older than this many days.",
)
@namespace_option
@json_option
@click.pass_context
def consolidate(
    ctx: click.Context,
    cycles: tuple[str, ...],
    dry_run: bool,
    half_life: float,
    forget_after: float,
    namespace: str | None,
    as_json: bool,
) -> None:
    """Consolidate the store: summarise repeated observations, detect patterns, reflect on
    ended sessions, link captured instructions to those they replace (supersede), compress
    summaries (with MEMLODE_LLM_PROVIDER set), decay what is never used, forget (only when
    named: --cycle forget) and link related memories (creative).

    Each cycle is idempotent and logged; `memlode consolidate status` shows the log.
    """
    if ctx.invoked_subcommand is not None:
        return
    from memlode.engine.consolidation import consolidate as run

    bar = _ProgressBar(quiet=as_json)
    try:
        with open_engine(ctx) as engine:
            runs = run(
                engine,
                cycles=cycles or DEFAULT_CYCLES,
                namespace=namespace,
                dry_run=dry_run,
                half_life_days=half_life,
                forget_after_days=forget_after,
                progress=bar,
            )
    finally:
        bar.close()
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


class _ProgressBar:
    """Progress on stderr: a line as each cycle of each namespace starts and, on a terminal, a
    bar that fills as the cycle goes (creative over 100k vectors takes minutes)."""

    WIDTH = 30

    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet
        self.tty = sys.stderr.isatty()
        self.open = False

    def __call__(self, cycle: str, ns: str, done: int, total: int) -> None:
        if self.quiet:
            return
        label = f"{cycle}: {ns or '(no namespace)'}"
        if total == 0:  # a cycle starts
            self.close()
            click.echo(f"{label} ...", err=True, nl=not self.tty)
            self.open = self.tty
        elif self.tty:
            filled = self.WIDTH * min(done, total) // total
            bar = "#" * filled + "." * (self.WIDTH - filled)
            click.echo(f"\r{label} [{bar}] {done}/{total}", err=True, nl=False)

    def close(self) -> None:
        if self.open:
            click.echo("", err=True)
            self.open = False


def _change_line(change: dict[str, Any]) -> str:
    if "reason" in change:
        return f"{change['id']}: forget ({change['reason']})"
    if "relationship" in change:
        return f"{change['relationship']} {change['source']} -> {change['target']}"
    if "tag" in change:  # compress
        return (
            f"{change['state']} {change['tag']} {change['id']} ({change.get('chars', '?')} chars)"
        )
    if "importance" in change:
        return f"{change['id']}: importance {change['base']} -> {change['importance']}"
    if "strength" in change:  # patterns
        return (
            f"{change['state']} {change['kind']} pattern (strength {change['strength']},"
            f" {change['evidence']} evidence): {change['text']}"
        )
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


@consolidate.command("archive")
@click.option("--run", "run_id", type=int, default=None, help="Only what this forget run removed.")
@click.option("--limit", type=Count(1, 100000), default=50, show_default=True)
@namespace_option
@json_option
@click.pass_context
def archive(
    ctx: click.Context, run_id: int | None, limit: int, namespace: str | None, as_json: bool
) -> None:
    """What the forget cycle archived (and `restore` can put back), newest first."""
    from memlode.engine.consolidation.forget import archived

    with open_engine(ctx) as engine:
        rows = archived(engine, namespace=namespace, run_id=run_id, limit=limit)
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("the archive is empty")
    for row in rows:
        text = " ".join(str(row["content"]).split())[:90]
        click.echo(f"{row['id']} run {row['run_id']} {row['reason']}: {text}")


@consolidate.command("restore")
@click.argument("memory_ids", nargs=-1)
@click.option("--run", "run_id", type=int, default=None, help="Everything this forget run removed.")
@click.option("--all", "everything", is_flag=True, help="Everything archived in the namespace.")
@click.option("--dry-run", is_flag=True, help="Show what would be restored; write nothing.")
@namespace_option
@json_option
@click.pass_context
def restore(
    ctx: click.Context,
    memory_ids: tuple[str, ...],
    run_id: int | None,
    everything: bool,
    dry_run: bool,
    namespace: str | None,
    as_json: bool,
) -> None:
    """Put forgotten memories back from the archive: by id, by forget run, or --all."""
    from memlode.engine.consolidation.forget import restore as put_back

    if not memory_ids and run_id is None and not everything:
        raise click.UsageError("name memory ids, --run ID or --all")
    if everything and (memory_ids or run_id is not None):
        raise click.UsageError("--all restores everything; leave out ids and --run")
    with open_engine(ctx) as engine:
        states = put_back(
            engine, ids=memory_ids, run_id=run_id, namespace=namespace, dry_run=dry_run
        )
    if as_json:
        echo_json(states)
        return
    for memory_id, state in states.items():
        click.echo(f"{memory_id}: {state}")
    restored = sum(state in ("restored", "would restore") for state in states.values())
    click.echo(f"{'would restore' if dry_run else 'restored'} {restored} of {len(states)}")
