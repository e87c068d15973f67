"""Code intelligence tools: index a codebase, search its symbols and code, walk dependencies
and impact, read the PageRank repo map, clusters and cross-repo links.

Thin adapters over :mod:`memlode.engine.code`, the functions the ``memlode index``,
``symbols``, ``map``, ``impact`` and ``graph`` commands call, so both interfaces answer alike.
tree-sitter and igraph load on the first call that needs them, not at server start.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from memlode.mcp.params import IDEMPOTENT_WRITE, MAX_ID_CHARS, READ_ONLY, ReadNamespace
from memlode.mcp.render import short
from memlode.mcp.tooling import ToolCall, mcp_tool
from memlode.mcp.tools._code_schema import (
    CentralNodeOut,
    ClusterOut,
    ClustersOut,
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
    SymbolInfoOut,
    SymbolKind,
    SymbolRef,
    SymbolsOut,
    WalkOut,
)

__all__ = [
    "get_clusters",
    "get_cross_repo",
    "get_dependencies",
    "get_impact",
    "get_pagerank",
    "get_repo_map",
    "get_symbol_info",
    "index_codebase",
    "search_code",
    "search_symbols",
]

# Added to "not found" errors of the code tools (the default hint points at memory ids).
NOT_FOUND = "search_symbols finds symbols; index_codebase indexes a project."
Hops = Annotated[int, Field(ge=1, le=10, description="How many hops to follow")]


def _index_text(out: IndexOut) -> str:
    return (
        (
            f"indexed {out.root} into namespace {out.namespace}: {out.files} files, "
            f"{out.symbols} symbols, {out.references} references ({out.resolved} resolved); "
            f"{out.parsed} parsed, {out.unchanged} unchanged, {out.deleted} deleted "
            f"in {out.seconds:.2f} s"
        )
        + _embedding_text(getattr(out, "embedding", None))
        + _waiting_text(getattr(out, "symbol_vectors", None))
    )


def _waiting_text(vectors: Any) -> str:
    """The symbol vectors left to the store's resident, when there are any."""
    if (
        not isinstance(vectors, dict)
        or vectors.get("by") != "resident"
        or not vectors.get("pending")
    ):
        return ""
    return (
        f"; {vectors['pending']} symbol vectors are being made in the background"
        " (search by words answers meanwhile)"
    )


def _embedding_text(embedding: Any) -> str:
    if not isinstance(embedding, dict):
        return ""
    if embedding.get("error"):
        return f"; symbols not embedded: {embedding['error']}"
    return (
        f"; symbol vectors: {embedding.get('embedded', 0)} embedded, "
        f"{embedding.get('unchanged', 0)} unchanged"
    )


@mcp_tool(
    IDEMPOTENT_WRITE,
    "Index (or re-index) a codebase's symbols and references with tree-sitter, so that "
    "the other code tools can answer. Incremental: unchanged files are skipped. "
    "Default: this project ({project}).",
    text=_index_text,
    writes=True,
    not_found=NOT_FOUND,
)
def index_codebase(
    call: ToolCall,
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
    wait: Annotated[
        bool,
        Field(
            description="Also wait until every symbol has its vector (search by meaning at "
            "full strength at once; minutes on a large project). Default: return once the "
            "structure is stored; the vectors follow in the background"
        ),
    ] = False,
) -> IndexOut:
    from memlode.engine import code

    # as `memlode index [--wait]`: by default it returns once the structure is stored; the
    # symbol vectors go to the store's resident, and the tool's text says how many wait
    background = not wait
    stats = code.index(
        call.engine, path, exclude=exclude or (), cwd=call.cwd, background=background
    )
    return IndexOut.model_validate(stats)


def _symbols_text(out: SymbolsOut) -> str:
    if not out.hits:
        return f"no symbols match {out.query!r} in namespace {out.namespace}"
    lines = [f"{len(out.hits)} symbols for {out.query!r}:"]
    for i, hit in enumerate(out.hits, start=1):
        lines.append(
            f"{i}. {hit.kind} {hit.qualified_name}  {hit.path}:{hit.line}  "
            f"score={hit.score:.3f} [{hit.node_id}]"
        )
        if hit.signature:
            lines.append(f"    {short(hit.signature, 160)}")
        if hit.doc:
            lines.append(f"    {short(hit.doc, 160)}")
        if hit.signals:
            lines.append("    [" + ", ".join(f"{k} {v:g}" for k, v in hit.signals.items()) + "]")
    return "\n".join(lines)


