"""Store-wide commands: stats, sessions, export, import (namespaces: namespace_cmds.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from memlode.cli.common import (
    Count,
    echo_json,
    json_option,
    namespace_option,
    open_engine,
    read_stdin_text,
    store_wide_namespace_option,
)
from memlode.cli.progress import TtyProgress
from memlode.errors import InvalidInput


@click.command()
@store_wide_namespace_option
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
    llm = data["llm"]
    if llm["provider"] == "none":
        click.echo("model:       none (MEMLODE_LLM_PROVIDER)")
    else:
        click.echo(f"model:       {llm['provider']} {llm['model']}")
    if llm["provider"] != "none" or llm["requests_today"]:
        click.echo(
            f"model today: {llm['tokens_today']} / {llm['daily_tokens']} tokens "
            f"({llm['requests_today']} requests, {llm['failures_today']} failed; UTC {llm['day']})"
        )


@click.command()
@namespace_option
@click.option("--limit", default=20, show_default=True, type=Count(1))
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
@store_wide_namespace_option
@click.pass_context
def export(ctx: click.Context, path: str | None, namespace: str | None) -> None:
    """Write memories, sessions and edges as JSONL to PATH (stdout without PATH).

    Default: every namespace; --namespace limits it to one. A file is replaced only once the
    whole export is written (a full disk leaves it as it was); a failure exits 1.
    """
    from memlode.engine.portability import export_lines, write_lines

    if path is not None and not path.strip():
        raise InvalidInput("the export path is empty; give a file path, or none for stdout")
    with open_engine(ctx) as engine:
        ns = engine.resolve_namespace("*" if namespace is None else namespace)
        lines = export_lines(engine.db, ns)
        if path is None or path == "-":
            for line in lines:
                sys.stdout.write(line + "\n")
            return
        count = write_lines(Path(path), lines)
    click.echo(f"exported {count - 1} records to {path}", err=True)


@click.command("import")
@click.argument("path", type=click.Path(dir_okay=False, allow_dash=True))
@json_option
@click.pass_context
def import_(ctx: click.Context, path: str, as_json: bool) -> None:
    """Import a JSONL export. All or nothing; memories already present are skipped.

    A memory whose id is stored already with different content keeps the stored version; the
    summary counts those (and --json lists their ids under "conflicts").
    """
    from memlode.engine.portability import import_lines, read_import_file

    if path == "-":
        lines = read_stdin_text("the import on standard input").splitlines()
    elif not path.strip():
        raise InvalidInput("the import path is empty; give a JSONL file, or - for stdin")
    else:
        lines = read_import_file(Path(path))
    with open_engine(ctx) as engine, TtyProgress("importing", quiet=as_json) as bar:
        report = import_lines(engine.db, lines, progress=bar)
    if as_json:
        echo_json(report.to_dict())
        return
    r = report
    click.echo(
        f"imported {r.memories_added} memories ({r.memories_skipped} already present), "
        f"{r.edges_added} edges, {r.sessions_added} sessions"
    )
    if r.conflicts:
        shown = ", ".join(r.conflicts[:_CONFLICTS_SHOWN])
        more = (
            f" and {len(r.conflicts) - _CONFLICTS_SHOWN} more"
            if len(r.conflicts) > _CONFLICTS_SHOWN
            else ""
        )
        click.echo(
            f"kept the stored version of {r.memories_conflicting} memories whose id came with "
            f"different content: {shown}{more}"
        )


# Conflicting ids named in the text summary (--json lists all of them).
_CONFLICTS_SHOWN = 10


@click.command()
@click.option(
    "--keep",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Build the demo in this new or empty folder and keep it (default: a temporary one).",
)
def demo(keep: Path | None) -> None:
    """Show memlode at work: a coding session replayed through the real hooks, then what the
    assistant gets (SessionStart, a prompt's injection, search --explain, the repo map, stats).

    Runs in a temporary home; your own store is not touched."""
    from memlode.engine.demo import demo as run_demo

    run_demo(keep)
