"""Code intelligence as a user names it: index a project, search symbols, map, impact, graph.

L3: composes the engine (store, namespace) with ``memlode.code`` (tree-sitter index, symbol
search, repo map, impact) and ``memlode.graph`` (centrality cache). Every interface calls these
functions, so ``memlode symbols`` and the MCP ``search_symbols`` tool rank identically. Results
are JSON-able dicts; errors are ``InvalidInput`` / ``NotFound`` with a message saying what to do.

Defaults: the root to index is the project root of the working directory (git top level or
nearest project marker) and the namespace is the engine's (the current project).

The repo map, its heat and the map kept for the SessionStart hook live in ``repo_map`` (which
the graph refresh in ``index_state`` calls too).

tree-sitter and igraph are imported inside the functions that need them, never at import time.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.engine.code.index_state import refresh_for_read
from memlode.engine.code.repo_map import (
    edit_heat,
    indexed_namespace,
    one_namespace,
    save_session_map,
    session_map,
)
from memlode.errors import InvalidInput, NotFound
from memlode.project import find_project_root, namespace_for_path
from memlode.storage import code_graph_rows

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = [
    "MAX_CODE_LINES",
    "clusters",
    "cross_repo",
    "dependencies",
    "impact",
    "index",
    "is_description",
    "pagerank",
    "recompute",
    "search_code",
    "search_symbols",
    "symbol_info",
]

# A description given to impact is resolved to the best of this many search hits (all are
# shown in the result's "resolved").
RESOLVE_CANDIDATES = 5
# ... and its dependants are those of the best this many, taken in turn (each says via which).
RESOLVE_ANSWERS = 3
# search_code shows at most this many lines of a definition's source (enough for a function,
# short enough that ten hits stay readable).
MAX_CODE_LINES = 40

# (phase, done, total), as memlode.code.ProgressCallback
Progress = Callable[[str, int, int], None]


# ---- namespaces and roots ---------------------------------------------------------------------


def _roots(engine: Engine, namespace: str) -> list[str]:
    return code_graph_rows.code_roots(engine.code_db.conn, namespace)


def default_root(cwd: Path | None = None) -> Path:
    """The project root of ``cwd`` (the working directory by default)."""
    here = cwd or Path.cwd()
    root = find_project_root(here)
    if root is None or root == root.parent:
        raise InvalidInput(
            f"{here} is not inside a project (no git repository or project marker); "
            "give the folder to index"
        )
    return root


# ---- indexing ---------------------------------------------------------------------------------


def index(
    engine: Engine,
    root: Path | str | None = None,
    *,
    namespace: str | None = None,
    exclude: Sequence[str] = (),
    progress: Progress | None = None,
    cwd: Path | None = None,
    embed: bool = True,
    background: bool = False,
) -> dict[str, Any]:
    """Index (incrementally) the code under ``root`` into its project's namespace, then (with
    ``embed`` and an embedder) embed its new or changed symbols for semantic search: here, or
    with ``background`` by the store's resident when one can (``handoff``; the index
    then returns before them). ``symbol_vectors`` says how many wait, and who makes them.

    Namespace: ``namespace`` when given; else, for an explicit ``root``, the key of the project
    that root belongs to (of the folder itself outside any project); else the engine's.
    """
    from memlode.code import index_project

    if root is None:
        base = default_root(cwd)
        ns = one_namespace(engine, namespace)
    else:
        base = Path(root).expanduser()
        if not base.is_absolute() and cwd is not None:
            base = cwd / base
        if not base.is_dir():
            raise InvalidInput(f"{root} is not a folder; give the project folder to index")
        base = base.resolve()
        if namespace is not None:
            ns = one_namespace(engine, namespace)
        else:
            ns = namespace_for_path(str(base))  # its project's key (the folder's own outside one)
            if not ns:
                raise InvalidInput(f"cannot name a namespace for {base}; pass one")
    from memlode.engine.code.index_state import refresh, refresh_symbol_index

    stats = index_project(
        engine.code_db, base, ns, exclude=tuple(exclude), progress=progress, centrality=False
    )
    # The steps after the commit run whenever what they derive is stale, not only when this
    # run changed files: a run killed after its commit left them undone (index_state.py).
    # A run that wrote files ("store") has linked cross-repo imports already.
    rebuilt = refresh(engine, ns, full=True, linked="store" in stats.phases, progress=progress)
    out = stats.to_dict()
    if refresh_symbol_index(engine):
        out["symbol_index_rebuilt"] = True
    if rebuilt is not None:
        stats.phases["centrality"] = rebuilt.seconds
        if "session_map_chars" in rebuilt.extra:
            out["session_map_chars"] = rebuilt.extra["session_map_chars"]
    if "session_map_chars" not in out and session_map(engine, ns) is None:
        out["session_map_chars"] = len(save_session_map(engine, ns))
    from memlode.engine.code.handoff import hand_off
    from memlode.engine.code.vectors import embed_symbols, pending_report

    handed = hand_off(engine) if embed and background else None
    if embed and engine.embeddings.enabled and (handed is None or handed["by"] is None):
        report = (lambda done, total: progress("embed", done, total)) if progress else None
        vectors = embed_symbols(engine, ns, progress=report)
        embedding = vectors.to_dict()
        if engine.embeddings.error is not None:
            embedding["error"] = engine.embeddings.error
        out["embedding"] = embedding
        stats.phases["embed"] = vectors.seconds
        # "index": this run made them (with nothing pending, only neighbours' renamings)
        by = "index" if handed is None or vectors.embedded or vectors.reused else None
        handed = {**(handed or {}), **pending_report(engine), "by": by}
    out["symbol_vectors"] = handed if handed is not None else {**pending_report(engine), "by": None}
    out["seconds"] = round(stats.seconds + (rebuilt.seconds if rebuilt else 0.0), 3)
    out["phases"] = {k: round(v, 3) for k, v in stats.phases.items()}
    return out


# ---- search -----------------------------------------------------------------------------------


def search_symbols(
    engine: Engine,
    query: str,
    *,
    kind: str | None = None,
    limit: int = 20,
    namespace: str | None = None,
    explain: bool = False,
) -> list[dict[str, Any]]:
    """Ranked symbols for a name, dotted path or question; '*' searches every namespace.

    Lexical, vector (when the namespace's symbols are embedded) and graph signals, fused by
    ``memlode.code.search``; with ``explain`` each hit says what every signal added."""
    from memlode.code import search_symbols as _search
    from memlode.engine.code.vectors import semantic_query

    if not query.strip():
        raise InvalidInput("give a symbol name or a question to search for")
    if not 1 <= limit <= 500:
        raise InvalidInput("limit must be between 1 and 500")
    kind = _check_kind(kind)
    ns = engine.resolve_namespace(namespace)
    refresh_for_read(engine, ns)
    hits = _search(
        engine.code_db,
        query,
        namespace=ns,
        kind=kind,
        limit=limit,
        semantic=semantic_query(engine, query, ns),
        heat=_relative_heat(engine, ns) if ns else None,
        explain=explain,
    )
    return [hit.to_dict() for hit in hits]


def _relative_heat(engine: Engine, namespace: str) -> dict[str, float]:
    """The recent-edit heat of the namespace's indexed files, by their stored (relative) path."""
    heat = edit_heat(engine, namespace)
    if not heat:
        return {}
    out: dict[str, float] = {}
    for root in _roots(engine, namespace):
        prefix = os.path.normpath(root) + os.sep
        for path, value in heat.items():
            if path.startswith(prefix):
                rel = path[len(prefix) :].replace(os.sep, "/")
                out[rel] = out.get(rel, 0.0) + value
    return out


def _check_kind(kind: str | None) -> str | None:
    from memlode.types import NodeKind

    if kind is None or kind == "":
        return None
    allowed = {k.value for k in NodeKind} - {"memory"}
    if kind not in allowed:
        raise InvalidInput(f"unknown kind {kind!r}; one of {', '.join(sorted(allowed))}")
    return kind


def search_code(
    engine: Engine,
    query: str,
    *,
    kind: str | None = None,
    limit: int = 5,
    namespace: str | None = None,
) -> list[dict[str, Any]]:
    """Like :func:`search_symbols`, each hit with its source text (up to MAX_CODE_LINES)."""
    hits = search_symbols(engine, query, kind=kind, limit=limit, namespace=namespace)
    if not hits:
        return hits
    ids = [h["node_id"] for h in hits]
    roots = code_graph_rows.roots_of_symbols(engine.code_db.conn, ids)
    for hit in hits:
        root = roots.get(hit["node_id"])
        hit["code"], hit["code_truncated"] = (
            _source_lines(Path(root) / hit["path"], hit["line"], hit["end_line"])
            if root
            else ("", False)
        )
    return hits


def _source_lines(path: Path, start: int, end: int) -> tuple[str, bool]:
    try:
        with path.open(encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return "", False
    end = max(end, start)
    last = min(end, start + MAX_CODE_LINES - 1)
    return "\n".join(lines[start - 1 : last]), last < end


# ---- one symbol -------------------------------------------------------------------------------


def symbol_info(engine: Engine, symbol: str, *, namespace: str | None = None) -> dict[str, Any]:
    """A symbol with its signature, doc, PageRank, callers, callees and members."""
    from memlode.code import symbol_details

    ns = indexed_namespace(engine, namespace)
    refresh_for_read(engine, ns)
    return symbol_details(engine.code_db, ns, symbol).to_dict()


def _walk_result(result: Any) -> dict[str, Any]:
    targets = [
        {
            "node_id": t.node_id,
            "name": t.name,
            "qualified_name": t.qualified_name,
            "kind": t.kind,
            "path": t.path,
            "line": t.line_start,
        }
        for t in result.targets
    ]
    return {
        "symbol": targets[0] if targets else None,
        "hits": [h.to_dict() for h in result.hits],
        "truncated": bool(result.truncated),
    }


def impact(
    engine: Engine, symbol: str, *, depth: int = 3, namespace: str | None = None
) -> dict[str, Any]:
    """What depends on ``symbol`` (reverse CALLS/IMPORTS/INHERITS/...), nearest first.

    ``symbol`` is a name, a qualified name, a node id, or a description in words ("the
    function that parses durations"): a description is resolved by symbol search, and the
    answer takes the dependants of its best RESOLVE_ANSWERS matches that anything depends on,
    in turn, each hit naming the match it depends on (``via``); ``resolved`` shows the
    search's top candidates."""
    from memlode.code import impact as _impact
    from memlode.code import impact_of_nodes

    _check_depth(depth)
    ns = indexed_namespace(engine, namespace)
    refresh_for_read(engine, ns)
    if not is_description(symbol):
        out = _walk_result(_impact(engine.code_db, ns, symbol, depth=depth))
        out["depth"] = depth
        return out
    candidates = search_symbols(engine, symbol, limit=RESOLVE_CANDIDATES, namespace=ns)
    if not candidates:
        raise NotFound(f"no symbol matches {symbol!r} in namespace {ns!r}; try `memlode symbols`")
    best = candidates[0]
    # what depends on each of the best few matches, taken in turn (a description rarely picks
    # one symbol for sure: on the tune half of the code-search evaluation, the dependants of
    # the best match alone held an expected caller in their first ten for 8 of 17 questions,
    # those of the best three taken in turn for 12); a match nothing depends on is passed
    # over, since the question presumes callers (12 -> 13 of 17)
    walks = []
    for candidate in candidates:
        walk = impact_of_nodes(engine.code_db, [candidate["node_id"]], depth=depth)
        if walk.hits:
            walks.append((candidate, walk))
            if len(walks) == RESOLVE_ANSWERS:
                break
    if not walks:  # nothing depends on any match: the best one's (empty) walk
        walks = [(best, impact_of_nodes(engine.code_db, [best["node_id"]], depth=depth))]
    out = _walk_result(walks[0][1])
    out["hits"] = _interleave(walks)
    out["truncated"] = any(walk.truncated for _, walk in walks)
    out["symbol"] = {
        k: best[k] for k in ("node_id", "name", "qualified_name", "kind", "path", "line")
    }
    out["resolved"] = {
        "query": symbol,
        "candidates": [
            {"qualified_name": c["qualified_name"], "score": c["score"]} for c in candidates
        ],
    }
    out["depth"] = depth
    return out


def _interleave(walks: list[tuple[dict[str, Any], Any]]) -> list[dict[str, Any]]:
    """The walks' hits taken in turn, each once, each saying which match it depends on (the
    best match whose walk has it, nearest first: a direct caller of the best match and of the
    second is the best match's)."""
    via: dict[str, tuple[int, int, str]] = {}
    for rank, (candidate, walk) in enumerate(walks):
        for hit in walk.hits:
            claim = (hit.depth, rank, str(candidate["qualified_name"]))
            if hit.node_id not in via or claim < via[hit.node_id]:
                via[hit.node_id] = claim
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    longest = max((len(walk.hits) for _, walk in walks), default=0)
    for i in range(longest):
        for _, walk in walks:
            if i < len(walk.hits) and walk.hits[i].node_id not in seen:
                hit = walk.hits[i]
                seen.add(hit.node_id)
                depth, _, name = via[hit.node_id]
                out.append({**hit.to_dict(), "depth": depth, "via": name})
    return out


def is_description(ref: str) -> bool:
    """Whether a symbol reference is words rather than a name, dotted path or node id."""
    return len(ref.split()) > 1 and not ref.strip().startswith("sym:")


def dependencies(
    engine: Engine, symbol: str, *, depth: int = 1, namespace: str | None = None
) -> dict[str, Any]:
    """What ``symbol`` depends on (CALLS/IMPORTS/INHERITS/... forward), nearest first."""
    from memlode.code import dependencies as _dependencies

    _check_depth(depth)
    ns = indexed_namespace(engine, namespace)
    refresh_for_read(engine, ns)
    out = _walk_result(_dependencies(engine.code_db, ns, symbol, depth=depth))
    out["depth"] = depth
    return out


def _check_depth(depth: int) -> None:
    if not 1 <= depth <= 10:
        raise InvalidInput("depth must be between 1 and 10")


# ---- graph ------------------------------------------------------------------------------------


def recompute(
    engine: Engine, *, namespace: str | None = None, method: str = "leiden"
) -> dict[str, Any]:
    """Recompute and cache PageRank, betweenness, degree and community of every node of the
    namespace (code and memory nodes alike: recall's graph signal reads the memory ones)."""
    from memlode.engine.code.index_state import refresh

    if method not in ("leiden", "louvain"):
        raise InvalidInput("method must be 'leiden' or 'louvain'")
    ns = one_namespace(engine, namespace)
    run = refresh(engine, ns, force=True, method=method)
    assert run is not None  # forced
    kinds = code_graph_rows.centrality_by_kind(engine.code_db.conn, ns)
    return {
        "namespace": ns,
        "nodes": run.nodes,
        "edges": run.edges,
        "communities": run.communities,
        "memory_nodes": int(kinds.get("memory", 0)),
        "kinds": kinds,
        "method": method,
        "seconds": round(run.seconds, 3),
    }


def _fresh_namespace(engine: Engine, namespace: str | None) -> str:
    from memlode.engine.code.index_state import refresh

    ns = one_namespace(engine, namespace)
    if not code_graph_rows.has_graph(engine.code_db.conn, ns):
        raise NotFound(
            f"namespace {ns!r} has no graph yet; run `memlode index` or link memories first"
        )
    refresh(engine, ns, full=True)
    return ns


def pagerank(
    engine: Engine, *, kind: str | None = None, limit: int = 20, namespace: str | None = None
) -> list[dict[str, Any]]:
    """The namespace's most central nodes by PageRank (the cache is refreshed if stale)."""
    from memlode.code import top_central

    if not 1 <= limit <= 1000:
        raise InvalidInput("limit must be between 1 and 1000")
    if kind is not None and kind != "memory":
        kind = _check_kind(kind)
    ns = _fresh_namespace(engine, namespace)
    nodes = top_central(engine.code_db, ns, kinds=(kind,) if kind else (), limit=limit)
    return [n.to_dict() for n in nodes]


def clusters(
    engine: Engine, *, limit: int = 20, members: int = 8, namespace: str | None = None
) -> list[dict[str, Any]]:
    """The largest communities of the namespace's graph, each with its most central members."""
    from memlode.code import clusters as _clusters

    if not 1 <= limit <= 500 or not 1 <= members <= 100:
        raise InvalidInput("limit must be 1-500 and members 1-100")
    ns = _fresh_namespace(engine, namespace)
    sizes = code_graph_rows.centrality_by_cluster(engine.code_db.conn, ns)
    out: list[dict[str, Any]] = []
    for group in _clusters(engine.code_db, ns, limit=limit, members=members):
        if not group:
            continue
        cluster = group[0].cluster
        out.append(
            {
                "cluster": cluster,
                "size": int(sizes.get(cluster, len(group))),
                "members": [n.to_dict() for n in group],
            }
        )
    return out


def cross_repo(engine: Engine, *, relink: bool = True) -> list[dict[str, Any]]:
    """Dependencies between indexed projects (manifest or import), after re-linking imports."""
    from memlode.code import cross_repo as _cross_repo
    from memlode.code import link_cross_repo

    links = link_cross_repo(engine.code_db) if relink else _cross_repo(engine.code_db)
    return [link.to_dict() for link in links]