@mcp_tool(
    READ_ONLY,
    "Find definitions (functions, classes, methods, types, ...) by name, dotted path or "
    "a question in words about what the code does, best first (words, meaning, PageRank and "
    "recent edits). Same ranking as `memlode symbols`.",
    text=_symbols_text,
    not_found=NOT_FOUND,
)
def search_symbols(
    call: ToolCall,
    query: Query,
    kind: Kind = None,
    limit: Limit = 20,
    namespace: ReadNamespace = None,
    explain: Annotated[
        bool, Field(description="Give each hit what every ranking signal added (signals)")
    ] = False,
) -> SymbolsOut:
    from memlode.engine import code

    hits = code.search_symbols(
        call.engine, query, kind=kind, limit=limit, namespace=namespace, explain=explain
    )
    return SymbolsOut.model_validate(
        {"query": query, "namespace": call.shown_namespace(namespace), "hits": hits}
    )


def _code_text(out: CodeSearchOut) -> str:
    if not out.hits:
        return f"no code matches {out.query!r} in namespace {out.namespace}"
    blocks = [f"{len(out.hits)} definitions for {out.query!r}:"]
    for i, hit in enumerate(out.hits, start=1):
        blocks.append(
            f"{i}. {hit.kind} {hit.qualified_name}  {hit.path}:{hit.line}-{hit.end_line} "
            f"[{hit.node_id}]"
        )
        blocks.append(hit.code + ("\n    ..." if hit.code_truncated else ""))
    return "\n".join(blocks)


@mcp_tool(
    READ_ONLY,
    "Search the code and read it: like search_symbols, each hit with its definition's "
    "source text. Use it to answer 'how does X work' without opening files.",
    text=_code_text,
    not_found=NOT_FOUND,
)
def search_code(
    call: ToolCall,
    query: Query,
    kind: Kind = None,
    limit: Annotated[int, Field(ge=1, le=20, description="How many definitions")] = 5,
    namespace: ReadNamespace = None,
) -> CodeSearchOut:
    from memlode.engine import code

    hits = code.search_code(call.engine, query, kind=kind, limit=limit, namespace=namespace)
    return CodeSearchOut.model_validate(
        {"query": query, "namespace": call.shown_namespace(namespace), "hits": hits}
    )


def _symbol_info_text(out: SymbolInfoOut) -> str:
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
            lines.append(f"{label}: " + ", ".join(f"{x.name} ({x.relationship})" for x in links))
    if out.members:
        lines.append("members: " + ", ".join(x.name for x in out.members))
    return "\n".join(lines)


@mcp_tool(
    READ_ONLY,
    "One symbol in full: signature, doc, location, PageRank, and its direct callers, "
    "callees and members.",
    text=_symbol_info_text,
    not_found=NOT_FOUND,
)
def get_symbol_info(
    call: ToolCall, symbol: SymbolRef, namespace: OneNamespace = None
) -> SymbolInfoOut:
    from memlode.engine import code

    info = code.symbol_info(call.engine, symbol, namespace=namespace)
    for key in ("callers", "callees", "members"):
        info[key] = [
            {"node_id": n, "name": name, "relationship": rel} for n, name, rel in info[key]
        ]
    return SymbolInfoOut.model_validate(info)


def _walk_text(title: str, empty: str) -> Any:
    def text(out: WalkOut) -> str:
        sym = out.symbol
        head = f"{title} {sym.qualified_name} ({sym.kind}, {sym.path}:{sym.line})" if sym else title
        lines = []
        if out.resolved is not None and sym is not None:
            others = [c.qualified_name for c in out.resolved.candidates[1:]]
            lines.append(
                f"{out.resolved.query!r} resolved to {sym.qualified_name}"
                + (f" (next: {', '.join(others)})" if others else "")
            )
        if not out.hits:
            return "\n".join([*lines, f"{head}: {empty}"])
        lines.append(f"{head}, {len(out.hits)} nodes:")
        for hit in out.hits:
            lines.append(
                f"{'  ' * hit.depth}{hit.relationship} {hit.name} ({hit.kind}) "
                f"{hit.path}:{hit.line} pagerank={hit.pagerank:.5f} [{hit.node_id}]"
                + (f" via {hit.via}" if hit.via else "")
            )
        if out.truncated:
            lines.append("(truncated)")
        return "\n".join(lines)

    return text


@mcp_tool(
    READ_ONLY,
    "What a symbol depends on: what it calls, imports, inherits from, transitively up "
    "to `depth` hops, nearest first.",
    text=_walk_text("dependencies of", "depends on nothing indexed"),
    not_found=NOT_FOUND,
)
def get_dependencies(
    call: ToolCall, symbol: SymbolRef, depth: Hops = 1, namespace: OneNamespace = None
) -> WalkOut:
    from memlode.engine import code

    result = code.dependencies(call.engine, symbol, depth=depth, namespace=namespace)
    return WalkOut.model_validate(result)


@mcp_tool(
    READ_ONLY,
    "Impact analysis: what would notice a change to a symbol (its callers, importers, "
    "subclasses), transitively up to `depth` hops, each with its PageRank. The symbol may be "
    "described in words ('the function that retries failed requests'): it is resolved by "
    "symbol search and the result says to what.",
    text=_walk_text("impact of", "nothing depends on it"),
    not_found=NOT_FOUND,
)
def get_impact(
    call: ToolCall, symbol: SymbolRef, depth: Hops = 3, namespace: OneNamespace = None
) -> WalkOut:
    from memlode.engine import code

    return WalkOut.model_validate(
        code.impact(call.engine, symbol, depth=depth, namespace=namespace)
    )


