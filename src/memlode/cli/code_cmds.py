"""Code intelligence commands: ``index``, ``symbols``, ``map``, ``impact`` and ``graph``.

Thin adapters over :mod:`memlode.engine.code` (the MCP code tools call the same functions).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from memlode import validate
from memlode.cli.common import echo_json, json_option, namespace_option, open_engine

_PHASES = {
    "parse": "parsing",
    "store": "storing",
    "centrality": "centrality",
    "embed": "embedding",
}


class _Bar:
    """A click progress bar on stderr, one per phase of the index run."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._phase = ""
        self._done = 0

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase != self._phase:
            self.close()
            self._phase = phase
            self._done = 0
            self._bar = click.progressbar(
                length=max(total, 1),
                label=f"{_PHASES.get(phase, phase):<10}",
                file=sys.stderr,
                show_pos=phase in ("parse", "embed"),
            )
            self._bar.__enter__()
        if self._bar is not None and done > self._done:
            self._bar.update(done - self._done)
            self._done = done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


@click.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option(
    "--exclude",
    multiple=True,
    metavar="GLOB",
    help="Skip paths matching GLOB (repeatable), beside .gitignore and vendored code.",
)
@click.option(
    "--no-embed",
    is_flag=True,
    help="Skip embedding the symbols (semantic code search then waits for `memlode embed`).",
)
@click.option(
    "--wait",
    is_flag=True,
    help="Embed the new or changed symbols here, with a progress bar, and return when all "
    "have their vector (default: the store's resident process embeds them in the background).",
)
@namespace_option
@json_option
@click.pass_context
def index(
    ctx: click.Context,
    directory: str | None,
    exclude: tuple[str, ...],
    no_embed: bool,
    wait: bool,
    namespace: str | None,
    as_json: bool,
) -> None:
    """Index the code under DIRECTORY (default: the current project) for symbols and maps.

    Incremental: unchanged files are skipped, changed ones re-parsed, deleted ones dropped.
    Returns when symbols, references, the graph and the repo map are stored; the new or
    changed symbols' vectors (semantic code search; unchanged ones are never embedded again)
    are then made by the store's resident process, started if none runs ([resident]
    autostart), while symbol search answers on text. --wait embeds them here first.
    """
    from memlode.engine import code

    if wait and no_embed:
        raise click.UsageError("--wait and --no-embed exclude each other")
    bar = _Bar() if sys.stderr.isatty() and not as_json else None
    with open_engine(ctx) as engine:
        try:
            stats = code.index(
                engine,
                directory,
                namespace=namespace,
                exclude=exclude,
                progress=bar,
                embed=not no_embed,
                background=not wait,
            )
        finally:
            if bar is not None:
                bar.close()
    if as_json:
        echo_json(stats)
        return
    click.echo(
        f"indexed {stats['root']} into namespace {stats['namespace']}: "
        f"{stats['files']} files, {stats['symbols']} symbols, {stats['references']} references "
        f"({stats['resolved']} resolved), {stats['packages']} packages in {stats['seconds']:.2f} s"
    )
    click.echo(
        f"  {stats['parsed']} parsed, {stats['unchanged']} unchanged (skipped), "
        f"{stats['deleted']} deleted, {stats['skipped']} not code (binary, generated, unreadable)"
    )
    vectors = stats.get("embedding")
    if vectors:
        if vectors.get("error"):
            click.echo(f"  symbols not embedded: {vectors['error']}")
        else:
            click.echo(
                f"  symbol vectors ({vectors['model']}): {vectors['embedded']} embedded, "
                f"{vectors['unchanged']} unchanged, {vectors['reused']} reused, "
                f"{vectors['skipped']} test symbols skipped in {vectors['seconds']:.2f} s"
            )
    _echo_pending(stats["symbol_vectors"])


def _echo_pending(state: dict[str, Any]) -> None:
    """Who makes the symbol vectors still pending (``memlode.engine.code.handoff``)."""
    if not state["pending"]:
        return
    waiting = f"  symbol vectors: {state['pending']} of {state['symbols']} symbols wait"
    if state["by"] == "resident":
        started = ", started now" if state.get("started") else ""
        click.echo(
            f"{waiting}; the resident process (pid {state.get('resident_pid')}{started}) "
            "embeds them in the background"
        )
        click.echo(
            "  symbol search answers on text meanwhile; `memlode doctor` shows what is left, "
            "`memlode index --wait` waits for them"
        )
    else:
        click.echo(f"{waiting}; `memlode embed` or `memlode index --wait` embeds them")


