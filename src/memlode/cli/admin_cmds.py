"""Store-wide commands: stats, sessions, export, import (namespaces: namespace_cmds.py)."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from memlode.cli.common import echo_json, json_option, namespace_option, open_engine
from memlode.errors import InvalidInput


@click.command()
@namespace_option
@json_option
@click.pass_context
def stats(ctx: click.Context, namespace: str | None, as_json: bool) -> None:
    """Counts for the store (default: every namespace)."""
    with open_engine(ctx) as engine:
        data = engine.stats("*" if namespace is None else namespace)
    if as_json:
        echo_json(data)
        return
    click.echo(f"database:    {data['database']} ({data['database_bytes'] / 1e6:.1f} MB)")
    click.echo(f"namespace:   {data['namespace']}")
    click.echo(
        f"memories:    {data['memories']} ({data['embedded']} embedded, "
        f"{data['pending_embeddings']} pending)"
    )
    for name, count in data["by_type"].items():
        click.echo(f"  {name:<12} {count}")
    if data["by_source"]:
        click.echo("by source:   " + ", ".join(f"{k} {v}" for k, v in data["by_source"].items()))
    click.echo(f"graph:       {data['graph_nodes']} nodes, {data['graph_edges']} edges")
    click.echo(f"sessions:    {data['sessions']}")


@click.command()
@namespace_option
@click.option("--limit", default=20, show_default=True, type=int)
@json_option
@click.pass_context
def sessions(ctx: click.Context, namespace: str | None, limit: int, as_json: bool) -> None:
    """List recent sessions."""
    with open_engine(ctx) as engine:
        found = engine.sessions(namespace=namespace, limit=limit)
    if as_json:
        echo_json([s.to_dict() for s in found])
        return
    if not found:
        click.echo("no sessions")
    for s in found:
        state = f"ended {s.ended_at[:16]}" if s.ended_at else "open"
        click.echo(f"{s.id}  {s.namespace or '(none)'}  started {s.started_at[:16]}  {state}")
        if s.summary:
            click.echo(f"    {s.summary.splitlines()[0][:100]}")


@click.command()
@click.argument("path", required=False, type=click.Path(dir_okay=False, allow_dash=True))
@namespace_option
@click.pass_context
def export(ctx: click.Context, path: str | None, namespace: str | None) -> None:
    """Write memories, sessions and edges as JSONL to PATH (stdout without PATH).

    Default: every namespace; --namespace limits it to one.
    """
    from memlode.portability import export_lines

    with open_engine(ctx) as engine:
        ns = engine.resolve_namespace("*" if namespace is None else namespace)
        lines = export_lines(engine.db, ns)
        if path is None or path == "-":
            for line in lines:
                sys.stdout.write(line + "\n")
            return
        target = Path(path)
        tmp = target.with_name(target.name + ".tmp")
        count = 0
        try:
            with tmp.open("w", encoding="utf-8") as fh:
                for line in lines:
                    fh.write(line + "\n")
                    count += 1
            tmp.replace(target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise InvalidInput(f"cannot write {path}: {exc.strerror}") from None
    click.echo(f"exported {count - 1} records to {path}", err=True)


@click.command("import")
@click.argument("path", type=click.Path(dir_okay=False, allow_dash=True))
@json_option
@click.pass_context
def import_(ctx: click.Context, path: str, as_json: bool) -> None:
    """Import a JSONL export. All or nothing; ids already present are skipped."""
    from memlode.portability import import_lines

    if path == "-":
        lines = sys.stdin.readlines()
    else:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            raise InvalidInput(f"no such file: {path}") from None
        except UnicodeDecodeError:
            raise InvalidInput(f"{path} is not UTF-8 text") from None
        except OSError as exc:
            raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    with open_engine(ctx) as engine:
        report = import_lines(engine.db, lines)
    if as_json:
        echo_json(report.to_dict())
    else:
        r = report
        click.echo(
            f"imported {r.memories_added} memories ({r.memories_skipped} already present), "
            f"{r.edges_added} edges, {r.sessions_added} sessions"
        )
