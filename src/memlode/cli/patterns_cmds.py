"""``memlode patterns``: the patterns consolidation detected (hotspots, repeated questions,
habits, error → fix pairs, decision chains), strongest first; ``--detect`` runs the patterns
cycle first. A thin adapter over :mod:`memlode.engine.consolidation.patterns`."""

from __future__ import annotations

import click

from memlode.cli.common import Count, echo_json, json_option, namespace_option, open_engine

__all__ = ["patterns"]


@click.command()
@click.option(
    "--kind",
    default=None,
    help="Only this kind: hotspot, question, search, habit, error-fix, decision-chain.",
)
@click.option(
    "--min-strength", type=float, default=0.0, show_default=True, help="Least strength, 0..1."
)
@click.option("--detect", is_flag=True, help="Run the patterns cycle first.")
@click.option(
    "--dry-run", is_flag=True, help="With --detect: show what it would find; write nothing."
)
@click.option("--limit", type=Count(1, 1000), default=20, show_default=True)
@namespace_option
@json_option
@click.pass_context
def patterns(
    ctx: click.Context,
    kind: str | None,
    min_strength: float,
    detect: bool,
    dry_run: bool,
    limit: int,
    namespace: str | None,
    as_json: bool,
) -> None:
    """List the patterns found across sessions, strongest first.

    Each is one memory with its evidence linked (EXEMPLIFIES edges); `--detect` runs the
    detection (`memlode consolidate --cycle patterns`) before listing.
    """
    from memlode.engine.consolidation import consolidate
    from memlode.engine.consolidation.patterns import stored
    from memlode.errors import InvalidInput

    if dry_run and not detect:
        raise InvalidInput("--dry-run needs --detect (listing writes nothing)")
    with open_engine(ctx) as engine:
        # validate before detecting: a bad --kind must not cost a run
        listed = stored(
            engine, namespace=namespace, kind=kind, min_strength=min_strength, limit=limit
        )
        runs = []
        if detect:
            runs = consolidate(engine, cycles=("patterns",), namespace=namespace, dry_run=dry_run)
            if not dry_run:
                listed = stored(
                    engine, namespace=namespace, kind=kind, min_strength=min_strength, limit=limit
                )
    if dry_run:
        found = [
            c
            for r in runs
            for c in r.changes
            if (kind is None or c["kind"] == kind) and c["strength"] >= min_strength
        ]
        if as_json:
            echo_json({"dry_run": True, "changes": found, "runs": [r.to_dict() for r in runs]})
            return
        click.echo(f"would write {len(found)} pattern(s)")
        for c in found[:limit]:
            click.echo(f"  {c['state']} [{c['kind']} {c['strength']:.2f}] {c['text']}")
        return
    if as_json:
        echo_json({"patterns": listed, "runs": [r.to_dict() for r in runs]})
        return
    for r in runs:
        counts = ", ".join(f"{k} {v}" for k, v in r.counts.items() if v)
        click.echo(f"detected {r.namespace or '(no namespace)'}: {counts or 'nothing'}", err=True)
    if not listed:
        click.echo("no patterns found" + ("" if detect else " (run with --detect to look)"))
    for p in listed:
        click.echo(f"[{p['kind']} {p['strength']:.2f}, {p['evidence']} evidence] {p['text']}")
