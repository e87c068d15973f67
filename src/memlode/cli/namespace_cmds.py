"""``memlode namespaces``: list the namespaces (one per project), delete one, or move one's rows
into another."""

from __future__ import annotations

from typing import Any

import click

from memlode.cli.common import echo_json, json_option, open_engine
from memlode.errors import NotFound

__all__ = ["namespaces"]


def _listing(found: list[dict[str, Any]], current: str) -> None:
    if not found:
        click.echo("no namespaces")
        return
    width = max(len(item["namespace"] or "(none)") for item in found)
    for item in found:
        key = item["namespace"] or "(none)"
        name = item["name"] or "-"
        parts = [f"{item['memories']} memories", f"{item['sessions']} sessions"]
        if item["code_files"]:
            parts.append(f"{item['code_files']} code files")
        if item["last_at"]:
            parts.append(f"last {item['last_at'][:16]}")
        mark = "  (this project)" if item["current"] and current else ""
        click.echo(f"{key:<{width}}  {name:<16} " + ", ".join(parts) + mark)


@click.command()
@click.option(
    "--delete",
    "to_delete",
    default=None,
    metavar="NAME",
    help="Delete this namespace (a key, or a project's name if only one project has it).",
)
@click.option(
    "--move",
    "to_move",
    default=None,
    metavar="NAME",
    help="Move everything in this namespace into --to (default: the current project's).",
)
@click.option("--to", "target", default=None, metavar="NAME", help="Where --move puts the rows.")
@click.option(
    "--keep",
    "to_keep",
    default=None,
    metavar="NAME",
    help="Keep a folder-name namespace from before project identities as it is (doctor stops"
    " warning about it).",
)
@click.option("--yes", is_flag=True, help="Do not ask before deleting or moving.")
@json_option
@click.pass_context
def namespaces(
    ctx: click.Context,
    to_delete: str | None,
    to_move: str | None,
    target: str | None,
    to_keep: str | None,
    yes: bool,
    as_json: bool,
) -> None:
    """List namespaces (KEY, readable NAME, counts), or delete, move or keep one.

    A project's namespace key is its name and a short hash of its identity (the origin remote,
    else its path), e.g. app-1a2b3c4d; a name given instead of a key means the one project of
    that name, and is refused when several have it.
    """
    if sum(x is not None for x in (to_delete, to_move, to_keep)) > 1:
        raise click.UsageError("give one of --delete, --move and --keep")
    if target is not None and to_move is None:
        raise click.UsageError("--to goes with --move")
    with open_engine(ctx) as engine:
        if to_keep is not None:
            if not engine.keep_namespace(to_keep):
                raise NotFound(f"no folder-name namespace {to_keep!r} left by the upgrade")
            click.echo(f"kept namespace {to_keep!r} as it is")
            return
        if to_delete is not None:
            key = engine.existing_namespace(to_delete)
            if not yes and not click.confirm(f"Delete namespace {key!r} and everything in it?"):
                raise click.exceptions.Abort()
            deleted = engine.delete_namespace(key)
            if as_json:
                echo_json({"namespace": key, "deleted_memories": deleted})
            else:
                click.echo(f"deleted namespace {key!r} ({deleted} memories)")
            return
        if to_move is not None:
            source = engine.existing_namespace(to_move)
            into = engine.namespace_key(target) if target is not None else engine.namespace
            asked = not yes and into and into != source
            if asked and not click.confirm(f"Move everything in {source!r} into {into!r}?"):
                raise click.exceptions.Abort()
            report = engine.move_namespace(source, into or None)
            if as_json:
                echo_json(report)
                return
            line = f"moved {report['memories']} memories from {source!r} into {report['to']!r}"
            if report["duplicates"]:
                line += f"; {report['duplicates']} already there (same content) stayed"
            click.echo(line)
            return
        found = engine.namespaces()
        current = engine.namespace
    if as_json:
        echo_json(found)
        return
    _listing(found, current)
