"""What the dashboard (``memlode viz``) shows beyond the facade's calls: a sorted browser of
memories, a memory's detail, the graph laid out for drawing, a 2-D projection of the vectors,
the session timeline, the code overview and a health report.

L3 beside the facade: validates what a request asks, reads through ``memlode.storage.dashboard``
and the other repositories, and returns plain dicts ready for JSON. Its search is the facade's
``Engine.search``, called by the dashboard with the CLI's parameters, so the ranking is the one
``memlode search`` prints.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memlode import validate
from memlode.errors import InvalidInput, MemlodeError, NotFound
from memlode.storage import dashboard as rows
from memlode.storage import graph as graph_repo
from memlode.storage.graph_state import fingerprint_rows
from memlode.storage.values import PROMPT_TAG
from memlode.types import Relationship

if TYPE_CHECKING:
    from memlode.engine.facade import Engine

__all__ = [
    "GRAPH_LIMIT",
    "PROJECTION_LIMIT",
    "browse",
    "change_mark",
    "code_overview",
    "data_version",
    "graph_fingerprint",
    "graph_view",
    "health_report",
    "memory_detail",
    "node_neighbors",
    "projection",
    "search_mode",
    "session_timeline",
]

# The graph view draws at most this many nodes (the most central): 5,000 stays fluid on a
# canvas; more is a hairball nobody reads.
GRAPH_LIMIT = 5000
# Points of the embedding projection (the newest embedded memories).
PROJECTION_LIMIT = 10_000
# Edges that tell a memory's story: what it evolved from and into, what replaced it.
HISTORY_RELATIONSHIPS = (
    Relationship.EVOLVED_INTO,
    Relationship.SUPERSEDES,
    Relationship.DERIVED_FROM,
    Relationship.INVALIDATED_BY,
    Relationship.PRECEDED_BY,
)
HOOK_LOG_LINES = 20
HOOK_TIMING_LINES = 5000  # the newest hook runs the Health page summarises
# Tags of the prompts the UserPromptSubmit hook stores (a prompt, or an instruction it holds).
PROMPT_TAGS = (PROMPT_TAG, "instruction")


def browse(
    engine: Engine,
    *,
    namespace: str | None = None,
    memory_types: str | None = None,
    tags: str | None = None,
    sources: Sequence[str] = (),
    since: str | None = None,
    until: str | None = None,
    sort: str = "newest",
    limit: int = 50,
    offset: int = 0,
) -> dict[str, Any]:
    """One page of memories in ``sort`` order with the number that match the filters."""
    if sort not in rows.SORT_COLUMNS:
        raise InvalidInput(f"sort must be one of {', '.join(rows.SORT_COLUMNS)}")
    flt = engine.filter(namespace, memory_types, tags, sources, None, since, until)
    limit = validate.whole_number(limit, "limit", 1, 500)
    offset = validate.whole_number(offset, "offset", 0)
    total, found = rows.select_sorted(engine.conn, flt, sort, limit, offset)
    return {"total": total, "items": engine.mark_replaced([m.to_dict() for m in found])}


def memory_detail(engine: Engine, memory_id: str) -> dict[str, Any]:
    """A memory (not counted as an access), its graph neighbours and its history."""
    memory = engine.get(memory_id, touch=False)
    links = engine.neighbors(memory_id)
    story = {str(r) for r in HISTORY_RELATIONSHIPS}
    history: list[dict[str, Any]] = [{"at": memory.created_at, "what": "stored"}]
    if memory.updated_at and memory.updated_at != memory.created_at:
        history.append({"at": memory.updated_at, "what": "updated"})
    if memory.last_accessed_at:
        history.append(
            {"at": memory.last_accessed_at, "what": f"last read ({memory.access_count} reads)"}
        )
    for link in links:
        if link["relationship"] in story:
            other = link.get("memory") or {}
            verb = (
                link["relationship"] if link["direction"] == "out" else f"← {link['relationship']}"
            )
            history.append(
                {
                    "at": other.get("created_at", ""),
                    "what": f"{verb} {link['name'][:80]}",
                    "memory_id": other.get("id"),
                }
            )
    history.sort(key=lambda h: str(h["at"]))
    shown = engine.mark_replaced([memory.to_dict()])[0]
    return {"memory": shown, "neighbors": links, "history": history}


def data_version(engine: Engine) -> int:
    """Changes when another process commits to the store (this engine's own writes do not
    change it): a cache holds while it stays."""
    return rows.data_version(engine.conn)


def change_mark(engine: Engine, namespace: str | None) -> dict[str, Any]:
    count, latest = rows.change_mark(engine.conn, engine.resolve_namespace(namespace))
    return {"count": count, "latest": latest}


def graph_fingerprint(engine: Engine, namespace: str | None) -> str:
    """Changes whenever a node or an edge of the namespace does (a drawing cache's key)."""
    return repr(fingerprint_rows(engine.conn, engine.resolve_namespace(namespace)))


def graph_view(
    engine: Engine,
    *,
    namespace: str | None = None,
    kinds: Sequence[str] = (),
    limit: int = GRAPH_LIMIT,
) -> dict[str, Any]:
    """The ``limit`` most central nodes (cached PageRank, then degree) and the edges between
    them, laid out: ``nodes`` [{id, kind, name, memory_id, x, y, pagerank, community}] and
    ``edges`` [[source index, target index, relationship]]."""
    from memlode.graph.layout import draw

    limit = validate.whole_number(limit, "limit", 1, 20_000)
    ns = engine.resolve_namespace(namespace)
    found = rows.top_nodes(engine.conn, ns, [k.strip() for k in kinds if k.strip()], limit)
    index = {r[0]: i for i, r in enumerate(found)}
    edges = [
        (index[s], index[t], str(rel), float(w))
        for s, t, rel, w in rows.edges_among(engine.conn, list(index))
    ]
    drawing = draw(len(found), [(s, t, w) for s, t, _, w in edges])
    nodes = [
        {
            "id": r[0],
            "kind": r[1],
            "name": r[2],
            "memory_id": r[3],
            "degree": int(r[4]),
            "x": round(drawing.xy[i][0], 5),
            "y": round(drawing.xy[i][1], 5),
            "pagerank": round(drawing.pagerank[i], 5),
            "community": drawing.community[i],
        }
        for i, r in enumerate(found)
    ]
    return {
        "namespace": "*" if ns is None else ns,
        "nodes": nodes,
        "edges": [[s, t, rel] for s, t, rel, _ in edges],
    }


def node_neighbors(engine: Engine, node_id: str) -> list[dict[str, Any]]:
    """Any graph node's neighbours (a code symbol's too): id, kind, name, memory id, edge."""
    return [
        {
            "id": n.node_id,
            "kind": n.kind,
            "name": n.name,
            "memory_id": n.memory_id,
            "relationship": n.relationship,
            "direction": n.direction,
        }
        for n in graph_repo.neighbors(engine.conn, node_id)
    ]


def projection(
    engine: Engine, *, namespace: str | None = None, limit: int = PROJECTION_LIMIT
) -> dict[str, Any]:
    """The newest ``limit`` embedded memories projected on their two principal components
    (PCA by an eigen-decomposition of the covariance: a d x d problem, fast at 10k rows).

    Columns, not one object a point (10k points: half the bytes to send and parse): ``id``,
    ``x``, ``y`` (in [-1, 1]), ``type`` and ``source`` (indexes into ``types`` and
    ``sources``), ``text`` (the first characters)."""
    import numpy as np

    limit = validate.whole_number(limit, "limit", 1, 100_000)
    ns = engine.resolve_namespace(namespace)
    found = rows.memory_vectors(engine.conn, ns, limit)
    if found:  # one model's vectors only: the most common dimension
        dims: dict[int, int] = {}
        for r in found:
            dims[int(r[5])] = dims.get(int(r[5]), 0) + 1
        dim = max(dims, key=lambda d: dims[d])
        found = [r for r in found if int(r[5]) == dim]
    if len(found) < 2:
        found = []
    out: dict[str, Any] = {"namespace": "*" if ns is None else ns, "explained": []}
    types = sorted({str(r[1]) for r in found})
    sources = sorted({str(r[2]) for r in found})
    out.update(types=types, sources=sources, id=[], x=[], y=[], type=[], source=[], text=[])
    if not found:
        return out
    matrix = np.stack([np.frombuffer(r[6], dtype="<f4") for r in found]).astype(np.float64)
    centred = matrix - matrix.mean(axis=0)
    values, vectors = np.linalg.eigh(centred.T @ centred)
    xy = centred @ vectors[:, ::-1][:, :2]
    span = np.abs(xy).max(axis=0)
    xy = np.round(xy / np.where(span > 0, span, 1.0), 4)
    total = float(values.sum()) or 1.0
    type_at = {t: i for i, t in enumerate(types)}
    source_at = {t: i for i, t in enumerate(sources)}
    out.update(
        explained=[round(float(v) / total, 4) for v in values[::-1][:2]],
        id=[r[0] for r in found],
        x=xy[:, 0].tolist(),
        y=xy[:, 1].tolist(),
        type=[type_at[str(r[1])] for r in found],
        source=[source_at[str(r[2])] for r in found],
        text=[r[4] for r in found],
    )
    return out


def session_timeline(
    engine: Engine, *, namespace: str | None = None, limit: int = 50
) -> list[dict[str, Any]]:
    """Sessions, newest first, each with its summary, prompts, edited files and counts."""
    limit = validate.whole_number(limit, "limit", 1, 500)
    found = engine.sessions(namespace=namespace, limit=limit)
    counts = rows.session_memory_counts(engine.conn, [s.id for s in found])
    out = []
    for session in found:
        prompts = rows.session_prompts(engine.conn, session.id, PROMPT_TAGS, 100)
        item = session.to_dict()
        item["prompts"] = [
            {
                "id": p.id,
                "at": p.created_at,
                "text": p.content,
                "recall": p.metadata.get("recall"),
                "injected": p.metadata.get("injected"),
            }
            for p in prompts
        ]
        item["files"] = [
            {"path": path, "at": at} for path, at in rows.session_files(engine.conn, session.id)
        ]
        item["memories"] = counts.get(session.id, {})
        # What SessionStart handed the assistant (its hook keeps it; None for sessions
        # recorded before it did), and how the session started (startup, resume, compact).
        start = session.metadata.get("start_context")
        item["start_context"] = start if isinstance(start, dict) else None
        item["start_source"] = session.metadata.get("start_source")
        out.append(item)
    return out


def code_overview(engine: Engine, *, namespace: str | None = None) -> dict[str, Any]:
    """The repo map (PageRank with heat), the hottest files, the central files and the
    communities; ``indexed`` False when the namespace has no code index."""
    from memlode.engine import code

    try:
        mapped = code.repo_map(engine, tokens=2048, namespace=namespace)
    except NotFound as exc:
        return {"indexed": False, "message": str(exc)}
    try:
        central = code.pagerank(engine, kind="file", limit=30, namespace=namespace)
        groups = code.clusters(engine, limit=12, members=6, namespace=namespace)
    except MemlodeError:
        central, groups = [], []
    return {
        "indexed": True,
        "namespace": mapped["namespace"],
        "map": mapped["text"],
        "heat": mapped["heat"],
        "central": central,
        "communities": groups,
    }


def search_mode(engine: Engine, stats: dict[str, Any]) -> str:
    """semantic (vectors searched), text-only (BM25 and the cheap signals) or docs-only (only
    memory-file chunks stored)."""
    by_source = stats.get("by_source") or {}
    if by_source and set(by_source) == {"doc"}:
        return "docs-only"
    if engine.embeddings.embedder is not None and stats.get("embedded", 0) > 0:
        return "semantic"
    return "text-only"


def _hook_log(home: os.PathLike[str] | str) -> list[str]:
    path = os.path.join(home, "hooks.log")
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return [line.rstrip("\n") for line in fh.readlines()[-HOOK_LOG_LINES:]]
    except OSError:
        return []


def hook_timings(home: os.PathLike[str] | str) -> list[dict[str, Any]]:
    """Per hook event, from the hooks' timing log (``memlode.hooks._log``, its newest
    HOOK_TIMING_LINES runs): runs, p50, p95 and max milliseconds, slowest p50 first."""
    from memlode.hook_settings import TIMINGS_FILE

    path = os.path.join(home, TIMINGS_FILE)
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.readlines()[-HOOK_TIMING_LINES:]
    except OSError:
        return []
    by_event: dict[str, list[float]] = {}
    for line in lines:
        parts = line.split()
        if len(parts) not in (3, 4):  # when, event, milliseconds[, client]
            continue
        try:
            milliseconds = float(parts[2])
        except ValueError:
            continue
        if 0.0 <= milliseconds < 1e9:  # NaN and infinities fail this too
            by_event.setdefault(parts[1], []).append(milliseconds)
    out = []
    for event, values in by_event.items():
        values.sort()
        out.append(
            {
                "event": event,
                "runs": len(values),
                "p50_ms": values[len(values) // 2],
                "p95_ms": values[min(len(values) - 1, int(len(values) * 0.95))],
                "max_ms": values[-1],
            }
        )
    return sorted(out, key=lambda row: -row["p50_ms"])


def health_report(engine: Engine) -> dict[str, Any]:
    """Counts, the embedding backlogs (memories, symbols), the embedder, the search mode,
    consolidation runs and the hooks' error log and timings; fast (the storage check is
    ``Engine.health``, apart: SQLite's quick_check reads the whole file)."""
    from memlode.engine.code import pending_report
    from memlode.engine.consolidation import status

    stats = engine.stats()
    embedder = engine.embeddings.embedder
    return {
        "stats": stats,
        "search_mode": search_mode(engine, stats),
        "embedder": {
            "provider": engine.settings.embed_provider,
            "model": embedder.name if embedder is not None else None,
            "error": engine.embeddings.error,
        },
        "pending_embeddings": engine.pending_embeddings(),
        "pending_token_states": engine.pending_token_states(),
        # symbols, pending, model: what `memlode index` left to the resident's embedder
        "symbol_vectors": pending_report(engine),
        "weights": engine.get_weights(),
        "consolidation": status(engine, limit=20),
        "hook_log": _hook_log(engine.settings.home),
        "hook_timings": hook_timings(engine.settings.home),
        "database_bytes": engine.db.size_bytes(),
        "namespaces": engine.namespaces(),
        "current_namespace": engine.namespace,
    }