@click.command()
@click.argument("query")
@click.option("-k", "--kind", default=None, help="Only this kind (function, class, method, ...).")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 500))
@click.option("--explain", is_flag=True, help="Show what each ranking signal added.")
@namespace_option
@json_option
@click.pass_context
def symbols(
    ctx: click.Context,
    query: str,
    kind: str | None,
    limit: int,
    explain: bool,
    namespace: str | None,
    as_json: bool,
) -> None:
    """Search indexed symbols by name, dotted path or a question in words, best first.

    Ranked by the words of the name, doc and signature, by meaning (the symbols' vectors, once
    embedded), by PageRank and by recent edits; --explain shows each part."""
    from memlode.engine import code

    validate.utf8_text(query, "the query")
    with open_engine(ctx) as engine:
        hits = code.search_symbols(
            engine, query, kind=kind, limit=limit, namespace=namespace, explain=explain
        )
    if as_json:
        echo_json(hits)
        return
    if not hits:
        click.echo(f"no symbols match {query!r}", err=True)
        return
    for hit in hits:
        click.echo(
            f"{hit['score']:7.3f}  {hit['kind']:<9} {hit['qualified_name']}  "
            f"{hit['path']}:{hit['line']}"
        )
        if hit["signature"]:
            click.echo(f"         {hit['signature']}")
        if explain and hit.get("signals"):
            parts = ", ".join(f"{k} {v:g}" for k, v in hit["signals"].items())
            click.echo(f"         [{parts}]")


@click.command("map")
@click.option("--tokens", default=1024, show_default=True, type=click.IntRange(64, 100_000))
@click.option(
    "--focus",
    multiple=True,
    metavar="FILE",
    help="Rank the map around FILE (repeatable), as if just edited.",
)
@click.option("--no-heat", is_flag=True, help="Ignore the files edited recently.")
@namespace_option
@json_option
@click.pass_context
def map_(
    ctx: click.Context,
    tokens: int,
    focus: tuple[str, ...],
    no_heat: bool,
    namespace: str | None,
    as_json: bool,
) -> None:
    """The repo map: important files and their key definitions, within a token budget.

    Ranked by PageRank over the reference graph, personalised by the files edited recently
    (as the Claude Code hooks saw them) and by --focus files.
    """
    from memlode.engine import code

    with open_engine(ctx) as engine:
        result = code.repo_map(
            engine, tokens=tokens, focus=focus, namespace=namespace, heat=not no_heat
        )
    if as_json:
        echo_json(result)
        return
    click.echo(result["text"].rstrip("\n"))


@click.command()
@click.argument("symbol")
@click.option("--depth", default=3, show_default=True, type=click.IntRange(1, 10))
@namespace_option
@json_option
@click.pass_context
def impact(
    ctx: click.Context, symbol: str, depth: int, namespace: str | None, as_json: bool
) -> None:
    """What depends on SYMBOL (callers, importers, subclasses), transitively to --depth.

    SYMBOL is a name, a qualified name, or a description in words ("the function that parses
    the config"): a description is resolved to the best match of `memlode symbols`."""
    from memlode.engine import code

    validate.utf8_text(symbol, "the symbol")
    with open_engine(ctx) as engine:
        result = code.impact(engine, symbol, depth=depth, namespace=namespace)
    if as_json:
        echo_json(result)
        return
    target = result["symbol"]
    resolved = result.get("resolved")
    if resolved:
        others = ", ".join(c["qualified_name"] for c in resolved["candidates"][1:])
        click.echo(f"{symbol!r} resolved to {target['qualified_name']}" + (
            f" (next: {others})" if others else ""))  # fmt: skip
    click.echo(f"impact of {target['qualified_name']} ({target['kind']}, {target['path']}):")
    if not result["hits"]:
        click.echo("  nothing depends on it")
    for hit in result["hits"]:
        indent = "  " * hit["depth"]
        via = f"  (via {hit['via']})" if hit.get("via") else ""
        click.echo(
            f"{indent}{hit['relationship']:<10} {hit['name']} ({hit['kind']}) "
            f"{hit['path']}:{hit['line']}  pagerank={hit['pagerank']:.5f}{via}"
        )
    if result["truncated"]:
        click.echo("  (truncated)")


@click.group()
def graph() -> None:
    """Graph algorithms over the namespace's code and memory graph."""


@graph.command("recompute")
@click.option(
    "--method",
    type=click.Choice(["leiden", "louvain"]),
    default="leiden",
    show_default=True,
    help="Community detection method.",
)
@namespace_option
@json_option
@click.pass_context
def graph_recompute(ctx: click.Context, method: str, namespace: str | None, as_json: bool) -> None:
    """Recompute and cache PageRank, betweenness, degree and communities (code and memories)."""
    from memlode.engine import code

    with open_engine(ctx) as engine:
        run = code.recompute(engine, namespace=namespace, method=method)
    if as_json:
        echo_json(run)
        return
    click.echo(
        f"namespace {run['namespace']}: {run['nodes']} nodes ({run['memory_nodes']} memories), "
        f"{run['edges']} edges, {run['communities']} communities in {run['seconds']:.2f} s"
    )


