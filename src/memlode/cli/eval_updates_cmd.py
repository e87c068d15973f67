"""``memlode eval updates CASES``: the update evaluation (``memlode.evaluation.updates``)."""

from __future__ import annotations

from pathlib import Path

import click

from memlode.cli.common import echo_json, json_option, settings_from
from memlode.embed import PROVIDERS

__all__ = ["updates"]


@click.command()
@click.argument(
    "paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--embed-provider",
    type=click.Choice(PROVIDERS),
    default=None,
    help="Override the embedding provider for this run.",
)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N cases.")
@json_option
@click.pass_context
def updates(
    ctx: click.Context,
    paths: tuple[Path, ...],
    embed_provider: str | None,
    limit: int | None,
    as_json: bool,
) -> None:
    """Judge supersession on the update cases of PATHS (bench/update_cases.json).

    Each project's earlier statements and distractors are stored in a fresh temporary store,
    then their replacements, through the same store path as `memlode store`; each question is
    asked through search and through what the prompt hook would inject. Reports current-first
    in both, replaced statements shown as current, and false supersessions. A file may also
    hold controls (a later statement that replaces nothing) and silent questions (answered by
    no statement); several files are judged together, each project in one store.
    """
    from memlode.evaluation.updates import format_updates, load_update_cases, run_updates

    settings = settings_from(ctx, embed_provider=embed_provider)
    cases = load_update_cases(*paths)
    if limit is not None:
        cases = cases[:limit]
    report = run_updates(cases, settings)
    if as_json:
        echo_json(report)
    else:
        click.echo(format_updates(report))
