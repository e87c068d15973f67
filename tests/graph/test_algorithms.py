"""Every graph algorithm on a small graph whose answer is known by hand."""

from __future__ import annotations

import random

import pytest

from memlode.errors import InvalidInput
from memlode.graph import (
    Graph,
    GraphEdge,
    betweenness,
    bfs,
    communities,
    community_groups,
    connected_components,
    degree_centrality,
    dfs,
    expand,
    neighbors,
    pagerank,
    personalized_pagerank,
    ranked,
    shortest_path,
    strongly_connected_components,
    topological_layers,
)


def star(leaves: int = 4) -> Graph:
    return Graph(edges=[(f"leaf{i}", "hub") for i in range(leaves)])


def two_cliques() -> Graph:
    edges = []
    for group in ("a", "b"):
        members = [f"{group}{i}" for i in range(5)]
        edges += [(x, y) for x in members for y in members if x < y]
    edges.append(("a0", "b0"))
    return Graph(edges=edges)


def test_pagerank_of_a_star_matches_the_closed_form():
    # leaves -> hub; the hub is dangling and teleports uniformly: r_leaf = 1 / (N + d n)
    scores = pagerank(star(4))
    n, d = 4, 0.85
    leaf = 1 / (n + 1 + d * n)
    assert scores["leaf0"] == pytest.approx(leaf, abs=1e-6)
    assert scores["hub"] == pytest.approx(1 - n * leaf, abs=1e-6)
    assert sum(scores.values()) == pytest.approx(1.0)
    # ties are ordered by id
    assert [node for node, _ in ranked(scores)] == ["hub", "leaf0", "leaf1", "leaf2", "leaf3"]


def test_personalized_pagerank_favours_the_seed():
    graph = Graph(edges=[("a", "b"), ("b", "c"), ("c", "a"), ("x", "y"), ("y", "x")])
    scores = personalized_pagerank(graph, {"x": 1.0})
    assert scores["x"] > scores["y"] > 0
    assert scores["a"] == scores["b"] == scores["c"] == 0
    with pytest.raises(InvalidInput):
        personalized_pagerank(graph, {"nowhere": 1.0})


def test_weights_count_in_pagerank():
    graph = Graph(edges=[GraphEdge("s", "heavy", "CALLS", 9.0), GraphEdge("s", "light", "CALLS")])
    scores = pagerank(graph)
    assert scores["heavy"] > scores["light"]
    assert pagerank(graph, weighted=False)["heavy"] == pytest.approx(scores["light"], rel=0.5)


def test_communities_of_two_cliques_joined_by_one_edge():
    for method in ("leiden", "louvain"):
        labels = communities(two_cliques(), method=method)  # type: ignore[arg-type]
        assert community_groups(labels) == [
            [f"a{i}" for i in range(5)],
            [f"b{i}" for i in range(5)],
        ]
        assert labels["a0"] == 0 and labels["b0"] == 1  # labels: size, then smallest id


def test_communities_are_deterministic_under_edge_order():
    edges = list(two_cliques().edges)
    baseline = communities(Graph(edges=edges))
    for seed in range(3):
        random.Random(seed).shuffle(edges)
        assert communities(Graph(edges=edges)) == baseline


def test_bfs_dfs_and_expansion():
    tree = Graph(edges=[("r", "b"), ("r", "a"), ("a", "c"), ("b", "d"), ("d", "e")])
    assert bfs(tree, "r") == [("r", 0), ("a", 1), ("b", 1), ("c", 2), ("d", 2), ("e", 3)]
    assert bfs(tree, "r", max_depth=1) == [("r", 0), ("a", 1), ("b", 1)]
    assert bfs(tree, "e", direction="in") == [("e", 0), ("d", 1), ("b", 2), ("r", 3)]
    assert dfs(tree, "r") == ["r", "a", "c", "b", "d", "e"]
    assert expand(tree, ["a"], hops=2) == {"a": 0, "c": 1, "r": 1, "b": 2}
    with pytest.raises(InvalidInput):
        bfs(tree, "missing")


def test_shortest_path():
    graph = Graph(edges=[("a", "b"), ("b", "c"), ("c", "d"), ("a", "x"), ("x", "d")])
    assert shortest_path(graph, "a", "d") == ["a", "x", "d"]
    assert shortest_path(graph, "d", "a") is None
    assert shortest_path(graph, "d", "a", directed=False) == ["d", "x", "a"]
    weighted = Graph(
        edges=[
            GraphEdge("a", "x", weight=10),
            GraphEdge("x", "d", weight=10),
            GraphEdge("a", "b", weight=1),
            GraphEdge("b", "d", weight=1),
        ]
    )
    assert shortest_path(weighted, "a", "d", weighted=True) == ["a", "b", "d"]


def test_components():
    graph = Graph(
        nodes=["lonely"],
        edges=[("a", "b"), ("b", "a"), ("b", "c"), ("x", "y")],
    )
    assert connected_components(graph) == [["a", "b", "c"], ["x", "y"], ["lonely"]]
    assert strongly_connected_components(graph) == [["a", "b"], ["c"], ["lonely"], ["x"], ["y"]]


def test_topological_layers_of_a_dag_and_of_a_cycle():
    dag = Graph(nodes=["e"], edges=[("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("a", "d")])
    assert topological_layers(dag) == [["a", "e"], ["b", "c"], ["d"]]
    cyclic = Graph(edges=[("x", "y"), ("y", "x"), ("y", "z")])
    assert topological_layers(cyclic) == [["x", "y"], ["z"]]


def test_degree_and_betweenness():
    path = Graph(edges=[("a", "b"), ("b", "c")])
    assert betweenness(path) == {"a": 0.0, "b": 0.5, "c": 0.0}  # 1 of 2 ordered pairs
    assert betweenness(path, normalized=False) == {"a": 0.0, "b": 1.0, "c": 0.0}
    assert betweenness(path, directed=False)["b"] == pytest.approx(1.0)
    deg = degree_centrality(star(4))
    assert deg["hub"] == pytest.approx(1.0) and deg["leaf0"] == pytest.approx(0.25)
    assert degree_centrality(star(4), direction="out")["hub"] == 0.0


def test_neighbors_and_filtering():
    graph = Graph(
        edges=[
            GraphEdge("f", "g", "CALLS", 2.0),
            GraphEdge("h", "f", "CALLS"),
            GraphEdge("file", "f", "CONTAINS"),
        ]
    )
    assert [(n.node, n.relationship, n.direction) for n in neighbors(graph, "f")] == [
        ("g", "CALLS", "out"),
        ("file", "CONTAINS", "in"),
        ("h", "CALLS", "in"),
    ]
    assert [n.node for n in neighbors(graph, "f", relationships=["CALLS"], direction="in")] == ["h"]
    calls = graph.filtered(["CALLS"])
    assert {(e.source, e.target) for e in calls.edges} == {("f", "g"), ("h", "f")}


def test_empty_graph():
    empty = Graph()
    assert pagerank(empty) == {} and communities(empty) == {}
    assert connected_components(empty) == [] and topological_layers(empty) == []