@graph.command("cross-repo")
@json_option
@click.pass_context
def graph_cross_repo(ctx: click.Context, as_json: bool) -> None:
    """Dependencies between indexed projects (from manifests and imports)."""
    from memlode.engine import code

    with open_engine(ctx) as engine:
        links = code.cross_repo(engine)
    if as_json:
        echo_json(links)
        return
    if not links:
        click.echo("no dependencies between indexed projects")
    for link in links:
        modules = f" ({', '.join(link['modules'])})" if link.get("modules") else ""
        click.echo(
            f"{link['source_namespace']}:{link['source_package']} -> "
            f"{link['target_namespace']}:{link['target_package']} via {link['via']}{modules}"
        )


@graph.command("clusters")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 500))
@click.option("--members", default=8, show_default=True, type=click.IntRange(1, 100))
@namespace_option
@json_option
@click.pass_context
def graph_clusters(
    ctx: click.Context, limit: int, members: int, namespace: str | None, as_json: bool
) -> None:
    """The largest communities of the graph, with their most central members."""
    from memlode.engine import code

    with open_engine(ctx) as engine:
        groups = code.clusters(engine, limit=limit, members=members, namespace=namespace)
    if as_json:
        echo_json(groups)
        return
    for group in groups:
        names = ", ".join(m["name"] for m in group["members"])
        click.echo(f"cluster {group['cluster']} ({group['size']} nodes): {names}")


@graph.command("pagerank")
@click.option("-k", "--kind", default=None, help="Only this node kind (file, class, memory, ...).")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@namespace_option
@json_option
@click.pass_context
def graph_pagerank(
    ctx: click.Context, kind: str | None, limit: int, namespace: str | None, as_json: bool
) -> None:
    """The most central nodes by PageRank."""
    from memlode.engine import code

    with open_engine(ctx) as engine:
        nodes = code.pagerank(engine, kind=kind, limit=limit, namespace=namespace)
    if as_json:
        echo_json(nodes)
        return
    for node in nodes:
        where = f"  {node['path']}" if node["path"] else ""
        click.echo(f"{node['pagerank']:.5f}  {node['kind']:<9} {node['name']}{where}")


def _node_line(node: dict[str, Any]) -> str:
    where = f"  {node['path']}:{node['line']}" if node["path"] and node["kind"] != "file" else ""
    return f"{node['kind']:<9} {node['name'] if node['kind'] != 'file' else node['path']}{where}"


@graph.command("path")
@click.argument("source")
@click.argument("target")
@click.option("--undirected", is_flag=True, help="Follow edges both ways (related, not used).")
@namespace_option
@json_option
@click.pass_context
def graph_path(
    ctx: click.Context,
    source: str,
    target: str,
    undirected: bool,
    namespace: str | None,
    as_json: bool,
) -> None:
    """The shortest chain of dependencies from SOURCE to TARGET (symbols or files)."""
    from memlode.engine import code

    with open_engine(ctx) as engine:
        found = code.path(engine, source, target, undirected=undirected, namespace=namespace)
    if as_json:
        echo_json(found)
        return
    if not found["reachable"]:
        click.echo(f"no path from {found['source']} to {found['target']}")
        return
    click.echo(f"{found['hops']} hop(s):")
    for step in found["path"]:
        via = f"-{step['via']}-> " if step.get("via") else ""
        click.echo(f"  {via}{_node_line(step)}")


@graph.command("components")
@click.option("--strong", is_flag=True, help="Strongly connected: the dependency cycles.")
@click.option("--level", type=click.Choice(["file", "symbol"]), default="file", show_default=True)
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@namespace_option
@json_option
@click.pass_context
def graph_components(
    ctx: click.Context,
    strong: bool,
    level: str,
    limit: int,
    namespace: str | None,
    as_json: bool,
) -> None:
    """Connected components of the dependency graph, largest first (--strong: cycles)."""
    from memlode.engine import code

    with open_engine(ctx) as engine:
        found = code.components(
            engine, strong=strong, level=level, limit=limit, namespace=namespace
        )
    if as_json:
        echo_json(found)
        return
    what = "dependency cycles" if strong else "components"
    click.echo(f"{found['total']} {what} of {level}s")
    for group in found["components"]:
        names = ", ".join(m["path"] if level == "file" else m["name"] for m in group["members"])
        click.echo(f"  {group['size']}: {names}")


@graph.command("layers")
@click.option("--level", type=click.Choice(["file", "symbol"]), default="file", show_default=True)
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 1000))
@namespace_option
@json_option
@click.pass_context
def graph_layers(
    ctx: click.Context, level: str, limit: int, namespace: str | None, as_json: bool
) -> None:
    """Dependency layers: layer 0 uses no other code of the project, each next uses only
    layers below it (a cycle shares a layer)."""
    from memlode.engine import code

    with open_engine(ctx) as engine:
        found = code.layers(engine, level=level, limit=limit, namespace=namespace)
    if as_json:
        echo_json(found)
        return
    for layer in found["layers"]:
        names = ", ".join(m["path"] if level == "file" else m["name"] for m in layer["members"])
        more = layer["size"] - len(layer["members"])
        click.echo(
            f"layer {layer['layer']} ({layer['size']}): {names}" + (f", +{more}" if more else "")
        )
