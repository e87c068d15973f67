"""``memlode backup PATH`` and ``memlode restore PATH``: thin adapters over
:mod:`memlode.engine.recovery`."""

from __future__ import annotations

from pathlib import Path

import click

from memlode.cli.common import echo_json, json_option, settings_from, sqlite_only

__all__ = ["backup", "restore"]


@sqlite_only(
    "copies a SQLite store; back up a PostgreSQL store with the server's own tools"
    " (pg_dump, or the managed service's snapshots)"
)
@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace PATH if it exists.")
@json_option
@click.pass_context
def backup(ctx: click.Context, path: Path, force: bool, as_json: bool) -> None:
    """Copy the store to PATH (a consistent snapshot, even while other processes write).

    Uses SQLite's online backup API; the file is self-contained and readable by you only.
    """
    from memlode.engine import recovery

    settings = settings_from(ctx)
    result = recovery.backup(settings.database, path, force=force)
    if as_json:
        echo_json(result)
        return
    click.echo(
        f"backed up {result['database']} to {result['path']}: {result['memories']} memories,"
        f" {result['bytes']} bytes, schema {result['schema_version']}"
    )


@sqlite_only(
    "restores a SQLite store; restore a PostgreSQL store with the server's own tools (pg_restore)"
)
@click.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace the current store (required if it exists).")
@json_option
@click.pass_context
def restore(ctx: click.Context, path: Path, force: bool, as_json: bool) -> None:
    """Replace the store with the backup at PATH (checked first; migrated if older).

    Written into the live database through SQLite's backup API, so a running MCP server or
    hook sees the old store or the restored one, never a half-written file.
    """
    from memlode.engine import recovery

    settings = settings_from(ctx)
    result = recovery.restore(settings.database, path, force=force)
    if as_json:
        echo_json(result)
        return
    migrated = f", migrated from schema {result['schema_from']}" if result["migrated"] else ""
    click.echo(
        f"restored {result['database']} from {result['source']}: {result['memories']} memories"
        f"{migrated}"
    )