def _central_line(node: CentralNodeOut) -> str:
    where = f"  {node.path}" if node.path else ""
    return f"{node.pagerank:.5f}  {node.kind} {node.name}{where} [{node.node_id}]"


def _pagerank_text(out: PageRankOut) -> str:
    if not out.nodes:
        return f"no ranked nodes in namespace {out.namespace}"
    lines = [f"top {len(out.nodes)} nodes by PageRank in {out.namespace}:"]
    return "\n".join(lines + [_central_line(n) for n in out.nodes])


@mcp_tool(
    READ_ONLY,
    "The most central nodes of the project's graph by PageRank (code symbols, files, "
    "packages, memories): the code everything else leans on.",
    text=_pagerank_text,
    not_found=NOT_FOUND,
)
def get_pagerank(
    call: ToolCall,
    kind: Annotated[
        SymbolKind | Literal["memory"] | None,
        Field(description="Only nodes of this kind; default: every kind"),
    ] = None,
    limit: Limit = 20,
    namespace: OneNamespace = None,
) -> PageRankOut:
    from memlode.engine import code

    nodes = code.pagerank(call.engine, kind=kind, limit=limit, namespace=namespace)
    return PageRankOut(
        namespace=call.shown_namespace(namespace),
        kind=kind,
        nodes=[CentralNodeOut.model_validate(n) for n in nodes],
    )


def _clusters_text(out: ClustersOut) -> str:
    if not out.clusters:
        return f"no communities in namespace {out.namespace}"
    lines = [f"{len(out.clusters)} communities in {out.namespace}:"]
    for group in out.clusters:
        names = ", ".join(m.name for m in group.members)
        lines.append(f"cluster {group.cluster} ({group.size} nodes): {names}")
    return "\n".join(lines)


@mcp_tool(
    READ_ONLY,
    "Communities of the project's graph (Leiden): groups of code and memories that "
    "belong together, largest first, each with its most central members.",
    text=_clusters_text,
    not_found=NOT_FOUND,
)
def get_clusters(
    call: ToolCall,
    limit: Annotated[int, Field(ge=1, le=100, description="How many communities")] = 10,
    members: Annotated[int, Field(ge=1, le=50, description="Members shown for each")] = 8,
    namespace: OneNamespace = None,
) -> ClustersOut:
    from memlode.engine import code

    groups = code.clusters(call.engine, limit=limit, members=members, namespace=namespace)
    return ClustersOut(
        namespace=call.shown_namespace(namespace),
        clusters=[ClusterOut.model_validate(g) for g in groups],
    )


def _cross_repo_text(out: CrossRepoOut) -> str:
    if not out.links:
        return "no dependencies between indexed projects"
    return "\n".join(
        f"{x.source_namespace}:{x.source_package} -> {x.target_namespace}:{x.target_package}"
        f" via {x.via}" + (f" ({', '.join(x.modules)})" if x.modules else "")
        for x in out.links
    )


@mcp_tool(
    READ_ONLY,
    "Dependencies between indexed projects: which project's package depends on "
    "another's, from manifests or imports found in the code.",
    text=_cross_repo_text,
    not_found=NOT_FOUND,
)
def get_cross_repo(
    call: ToolCall,
    namespace: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=MAX_ID_CHARS,
            description="Only links from or to this namespace; default: every link",
        ),
    ] = None,
) -> CrossRepoOut:
    from memlode.engine import code

    links = [CrossRepoLinkOut.model_validate(x) for x in code.cross_repo(call.engine)]
    if namespace is not None:
        links = [x for x in links if namespace in (x.source_namespace, x.target_namespace)]
    return CrossRepoOut(links=links)


@mcp_tool(
    READ_ONLY,
    "The repo map: the project's most important files, each with its key definitions' "
    "signatures, ranked by PageRank around recently edited and `focus` files, fitted "
    "to a token budget. Read it first to orient in an unfamiliar codebase.",
    text=lambda out: out.text or f"the map of {out.namespace} is empty",
    not_found=NOT_FOUND,
)
def get_repo_map(
    call: ToolCall,
    tokens: Annotated[int, Field(ge=64, le=16_000, description="Token budget of the map")] = 1024,
    focus: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=4096)]] | None,
        Field(max_length=50, description="Files to center the map on (paths or tails)"),
    ] = None,
    namespace: OneNamespace = None,
) -> RepoMapOut:
    from memlode.engine import code

    result = code.repo_map(
        call.engine, tokens=tokens, focus=focus or (), namespace=namespace, cwd=call.cwd
    )
    return RepoMapOut.model_validate(result)
