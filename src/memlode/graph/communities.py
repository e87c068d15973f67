"""Communities: Leiden (the default) and Louvain (for parity with other tools).

Both optimise modularity on the undirected view of the graph (parallel and opposite edges
merged, weights summed). Both are randomised, so a fixed seed drives igraph's random number
generator for the call, and labels are renumbered by size (largest community 0), then by
smallest id: the same graph always gets the same labels.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from memlode.errors import InvalidInput
from memlode.graph.model import Graph, igraph_module

__all__ = ["SEED", "communities", "community_groups"]

SEED = 42
# Leiden passes (igraph's default); each refines the last. Measured: iterating to a fixed point
# costs 7x the time on a 22k-node code graph (the stdlib) for a modularity gain of 0.2%.
_LEIDEN_ITERATIONS = 2


def _with_seed(seed: int, fn: Any) -> Any:
    ig = igraph_module()
    rng = random.Random(seed)
    ig.set_random_number_generator(rng)
    try:
        return fn()
    finally:
        ig.set_random_number_generator(random)


def communities(
    graph: Graph,
    *,
    method: Literal["leiden", "louvain"] = "leiden",
    resolution: float = 1.0,
    seed: int = SEED,
) -> dict[str, int]:
    """Community label of every node (isolated nodes are communities of their own)."""
    n = len(graph.nodes)
    if n == 0:
        return {}
    if method not in ("leiden", "louvain"):
        raise InvalidInput(f"unknown community method {method!r}; use leiden or louvain")
    ig = igraph_module()
    pairs, weights = graph.undirected_weights()
    undirected = ig.Graph(n=n, edges=pairs, directed=False)
    if method == "leiden":
        clustering = _with_seed(
            seed,
            lambda: undirected.community_leiden(
                objective_function="modularity",
                weights=weights or None,
                resolution=resolution,
                n_iterations=_LEIDEN_ITERATIONS,
            ),
        )
    else:
        clustering = _with_seed(
            seed,
            lambda: undirected.community_multilevel(weights=weights or None, resolution=resolution),
        )
    membership: list[int] = list(clustering.membership)
    groups: dict[int, list[int]] = {}
    for i, label in enumerate(membership):
        groups.setdefault(label, []).append(i)
    order = sorted(groups.values(), key=lambda g: (-len(g), graph.nodes[g[0]]))
    labels: dict[str, int] = {}
    for new_label, members in enumerate(order):
        for i in members:
            labels[graph.nodes[i]] = new_label
    return {node: labels[node] for node in graph.nodes}


def community_groups(labels: dict[str, int]) -> list[list[str]]:
    """Labels -> groups of node ids, in label order."""
    groups: dict[int, list[str]] = {}
    for node, label in labels.items():
        groups.setdefault(label, []).append(node)
    return [sorted(groups[k]) for k in sorted(groups)]
