"""The creative cycle: link memories of different kinds that say related things.

A hook's observation of an edit, the conversation turn that explained it, the decision a user
stored and the memory file that records it are four rows nobody connects. This cycle reads the
stored vectors (no model is loaded) and draws, for each vector new since its last run, a
``SIMILAR_TO`` edge to its nearest neighbours (at most ``NEIGHBOURS``) whose cosine is at least
``THRESHOLD`` and whose memory differs in type or source (same-kind near-duplicates are the
cluster cycle's). Themes are the communities (Leiden) of those links with ``MIN_THEME`` or more
members from two or more sources: each member gets a ``SHARES_THEME`` edge to the theme's hub
(its best-linked member). Recall follows both (the graph neighbours of its strongest
candidates), so a hit brings its related rows of other kinds with it.

Bounded and incremental: at most ``MAX_NEW`` new vectors per run (the next run goes on from
there, a watermark per namespace and model in ``store_settings``); a re-run with nothing new
changes nothing. Summaries (source ``consolidation``) are not linked: they stand for their
members. Edges carry ``{"by": "creative"}``; themes are redrawn each run, and a theme edge no
longer backed by a theme is removed (``SIMILAR_TO`` edges stay: their two rows still say related
things).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from memlode.engine.consolidation.cycle import CycleContext, CycleRun, log_finish, log_start
from memlode.storage import graph
from memlode.storage import similarity_links as rows
from memlode.storage.capture import SUMMARY_SOURCE
from memlode.storage.store_settings import get_setting, put_setting
from memlode.types import Edge, Relationship

if TYPE_CHECKING:
    import sqlite3

__all__ = ["MAX_NEW", "NEIGHBOURS", "THRESHOLD", "plan_links", "run"]

# Cosine (all-MiniLM-L6-v2, L2-normalised vectors) from which two rows say related things:
# on the replayed sessions' stores, pairs at 0.7 and above are the same file, command or
# decision told twice (bench/RESULTS.md, "Creative links"); below it, shared vocabulary.
THRESHOLD = 0.7
NEIGHBOURS = 3  # links per new row at most
MAX_NEW = 5000  # new vectors per run (bounded work); the next run goes on from there
MIN_THEME = 3
BLOCK = 128  # new vectors scored per matrix product (128 x 100k floats: 51 MB)
WRITE_BATCH = 500  # edges per transaction


@dataclass
class LinkPlan:
    model: str | None
    watermark: int  # the last embedding rowid covered after this run
    new: int  # vectors considered
    links: dict[tuple[str, str], float] = field(default_factory=dict)  # (a, b) a < b -> cosine
    themes: dict[tuple[str, str], str] = field(default_factory=dict)  # (member, hub) -> theme
    stale_themes: list[tuple[str, str]] = field(default_factory=list)
    existing_links: int = 0


def _mark_key(model: str, namespace: str) -> str:
    return f"consolidation.creative:{model}:{namespace}"


def plan_links(
    conn: sqlite3.Connection, namespace: str, tick: Callable[[int, int], None] | None = None
) -> LinkPlan:
    """What the cycle would draw for ``namespace`` (nothing is written here)."""
    models = rows.vector_models(conn, namespace)
    if not models:
        return LinkPlan(None, 0, 0)
    model, dim, _n = models[0]
    mark = int(get_setting(conn, _mark_key(model, namespace)) or 0)
    plan = LinkPlan(model, mark, 0)
    # nothing new: the vectors are not read at all (the themes are redrawn from the links)
    if rows.max_vector_rowid(conn, namespace, model, dim) > mark:
        found = rows.namespace_vectors(conn, namespace, model, dim, SUMMARY_SOURCE)
        _score_new(plan, found, dim, tick)
    existing = rows.linked_by_creative(conn, namespace, str(Relationship.SIMILAR_TO))
    plan.existing_links = len(existing)
    drawn = {(a, b) for a, b, _w in existing}
    plan.links = {pair: s for pair, s in plan.links.items() if pair not in drawn}
    _themes(conn, namespace, plan, existing)
    return plan


def _score_new(
    plan: LinkPlan, found: list[Any], dim: int, tick: Callable[[int, int], None] | None
) -> None:
    """Links from each vector past the watermark (``MAX_NEW`` at most) to its neighbours."""
    rowids = np.fromiter((r[0] for r in found), dtype=np.int64, count=len(found))
    new = np.flatnonzero(rowids > plan.watermark)[:MAX_NEW]
    if not len(new):
        return
    plan.new = len(new)
    plan.watermark = int(rowids[new[-1]])
    rows_ = _Rows(found)
    matrix = np.frombuffer(b"".join(r[2] for r in found), dtype=np.float32).reshape(-1, dim)
    for start in range(0, len(new), BLOCK):
        block = new[start : start + BLOCK]
        scores = matrix[block] @ matrix.T
        for row, i in enumerate(block):
            _nearest(plan, rows_, int(i), scores[row])
        if tick is not None:
            tick(min(start + BLOCK, len(new)), len(new))


class _Rows:
    """The scored rows' ids and, as integer codes, what may not be linked to what."""

    def __init__(self, found: list[Any]) -> None:
        self.ids = [str(r[1]) for r in found]
        kinds: dict[tuple[str, str], int] = {}
        sessions: dict[str, int] = {"": 0}
        self.kind = np.array([kinds.setdefault((str(r[3]), str(r[4])), len(kinds)) for r in found])
        self.session = np.array(
            [sessions.setdefault(str(r[5] or ""), len(sessions)) for r in found]
        )
        self.context = np.array([str(r[3]) == "context" for r in found])

    def excluded(self, i: int) -> Any:
        """Rows ``i`` is not linked to: its own type and source (near-duplicates are the
        cluster cycle's), and, for a plain context row, the context rows of its own session
        (the same moment told twice: a conversation turn holds the tool calls the hooks saw)."""
        out = self.kind == self.kind[i]
        if self.context[i] and self.session[i]:
            out |= self.context & (self.session == self.session[i])
        return out


