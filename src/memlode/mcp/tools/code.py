"""Code intelligence tools: index a codebase, search its symbols and code, walk dependencies
and impact, read the PageRank repo map, clusters and cross-repo links.

Thin adapters over :mod:`memlode.engine.codeintel`, the functions the ``memlode index``,
``symbols``, ``map``, ``impact`` and ``graph`` commands call, so both interfaces answer alike.
tree-sitter and igraph load on the first call that needs them, not at server start.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import Field

from memlode.errors import NotFound
from memlode.mcp.context import ToolContext
from memlode.mcp.params import IDEMPOTENT_WRITE, MAX_ID_CHARS, READ_ONLY, ReadNamespace
from memlode.mcp.render import respond, short
from memlode.mcp.tools._code_schema import (
    CentralNodeOut,
    ClusterOut,
    ClustersOut,
    CodeHitOut,
    CodeSearchOut,
    CrossRepoLinkOut,
    CrossRepoOut,
    IndexOut,
    Kind,
    Limit,
    OneNamespace,
    PageRankOut,
    Query,
    RepoMapOut,
    SymbolHitOut,
    SymbolInfoOut,
    SymbolKind,
    SymbolRef,
    SymbolsOut,
    WalkOut,
)

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["register"]

T = TypeVar("T")


def _call(ctx: ToolContext, fn: Callable[[Engine], T], *, writes: bool = False) -> T:
    """``ctx.run`` with a "not found" that points at the code tools, not at memory ids."""

    def guarded(engine: Engine) -> T:
        try:
            return fn(engine)
        except NotFound as exc:
            raise ToolError(
                f"{exc}. search_symbols finds symbols; index_codebase indexes a project."
            ) from exc

    return ctx.run(guarded, writes=writes)


def _shown(engine: Engine, namespace: str | None) -> str:
    resolved = engine.resolve_namespace(namespace)
    return "*" if resolved is None else resolved


def _walk_out(result: dict[str, Any]) -> WalkOut:
    return WalkOut.model_validate(result)


def _walk_text(title: str, out: WalkOut, empty: str) -> str:
    sym = out.symbol
    head = f"{title} {sym.qualified_name} ({sym.kind}, {sym.path}:{sym.line})" if sym else title
    if not out.hits:
        return f"{head}: {empty}"
    lines = [f"{head}, {len(out.hits)} nodes:"]
    for hit in out.hits:
        lines.append(
            f"{'  ' * hit.depth}{hit.relationship} {hit.name} ({hit.kind}) "
            f"{hit.path}:{hit.line} pagerank={hit.pagerank:.5f} [{hit.node_id}]"
        )
    if out.truncated:
        lines.append("(truncated)")
    return "\n".join(lines)


def _symbol_lines(hits: list[SymbolHitOut] | list[CodeHitOut]) -> list[str]:
    lines: list[str] = []
    for i, hit in enumerate(hits, start=1):
        lines.append(
            f"{i}. {hit.kind} {hit.qualified_name}  {hit.path}:{hit.line}  "
            f"score={hit.score:.3f} [{hit.node_id}]"
        )
        if hit.signature:
            lines.append(f"    {short(hit.signature, 160)}")
        if hit.doc:
            lines.append(f"    {short(hit.doc, 160)}")
    return lines


def _central_line(node: CentralNodeOut) -> str:
    where = f"  {node.path}" if node.path else ""
    return f"{node.pagerank:.5f}  {node.kind} {node.name}{where} [{node.node_id}]"


# ---- tools ------------------------------------------------------------------------------------


def register(server: MCPServer[Any], ctx: ToolContext) -> None:
    project = ctx.namespace_label

    @server.tool(
        annotations=IDEMPOTENT_WRITE,
        description=(
            "Index (or re-index) a codebase's symbols and references with tree-sitter, so that "
            "the other code tools can answer. Incremental: unchanged files are skipped. "
            f"Default: this project ({project})."
        ),
    )
    def index_codebase(
        path: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=4096,
                description="Folder to index (absolute, or relative to the server's folder); "
                "default: the current project's root",
            ),
        ] = None,
        exclude: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=500)]] | None,
            Field(max_length=100, description="Glob patterns of paths to skip"),
        ] = None,
    ) -> Annotated[CallToolResult, IndexOut]:
        from memlode.engine import codeintel

        def call(engine: Engine) -> IndexOut:
            stats = codeintel.index(engine, path, exclude=exclude or (), cwd=ctx.cwd)
            return IndexOut.model_validate(stats)

        out = _call(ctx, call, writes=True)
        return respond(
            out,
            f"indexed {out.root} into namespace {out.namespace}: {out.files} files, "
            f"{out.symbols} symbols, {out.references} references ({out.resolved} resolved); "
            f"{out.parsed} parsed, {out.unchanged} unchanged, {out.deleted} deleted "
            f"in {out.seconds:.2f} s",
        )

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Find definitions (functions, classes, methods, types, ...) by name, dotted path or "
            "a question in words, best first. Same ranking as `memlode symbols`."
        ),
    )
    def search_symbols(
        query: Query,
        kind: Kind = None,
        limit: Limit = 20,
        namespace: ReadNamespace = None,
    ) -> Annotated[CallToolResult, SymbolsOut]:
        from memlode.engine import codeintel

        def call(engine: Engine) -> SymbolsOut:
            hits = codeintel.search_symbols(
                engine, query, kind=kind, limit=limit, namespace=namespace
            )
            return SymbolsOut(
                query=query,
                namespace=_shown(engine, namespace),
                hits=[SymbolHitOut.model_validate(h) for h in hits],
            )

        out = _call(ctx, call)
        if not out.hits:
            return respond(out, f"no symbols match {query!r} in namespace {out.namespace}")
        text = f"{len(out.hits)} symbols for {query!r}:\n" + "\n".join(_symbol_lines(out.hits))
        return respond(out, text)

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Search the code and read it: like search_symbols, each hit with its definition's "
            "source text. Use it to answer 'how does X work' without opening files."
        ),
    )
    def search_code(
        query: Query,
        kind: Kind = None,
        limit: Annotated[int, Field(ge=1, le=20, description="How many definitions")] = 5,
        namespace: ReadNamespace = None,
    ) -> Annotated[CallToolResult, CodeSearchOut]:
        from memlode.engine import codeintel

        def call(engine: Engine) -> CodeSearchOut:
            hits = codeintel.search_code(engine, query, kind=kind, limit=limit, namespace=namespace)
            return CodeSearchOut(
                query=query,
                namespace=_shown(engine, namespace),
                hits=[CodeHitOut.model_validate(h) for h in hits],
            )

        out = _call(ctx, call)
        if not out.hits:
            return respond(out, f"no code matches {query!r} in namespace {out.namespace}")
        blocks = [f"{len(out.hits)} definitions for {query!r}:"]
        for i, hit in enumerate(out.hits, start=1):
            blocks.append(
                f"{i}. {hit.kind} {hit.qualified_name}  {hit.path}:{hit.line}-{hit.end_line} "
                f"[{hit.node_id}]"
            )
            blocks.append(hit.code + ("\n    ..." if hit.code_truncated else ""))
        return respond(out, "\n".join(blocks))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "One symbol in full: signature, doc, location, PageRank, and its direct callers, "
            "callees and members."
        ),
    )
    def get_symbol_info(
        symbol: SymbolRef, namespace: OneNamespace = None
    ) -> Annotated[CallToolResult, SymbolInfoOut]:
        from memlode.engine import codeintel

        def call(engine: Engine) -> SymbolInfoOut:
            info = codeintel.symbol_info(engine, symbol, namespace=namespace)
            for key in ("callers", "callees", "members"):
                info[key] = [
                    {"node_id": n, "name": name, "relationship": rel} for n, name, rel in info[key]
                ]
            return SymbolInfoOut.model_validate(info)

        out = _call(ctx, call)
        lines = [
            f"{out.kind} {out.qualified_name}  {out.path}:{out.line}-{out.end_line} "
            f"({out.visibility}, pagerank={out.pagerank:.5f}) [{out.node_id}]"
        ]
        if out.signature:
            lines.append(f"  {out.signature}")
        if out.doc:
            lines.append(f"  {short(out.doc, 300)}")
        for label, links in (("used by", out.callers), ("uses", out.callees)):
            if links:
                lines.append(
                    f"{label}: " + ", ".join(f"{x.name} ({x.relationship})" for x in links)
                )
        if out.members:
            lines.append("members: " + ", ".join(x.name for x in out.members))
        return respond(out, "\n".join(lines))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "What a symbol depends on: what it calls, imports, inherits from, transitively up "
            "to `depth` hops, nearest first."
        ),
    )
    def get_dependencies(
        symbol: SymbolRef,
        depth: Annotated[int, Field(ge=1, le=10, description="How many hops to follow")] = 1,
        namespace: OneNamespace = None,
    ) -> Annotated[CallToolResult, WalkOut]:
        from memlode.engine import codeintel

        out = _call(
            ctx,
            lambda engine: _walk_out(
                codeintel.dependencies(engine, symbol, depth=depth, namespace=namespace)
            ),
        )
        return respond(out, _walk_text("dependencies of", out, "depends on nothing indexed"))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Impact analysis: what would notice a change to a symbol (its callers, importers, "
            "subclasses), transitively up to `depth` hops, each with its PageRank."
        ),
    )
    def get_impact(
        symbol: SymbolRef,
        depth: Annotated[int, Field(ge=1, le=10, description="How many hops to follow")] = 3,
        namespace: OneNamespace = None,
    ) -> Annotated[CallToolResult, WalkOut]:
        from memlode.engine import codeintel

        out = _call(
            ctx,
            lambda engine: _walk_out(
                codeintel.impact(engine, symbol, depth=depth, namespace=namespace)
            ),
        )
        return respond(out, _walk_text("impact of", out, "nothing depends on it"))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "The most central nodes of the project's graph by PageRank (code symbols, files, "
            "packages, memories): the code everything else leans on."
        ),
    )
    def get_pagerank(
        kind: Annotated[
            SymbolKind | Literal["memory"] | None,
            Field(description="Only nodes of this kind; default: every kind"),
        ] = None,
        limit: Limit = 20,
        namespace: OneNamespace = None,
    ) -> Annotated[CallToolResult, PageRankOut]:
        from memlode.engine import codeintel

        def call(engine: Engine) -> PageRankOut:
            nodes = codeintel.pagerank(engine, kind=kind, limit=limit, namespace=namespace)
            return PageRankOut(
                namespace=_shown(engine, namespace),
                kind=kind,
                nodes=[CentralNodeOut.model_validate(n) for n in nodes],
            )

        out = _call(ctx, call)
        if not out.nodes:
            return respond(out, f"no ranked nodes in namespace {out.namespace}")
        lines = [f"top {len(out.nodes)} nodes by PageRank in {out.namespace}:"]
        lines += [_central_line(n) for n in out.nodes]
        return respond(out, "\n".join(lines))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Communities of the project's graph (Leiden): groups of code and memories that "
            "belong together, largest first, each with its most central members."
        ),
    )
    def get_clusters(
        limit: Annotated[int, Field(ge=1, le=100, description="How many communities")] = 10,
        members: Annotated[int, Field(ge=1, le=50, description="Members shown for each")] = 8,
        namespace: OneNamespace = None,
    ) -> Annotated[CallToolResult, ClustersOut]:
        from memlode.engine import codeintel

        def call(engine: Engine) -> ClustersOut:
            groups = codeintel.clusters(engine, limit=limit, members=members, namespace=namespace)
            return ClustersOut(
                namespace=_shown(engine, namespace),
                clusters=[ClusterOut.model_validate(g) for g in groups],
            )

        out = _call(ctx, call)
        if not out.clusters:
            return respond(out, f"no communities in namespace {out.namespace}")
        lines = [f"{len(out.clusters)} communities in {out.namespace}:"]
        for group in out.clusters:
            names = ", ".join(m.name for m in group.members)
            lines.append(f"cluster {group.cluster} ({group.size} nodes): {names}")
        return respond(out, "\n".join(lines))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Dependencies between indexed projects: which project's package depends on "
            "another's, from manifests or imports found in the code."
        ),
    )
    def get_cross_repo(
        namespace: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=MAX_ID_CHARS,
                description="Only links from or to this namespace; default: every link",
            ),
        ] = None,
    ) -> Annotated[CallToolResult, CrossRepoOut]:
        from memlode.engine import codeintel

        def call(engine: Engine) -> CrossRepoOut:
            links = [CrossRepoLinkOut.model_validate(x) for x in codeintel.cross_repo(engine)]
            if namespace is not None:
                links = [x for x in links if namespace in (x.source_namespace, x.target_namespace)]
            return CrossRepoOut(links=links)

        out = _call(ctx, call)
        if not out.links:
            return respond(out, "no dependencies between indexed projects")
        lines = [
            f"{x.source_namespace}:{x.source_package} -> {x.target_namespace}:{x.target_package}"
            f" via {x.via}" + (f" ({', '.join(x.modules)})" if x.modules else "")
            for x in out.links
        ]
        return respond(out, "\n".join(lines))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "The repo map: the project's most important files, each with its key definitions' "
            "signatures, ranked by PageRank around recently edited and `focus` files, fitted "
            "to a token budget. Read it first to orient in an unfamiliar codebase."
        ),
    )
    def get_repo_map(
        tokens: Annotated[
            int, Field(ge=64, le=16_000, description="Token budget of the map")
        ] = 1024,
        focus: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=4096)]] | None,
            Field(max_length=50, description="Files to center the map on (paths or tails)"),
        ] = None,
        namespace: OneNamespace = None,
    ) -> Annotated[CallToolResult, RepoMapOut]:
        from memlode.engine import codeintel

        out = _call(
            ctx,
            lambda engine: RepoMapOut.model_validate(
                codeintel.repo_map(
                    engine, tokens=tokens, focus=focus or (), namespace=namespace, cwd=ctx.cwd
                )
            ),
        )
        return respond(out, out.text or f"the map of {out.namespace} is empty")
