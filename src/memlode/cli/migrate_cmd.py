"""``memlode migrate --to postgresql://...``: a thin adapter over
:mod:`memlode.engine.store_move`."""

from __future__ import annotations

import click

from memlode.cli.common import echo_json, json_option, settings_from, sqlite_only
from memlode.cli.progress import TtyProgress

__all__ = ["migrate"]


class _TableBars:
    """One progress bar per table, each closed when the next table starts."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.table = ""
        self.bar: TtyProgress | None = None

    def __call__(self, table: str, done: int, total: int) -> None:
        if table != self.table:
            self.close()
            self.table = table
            self.bar = TtyProgress(f"{table:<22}", quiet=self.quiet)
        assert self.bar is not None
        self.bar(done, total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


@sqlite_only(
    "copies a SQLite store into PostgreSQL: give --db the SQLite file (or leave it out for the"
    " default store) and --to the PostgreSQL URL"
)
@click.command()
@click.option(
    "--to",
    "url",
    required=True,
    metavar="URL",
    help="The PostgreSQL store: postgresql://user@host:port/database.",
)
@json_option
@click.pass_context
def migrate(ctx: click.Context, url: str, as_json: bool) -> None:
    """Copy this SQLite store into a PostgreSQL store a team shares.

    Memories with their vectors, the memory graph, sessions, consolidation state and ingest
    state move; the code index stays on this machine. Safe to run again: it resumes after an
    interruption and copies only what is missing. Every memory is checked at the end.
    """
    from memlode.engine.store_move import migrate_to

    settings = settings_from(ctx)
    bars = _TableBars(quiet=as_json)
    try:
        report = migrate_to(settings.database, url, created_by=settings.author, progress=bars)
    finally:
        bars.close()
    if as_json:
        echo_json(report)
        return
    copied = sum(t.get("inserted", 0) for t in report["tables"])
    there = sum(t.get("present", 0) for t in report["tables"])
    click.echo(
        f"migrated {report['source']} to {report['target']}: {report['memories']} memories"
        f" checked ({report['target_memories']} in the target), {copied} rows copied,"
        f" {there} already there, in {report['seconds']} s"
    )