def _nearest(plan: LinkPlan, rows_: _Rows, i: int, scores: Any) -> None:
    scores[rows_.excluded(i)] = -1.0  # also row i itself
    ids = rows_.ids
    top = np.argpartition(-scores, min(len(scores) - 1, NEIGHBOURS))[: NEIGHBOURS + 1]
    best = sorted(top.tolist(), key=lambda j: (-float(scores[j]), ids[j]))[:NEIGHBOURS]
    for j in best:
        if float(scores[j]) < THRESHOLD:
            break
        pair = (ids[i], ids[j]) if ids[i] < ids[j] else (ids[j], ids[i])
        plan.links[pair] = round(float(scores[j]), 4)


def _themes(
    conn: sqlite3.Connection,
    namespace: str,
    plan: LinkPlan,
    existing: list[tuple[str, str, float]],
) -> None:
    """Leiden communities over every creative link (old and planned): a theme per community of
    ``MIN_THEME`` or more members; each member's edge to the hub, and stale edges to remove."""
    from memlode.graph.communities import communities, community_groups
    from memlode.graph.model import Graph, GraphEdge

    weights = {(a, b): w for a, b, w in existing}
    weights.update(plan.links)
    if weights:
        labels = communities(
            Graph(edges=[GraphEdge(a, b, "SIMILAR_TO", w) for (a, b), w in weights.items()])
        )
        degree: dict[str, float] = {}
        for (a, b), w in weights.items():
            degree[a] = degree.get(a, 0.0) + w
            degree[b] = degree.get(b, 0.0) + w
        for members in community_groups(labels):
            if len(members) < MIN_THEME:
                continue
            hub = min(members, key=lambda m: (-degree[m], m))
            for member in members:
                if member != hub:
                    plan.themes[(member, hub)] = hub
    drawn = rows.linked_by_creative(conn, namespace, str(Relationship.SHARES_THEME))
    plan.stale_themes = [(a, b) for a, b, _w in drawn if (a, b) not in plan.themes]
    for a, b, _w in drawn:
        plan.themes.pop((a, b), None)  # already there


def run(ctx: CycleContext, report: CycleRun) -> None:
    report.parameters = {
        "threshold": THRESHOLD,
        "neighbours": NEIGHBOURS,
        "max_new": MAX_NEW,
        "min_theme": MIN_THEME,
    }
    log_id = log_start(ctx, report)
    plan = plan_links(
        ctx.engine.conn, report.namespace, lambda done, total: ctx.tick(report, done, total)
    )
    new_links = plan.links
    report.counts = {
        "vectors_new": plan.new,
        "similar_new": len(new_links),
        "similar_total": plan.existing_links + len(new_links),
        "theme_edges_new": len(plan.themes),
        "theme_edges_removed": len(plan.stale_themes),
    }
    report.changes = [
        {"relationship": "SIMILAR_TO", "source": a, "target": b, "similarity": s}
        for (a, b), s in sorted(new_links.items())
    ] + [
        {"relationship": "SHARES_THEME", "source": a, "target": b, "hub": hub}
        for (a, b), hub in sorted(plan.themes.items())
    ]
    if log_id is None:
        return
    _write(ctx, report.namespace, plan, new_links)
    log_finish(ctx, log_id, report)


def _write(
    ctx: CycleContext, namespace: str, plan: LinkPlan, new_links: dict[tuple[str, str], float]
) -> None:
    edges = [
        Edge(a, b, Relationship.SIMILAR_TO, weight=s, properties={"by": rows.CREATIVE_MARK})
        for (a, b), s in sorted(new_links.items())
    ] + [
        Edge(a, b, Relationship.SHARES_THEME, properties={"by": rows.CREATIVE_MARK})
        for (a, b) in sorted(plan.themes)
    ]
    for start in range(0, len(edges), WRITE_BATCH):
        batch = edges[start : start + WRITE_BATCH]
        with ctx.engine.db.write() as conn:
            texts = rows.memory_texts(
                conn, sorted({e.source_id for e in batch} | {e.target_id for e in batch})
            )
            for edge in batch:
                if edge.source_id in texts and edge.target_id in texts:
                    graph.ensure_memory_node(conn, edge.source_id, texts[edge.source_id], namespace)
                    graph.ensure_memory_node(conn, edge.target_id, texts[edge.target_id], namespace)
                    graph.add_edge(conn, edge, keep_existing=True)
    with ctx.engine.db.write() as conn:
        rows.delete_edges(conn, str(Relationship.SHARES_THEME), plan.stale_themes)
        if plan.model is not None:
            # last: a run killed before this point redoes its vectors (the edges are kept)
            put_setting(conn, _mark_key(plan.model, namespace), str(plan.watermark))
