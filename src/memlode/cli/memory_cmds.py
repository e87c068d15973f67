"""Commands on memories: store, get, update, delete, list, search, associate, neighbors."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from memlode import validate
from memlode.cli.common import (
    Count,
    echo_json,
    json_option,
    namespace_option,
    open_engine,
    read_stdin_text,
)
from memlode.engine.namespace_ops import ALL_NAMESPACES
from memlode.storage.capture import GLOBAL_NAMESPACE
from memlode.textutil import one_line
from memlode.types import Memory, MemoryType, Relationship

if TYPE_CHECKING:
    from memlode.engine import Engine

TYPE_CHOICES = [t.value for t in MemoryType]


def _short(text: str, width: int = 100) -> str:
    return one_line(text, width)


def _render_memory_line(
    memory: Memory, score: float | None = None, replaced: dict[str, str] | None = None
) -> str:
    tags = f" [{', '.join(memory.tags)}]" if memory.tags else ""
    head = f"{memory.id}  {memory.memory_type:<10} {memory.created_at[:16]}"
    meta = memory.metadata
    if memory.source == "transcript" and meta.get("session_id"):  # where in which conversation
        where = f"turn {meta['turn']}" if "turn" in meta else str(meta.get("kind", ""))
        head += f"  session {str(meta['session_id'])[:8]} {where}"
    if score is not None:
        head += f"  score={score:.3f}"
    return f"{head}{_replaced_mark(replaced)}{tags}\n    {_short(memory.content)}"


def _replaced_mark(replaced: dict[str, Any] | None) -> str:
    """ "  (replaced <date> by <id>)" for a memory a later one replaced, else ""."""
    if not replaced or not replaced.get("replaced_by"):
        return ""
    return f"  (replaced {str(replaced['replaced_at'])[:10]} by {replaced['replaced_by']})"


@click.command()
@click.argument("content")
@click.option(
    "-t",
    "--type",
    "memory_type",
    default="context",
    show_default=True,
    help=f"Memory type: {', '.join(TYPE_CHOICES)}.",
)
@click.option("--importance", default=0.5, show_default=True, type=float, help="0 to 1.")
@click.option("--confidence", default=1.0, show_default=True, type=float, help="0 to 1.")
@click.option("--tags", default=None, help="Comma-separated tags or a JSON array.")
@click.option("--metadata", default=None, help="A JSON object.")
@click.option("--source", default="memory", show_default=True, help="Where the memory came from.")
@namespace_option
@json_option
@click.pass_context
def store(
    ctx: click.Context,
    content: str,
    memory_type: str,
    importance: float,
    confidence: float,
    tags: str | None,
    metadata: str | None,
    source: str,
    namespace: str | None,
    as_json: bool,
) -> None:
    """Store CONTENT as a memory and print its id ('-' reads CONTENT from stdin).

    Storing content that already exists in the namespace prints the existing id. When it
    replaces an earlier statement (a decision changed), the link is made and stderr says so;
    with the store's resident running, stderr also names earlier statements on the same
    subject that nothing linked ("may replace"), with the command that links one.
    """
    if content == "-":
        content = read_stdin_text("the content on standard input")
    with open_engine(ctx) as engine:
        result = engine.store(
            content,
            memory_type,
            importance,
            confidence,
            tags,
            namespace,
            metadata,
            source=source,
        )
        linked, maybe = list(result.replaces), list[str]()
        asked = _replacing_by_the_resident(engine, result.id) if result.created else None
        if asked is not None:  # the meaning rule too, and what it may replace
            linked, maybe = asked
        rows = [engine.get(i, touch=False) for i in [*linked, *maybe]]
    if as_json:
        echo_json(
            {"id": result.id, "created": result.created, "replaces": linked, "may_replace": maybe}
        )
        return
    click.echo(result.id)
    for old in rows:  # messages, not the answer: scripts read the id alone
        said = f"{old.id} ({old.created_at[:10]}): {_short(old.content, 80)}"
        if old.id in linked:
            click.echo(
                f"replaces {said} (not so? memlode supersede --undo {old.id} {result.id})",
                err=True,
            )
        else:
            click.echo(
                f"may replace {said} (if so: memlode supersede {old.id} {result.id})", err=True
            )


def _replacing_by_the_resident(
    engine: Engine, memory_id: str
) -> tuple[list[str], list[str]] | None:
    """What a statement just stored replaces and may replace (``Engine.replacing``), from the
    store's resident when one runs: it has the model loaded to embed and compare the new one.
    None without one: a one-shot command does not load a model for this."""
    from memlode.resident_client.client import replacing

    return replacing(engine.settings, memory_id)


@click.command()
@click.argument("memory_id")
@json_option
@click.pass_context
def get(ctx: click.Context, memory_id: str, as_json: bool) -> None:
    """Show one memory (and count the access)."""
    with open_engine(ctx) as engine:
        memory = engine.get(memory_id)
        replaced = engine.replaced([memory.id]).get(memory.id)
    if as_json:
        echo_json({**memory.to_dict(), **(replaced or {})})
        return
    click.echo(f"id:          {memory.id}")
    click.echo(f"type:        {memory.memory_type}")
    click.echo(f"namespace:   {memory.namespace or '(none)'}")
    click.echo(f"source:      {memory.source}")
    click.echo(f"importance:  {memory.importance}   confidence: {memory.confidence}")
    click.echo(f"tags:        {', '.join(memory.tags) or '-'}")
    click.echo(f"created:     {memory.created_at}   accessed {memory.access_count}x")
    if replaced:
        chain = f"memlode supersede --chain {memory.id}"
        by, at = replaced["replaced_by"], replaced["replaced_at"]
        click.echo(f"replaced:    {at} by {by} (see: {chain})")
    if memory.metadata:
        click.echo(f"metadata:    {memory.metadata}")
    click.echo("")
    click.echo(memory.content)


@click.command()
@click.argument("memory_id")
@click.option("--content", default=None, help="New text.")
@click.option("-t", "--type", "memory_type", default=None, help="New memory type.")
@click.option("--importance", default=None, type=float, help="0 to 1.")
@click.option("--confidence", default=None, type=float, help="0 to 1.")
@click.option("--tags", default=None, help="Replace the tags (comma-separated or JSON array).")
@click.option("--metadata", default=None, help="Replace the metadata (a JSON object).")
@json_option
@click.pass_context
def update(
    ctx: click.Context,
    memory_id: str,
    content: str | None,
    memory_type: str | None,
    importance: float | None,
    confidence: float | None,
    tags: str | None,
    metadata: str | None,
    as_json: bool,
) -> None:
    """Change fields of a memory."""
    with open_engine(ctx) as engine:
        memory = engine.update(
            memory_id,
            content=content,
            memory_type=memory_type,
            importance=importance,
            confidence=confidence,
            tags=tags,
            metadata=metadata,
        )
    if as_json:
        echo_json(memory.to_dict())
    else:
        click.echo(f"updated {memory.id}")


@click.command()
@click.argument("memory_ids", nargs=-1, required=True)
@click.pass_context
def delete(ctx: click.Context, memory_ids: tuple[str, ...]) -> None:
    """Delete memories (their embeddings and graph links go too)."""
    with open_engine(ctx) as engine:
        for memory_id in memory_ids:  # all or nothing: an unknown id deletes none of them
            engine.get(memory_id, touch=False)
        for memory_id in memory_ids:
            engine.delete(memory_id)
            click.echo(f"deleted {memory_id}")


def _filter_options(fn: Any) -> Any:
    for option in reversed(
        [
            click.option(
                "-t",
                "--type",
                "memory_types",
                default=None,
                help="Only these types (comma-separated).",
            ),
            click.option("--tags", default=None, help="Only memories with all these tags."),
            click.option(
                "--source",
                "sources",
                multiple=True,
                help="Only this source (memory, transcript, doc, hook, ...); repeatable.",
            ),
            click.option(
                "--stored-by",
                default=None,
                metavar="NAME",
                help="Only what NAME stored (its created_by; a team PostgreSQL store).",
            ),
        ]
    ):
        fn = option(fn)
    return fn


@click.command("list")
@namespace_option
@_filter_options
@click.option("--since", default=None, help="Created at or after (ISO date/time).")
@click.option("--until", default=None, help="Created before (ISO date/time).")
@click.option("--limit", default=50, show_default=True, type=Count(1))
@click.option("--offset", default=0, show_default=True, type=Count(0))
@json_option
@click.pass_context
def list_(
    ctx: click.Context,
    namespace: str | None,
    memory_types: str | None,
    tags: str | None,
    sources: tuple[str, ...],
    stored_by: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    offset: int,
    as_json: bool,
) -> None:
    """List memories, newest first."""
    with open_engine(ctx) as engine:
        found = engine.list_memories(
            namespace=namespace,
            memory_types=memory_types,
            tags=tags,
            sources=sources,
            since=since,
            until=until,
            limit=limit,
            offset=offset,
            stored_by=stored_by,
        )
        replaced = engine.replaced([m.id for m in found])
    if as_json:
        echo_json([{**m.to_dict(), **replaced.get(m.id, {})} for m in found])
        return
    if not found:
        click.echo("no memories" + _elsewhere(ctx, namespace))
    for memory in found:
        click.echo(_render_memory_line(memory, replaced=replaced.get(memory.id)))


def _elsewhere(ctx: click.Context, namespace: str | None) -> str:
    """For an empty answer in one namespace: how many memories the other namespaces hold, and
    how to read them (a project's namespace is its repository: a command run in another folder
    reads another project's memories)."""
    if namespace is not None and namespace.strip() == ALL_NAMESPACES:
        return ""
    with open_engine(ctx) as engine:
        read = engine.namespace if namespace is None else engine.namespace_key(namespace)
        others = [
            n
            for n in engine.namespaces()
            if n["namespace"] not in (read, GLOBAL_NAMESPACE) and n["memories"]
        ]
    if not others:
        return ""
    count = sum(int(n["memories"]) for n in others)
    where = "namespace" if len(others) == 1 else "namespaces"
    return (
        f" in namespace {read or '(none)'!r}; {count} in {len(others)} other {where}"
        f" (-n '*' reads them all, `memlode namespaces` lists them)"
    )


@click.command()
@click.argument("query")
@click.option("-k", "--k", "k", default=10, show_default=True, type=int, help="How many results.")
@namespace_option
@_filter_options
@click.option("--explain", is_flag=True, help="Show each signal's contribution to the score.")
@json_option
@click.pass_context
def search(
    ctx: click.Context,
    query: str,
    k: int,
    namespace: str | None,
    memory_types: str | None,
    tags: str | None,
    sources: tuple[str, ...],
    stored_by: str | None,
    explain: bool,
    as_json: bool,
) -> None:
    """Search memories for QUERY, best first."""
    validate.utf8_text(query, "the query")
    from memlode.cli.common import settings_from
    from memlode.resident_client.client import search as resident_search

    # The store's resident answers with the same engine call, warm; else search here.
    hits: list[Any] | None = (
        None
        if stored_by
        else resident_search(
            settings_from(ctx),
            query,
            k,
            scope=namespace,
            memory_types=memory_types,
            tags=tags,
            sources=sources,
        )
    )
    if hits is None:
        with open_engine(ctx) as engine:
            engine.catch_up()  # no resident to embed what was stored since: a few rows here
            hits = list(
                engine.search(
                    query,
                    k,
                    namespace=namespace,
                    memory_types=memory_types,
                    tags=tags,
                    sources=sources,
                    stored_by=stored_by,
                )
            )
    if as_json:
        echo_json([hit.to_dict(explain=explain) for hit in hits])
        return
    if not hits:
        click.echo("no matches" + _elsewhere(ctx, namespace))
    for hit in hits:
        click.echo(_render_memory_line(hit.memory, hit.score, hit.replaced))
        if explain:
            parts = ", ".join(f"{name}={value:.3f}" for name, value in hit.signals.items())
            click.echo(f"    signals: {parts}")


@click.command()
@click.argument("source_id")
@click.argument("target_id")
@click.option(
    "-r",
    "--relationship",
    default="RELATES_TO",
    show_default=True,
    help=f"One of: {', '.join(r.value for r in Relationship)}.",
)
@click.option("--weight", default=1.0, show_default=True, type=float)
@click.option("--properties", default=None, help="A JSON object stored on the edge.")
@json_option
@click.pass_context
def associate(
    ctx: click.Context,
    source_id: str,
    target_id: str,
    relationship: str,
    weight: float,
    properties: str | None,
    as_json: bool,
) -> None:
    """Link two memories with a typed edge SOURCE_ID -> TARGET_ID."""
    with open_engine(ctx) as engine:
        edge = engine.associate(source_id, target_id, relationship, weight, properties)
    if as_json:
        echo_json(edge.to_dict())
    else:
        click.echo(f"{edge.source_id} -{edge.relationship}-> {edge.target_id}")


@click.command()
@click.argument("memory_id")
@click.option(
    "-r",
    "--relationship",
    "relationships",
    multiple=True,
    help="Only these relationships; repeatable.",
)
@click.option(
    "--direction", type=click.Choice(["in", "out", "both"]), default="both", show_default=True
)
@json_option
@click.pass_context
def neighbors(
    ctx: click.Context,
    memory_id: str,
    relationships: tuple[str, ...],
    direction: str,
    as_json: bool,
) -> None:
    """Show what a memory is linked to."""
    with open_engine(ctx) as engine:
        found = engine.neighbors(memory_id, relationships, direction)
    if as_json:
        echo_json(found)
        return
    if not found:
        click.echo("no neighbors")
    for item in found:
        arrow = (
            f"-{item['relationship']}->"
            if item["direction"] == "out"
            else (f"<-{item['relationship']}-")
        )
        mark = _replaced_mark(item.get("memory"))
        click.echo(f"{arrow} {item['node_id']}  {_short(item['name'], 80)}{mark}")
