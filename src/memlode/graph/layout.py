"""A drawing of a graph: positions in the unit square, PageRank and communities, for the
dashboard's graph view (``memlode viz``).

Computed server side with igraph so that the browser only draws: a force layout of 5,000 nodes
in JavaScript costs seconds of a page's main thread, igraph's grid Fruchterman-Reingold takes a
fraction of that. Deterministic: a fixed seed drives igraph's random generator.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memlode.graph.model import igraph_module

__all__ = ["LAYOUT_SEED", "Drawing", "draw"]

LAYOUT_SEED = 7
# Fruchterman-Reingold iterations: igraph's default (500) barely moves a 5,000-node layout
# after the first 150 or so, at three times the time.
_ITERATIONS = 150
# Nodes without an edge go in rows of this many below the drawing.
_ALONE_PER_ROW = 60


@dataclass(slots=True)
class Drawing:
    xy: list[tuple[float, float]]  # per node, in [0, 1]
    pagerank: list[float]  # per node, max-normalised to 1
    community: list[int]  # per node, 0 = the largest community


def _positions(graph: Any, n: int) -> list[tuple[float, float]]:
    """Force layout of the nodes that have an edge; the others on a grid in a band below it
    (a force layout throws them out in a ring that squeezes the rest into a dot)."""
    linked = [v for v in range(n) if graph.degree(v) > 0]
    alone = [v for v in range(n) if graph.degree(v) == 0]
    coords: list[tuple[float, float]] = [(0.0, 0.0)] * n
    x0, x1, y1 = 0.0, 1.0, 0.0
    per_row = max(1, math.ceil(len(alone) ** 0.5))
    if len(linked) > 2:
        sub = graph.induced_subgraph(linked)
        grid = "auto" if len(linked) < 1000 else True
        placed = sub.layout_fruchterman_reingold(niter=_ITERATIONS, grid=grid).coords
        for v, (x, y) in zip(linked, placed, strict=True):
            coords[v] = (float(x), float(y))
        x0 = min(float(c[0]) for c in placed)
        x1 = max(float(c[0]) for c in placed)
        y1 = max(float(c[1]) for c in placed)
        per_row = _ALONE_PER_ROW
    else:
        alone = list(range(n))
        per_row = max(1, math.ceil(n**0.5))
    step = max((x1 - x0) / per_row, 1e-3)
    for k, v in enumerate(alone):
        coords[v] = (x0 + (k % per_row) * step, y1 + step * (2 + k // per_row))
    return coords


def draw(n: int, edges: Sequence[tuple[int, int, float]]) -> Drawing:
    """Lay out ``n`` nodes joined by (source index, target index, weight) edges."""
    if n == 0:
        return Drawing([], [], [])
    ig = igraph_module()
    pairs = [(s, t) for s, t, _ in edges if s != t]
    weights = [max(w, 1e-6) for s, t, w in edges if s != t]
    graph = ig.Graph(n=n, edges=pairs, directed=False)
    ig.set_random_number_generator(random.Random(LAYOUT_SEED))
    try:
        coords = _positions(graph, n)
        ranks = graph.pagerank(weights=weights or None) if pairs else [1.0 / n] * n
        simple = graph.copy()
        simple.es["weight"] = weights
        simple.simplify(combine_edges="sum")
        membership = simple.community_multilevel(weights="weight" if pairs else None).membership
    finally:
        ig.set_random_number_generator(random)
    xs = [float(c[0]) for c in coords]
    ys = [float(c[1]) for c in coords]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    span = max(x1 - x0, y1 - y0, 1e-9)
    xy = [((x - x0) / span, (y - y0) / span) for x, y in zip(xs, ys, strict=True)]
    top = max(ranks) or 1.0
    sizes: dict[int, int] = {}
    for label in membership:
        sizes[label] = sizes.get(label, 0) + 1
    order = sorted(sizes, key=lambda label: (-sizes[label], label))
    renumber = {label: i for i, label in enumerate(order)}
    return Drawing(
        xy=xy,
        pagerank=[float(r) / top for r in ranks],
        community=[renumber[label] for label in membership],
    )
