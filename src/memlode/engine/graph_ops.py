"""Graph walks over memories: BFS/DFS traversal and decision chains.

These are operations a user names ("what follows from this decision?", "how did our choice about
auth evolve?"), composed straight from the persisted ``graph_nodes`` / ``graph_edges`` tables, so
they need no graph library and answer in a few queries on a warm connection. L3: takes
what it needs of an engine (its connection, its namespace resolution) and reads through the
storage layer (``memlode.storage.graph_walk``, ``memlode.storage.graph``).
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from memlode import validate
from memlode.engine.supersession import marked, replaced
from memlode.errors import InvalidInput, NotFound
from memlode.search.fts import query_terms
from memlode.storage import graph as graph_repo
from memlode.storage import memories as memory_repo
from memlode.storage.graph_walk import (
    adjacent,
    matching_memories,
    mentioning_memories,
    node,
    topic_nodes,
)
from memlode.storage.values import MemoryFilter
from memlode.types import Edge, Memory, MemoryType, Relationship

if TYPE_CHECKING:
    from memlode.types import SearchHit


class Engine(Protocol):
    """What these walks need of the engine (``memlode.engine.Engine`` has it): its
    connection and its namespace resolution. A Protocol, so that this module does not import
    the engine that calls it."""

    @property
    def conn(self) -> sqlite3.Connection: ...

    def resolve_namespace(self, namespace: str | None) -> str | None: ...


__all__ = [
    "CHAIN_RELATIONSHIPS",
    "DIRECTIONS",
    "MAX_TRAVERSE_DEPTH",
    "STRATEGIES",
    "DecisionChain",
    "TraversalStep",
    "expand_hits",
    "get_decision_chain",
    "graph_traverse",
]

DIRECTIONS = ("out", "in", "both")
STRATEGIES = ("bfs", "dfs")
MAX_TRAVERSE_DEPTH = 10
MAX_TRAVERSE_NODES = 10_000

# Knowledge edges that make decisions a chain: one decision evolving into, replacing or leading
# to another. A decision linked to a matched one by these is part of the same story.
CHAIN_RELATIONSHIPS = (
    Relationship.EVOLVED_INTO,
    Relationship.SUPERSEDES,
    Relationship.LEADS_TO,
    Relationship.PRECEDED_BY,
    Relationship.DERIVED_FROM,
    Relationship.INVALIDATED_BY,
    Relationship.CONTRADICTS,
)


@dataclass(slots=True)
class TraversalStep:
    """One node reached by a walk, with the edge it was reached through."""

    node_id: str
    kind: str
    name: str
    depth: int
    parent: str | None = None
    relationship: str | None = None
    direction: str | None = None  # "out": parent -> node; "in": node -> parent
    weight: float | None = None
    memory: Memory | None = None
    # when a later memory replaced it: {"replaced_by": its id, "replaced_at": when}
    replaced: dict[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        shown = None
        if self.memory is not None:
            shown = {**self.memory.to_dict(), **(self.replaced or {})}
        return {
            "node_id": self.node_id,
            "kind": self.kind,
            "name": self.name,
            "depth": self.depth,
            "parent": self.parent,
            "relationship": self.relationship,
            "direction": self.direction,
            "weight": self.weight,
            "memory": shown,
        }


@dataclass(slots=True)
class DecisionChain:
    topic: str
    namespace: str | None  # None: every namespace
    decisions: list[Memory]  # oldest first
    links: list[Edge]  # edges between the decisions in the chain
    # the decisions a later memory replaced (in the chain or not): id -> replaced_by, _at
    replaced: dict[str, dict[str, str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "namespace": "*" if self.namespace is None else self.namespace,
            "decisions": [{**m.to_dict(), **self.replaced.get(m.id, {})} for m in self.decisions],
            "links": [e.to_dict() for e in self.links],
        }


# ---- traversal --------------------------------------------------------------------------------


def graph_traverse(
    engine: Engine,
    start_id: str,
    *,
    depth: int = 2,
    relationships: Sequence[Relationship | str] = (),
    direction: str = "both",
    strategy: str = "bfs",
    limit: int = 100,
    memories_only: bool = True,
) -> list[TraversalStep]:
    """Walk the graph from ``start_id`` (a memory id or any node id) up to ``depth`` hops.

    The start comes first (depth 0); every other node appears once, at the first place the walk
    reached it, with the edge it came through. BFS lists nodes by distance; DFS follows each
    branch to the depth limit before the next one. ``memories_only`` keeps the walk on memory
    nodes (code and file nodes are skipped, not walked through).
    """
    if direction not in DIRECTIONS:
        raise InvalidInput("direction must be out, in or both")
    if strategy not in STRATEGIES:
        raise InvalidInput("strategy must be bfs or dfs")
    if not 0 <= depth <= MAX_TRAVERSE_DEPTH:
        raise InvalidInput(f"depth must be between 0 and {MAX_TRAVERSE_DEPTH}")
    if not 1 <= limit <= MAX_TRAVERSE_NODES:
        raise InvalidInput(f"limit must be between 1 and {MAX_TRAVERSE_NODES}")
    rels = [validate.relationship(r) for r in relationships]
    conn = engine.conn
    start = _start_step(conn, start_id)
    steps = [start]
    seen = {start.node_id}
    if strategy == "bfs":
        queue: deque[TraversalStep] = deque([start])
        while queue and len(steps) < limit:
            current = queue.popleft()
            if current.depth >= depth:
                continue
            for step in _children(conn, current, rels, direction, memories_only):
                if step.node_id in seen:
                    continue
                seen.add(step.node_id)
                steps.append(step)
                queue.append(step)
                if len(steps) >= limit:
                    break
    else:
        stack: list[TraversalStep] = [start]
        while stack and len(steps) < limit:
            current = stack.pop()
            if current is not start:
                if current.node_id in seen:
                    continue
                seen.add(current.node_id)
                steps.append(current)
            if current.depth >= depth:
                continue
            fresh = [
                s
                for s in _children(conn, current, rels, direction, memories_only)
                if s.node_id not in seen
            ]
            stack.extend(reversed(fresh))  # first neighbour is explored first
    _attach_memories(conn, steps)
    return steps


def _start_step(conn: sqlite3.Connection, start_id: str) -> TraversalStep:
    row = node(conn, start_id)
    if row is not None:
        return TraversalStep(row[0], row[1], row[2], 0)
    memory = memory_repo.fetch(conn, start_id)
    if memory is None:
        raise NotFound(f"no memory or graph node with id {start_id!r}")
    # A memory that was never linked has no node yet: a walk from it finds only itself.
    return TraversalStep(memory.id, "memory", memory.content[:80], 0)


def _children(
    conn: sqlite3.Connection,
    parent: TraversalStep,
    rels: Sequence[Relationship],
    direction: str,
    memories_only: bool,
) -> Iterable[TraversalStep]:
    for node_id, kind, name, _memory_id, rel, side, weight in adjacent(
        conn, parent.node_id, [str(r) for r in rels], direction, memories_only
    ):
        yield TraversalStep(
            node_id, kind, name, parent.depth + 1, parent.node_id, rel, side, weight
        )


def _attach_memories(conn: sqlite3.Connection, steps: list[TraversalStep]) -> None:
    ids = [s.node_id for s in steps if s.kind == "memory"]
    found = memory_repo.fetch_many(conn, ids)
    history = replaced(list(found), conn)
    for step in steps:
        step.memory = found.get(step.node_id)
        step.replaced = history.get(step.node_id)


# ---- decision chains --------------------------------------------------------------------------


def _looks_like_path(topic: str) -> bool:
    name = topic.rsplit("/", 1)[-1]
    return "/" in topic or "\\" in topic or ("." in name and not name.endswith("."))


def get_decision_chain(
    engine: Engine,
    topic: str,
    *,
    namespace: str | None = None,
    limit: int = 50,
) -> DecisionChain:
    """Decision memories about a file or a topic, oldest first: how the choice evolved.

    A decision belongs to the chain when its text, tags or metadata mention ``topic`` (a file
    path is matched literally, e.g. ``src/auth.py``), when a topic's words all occur in it (FTS,
    stemmed), when it is linked in the graph to a node named ``topic`` (e.g. the file's node), or
    when it is linked to such a decision by an evolution edge (EVOLVED_INTO, SUPERSEDES, ...).
    With more than ``limit`` matches the most recent ``limit`` are kept.
    """
    if not isinstance(topic, str) or not topic.strip():
        raise InvalidInput("topic is empty; give a file path or a topic")
    if not 1 <= limit <= 1000:
        raise InvalidInput("limit must be between 1 and 1000")
    topic = topic.strip()
    ns = engine.resolve_namespace(namespace)
    conn = engine.conn
    flt = MemoryFilter(namespace=ns, memory_types=[MemoryType.DECISION])
    ids: set[str] = set()

    # Literal mention in text, tags or metadata (file paths, identifiers, exact phrases).
    ids.update(mentioning_memories(conn, flt, topic.lower()))

    # Every word of a topic (stemmed): "auth tokens" finds "tokens for authentication".
    if not _looks_like_path(topic):
        ids.update(matching_memories(conn, flt, query_terms(topic)))

    # Decisions linked to a non-memory node for the topic (a file, a module, a symbol).
    node_ids = topic_nodes(conn, topic)
    if node_ids:
        for edge in graph_repo.edges_of(conn, node_ids):
            other = edge.target_id if edge.source_id in node_ids else edge.source_id
            ids.add(other)

    # One hop along evolution edges, so a chain does not lose the step that renamed things.
    if ids:
        for edge in graph_repo.edges_of(conn, sorted(ids)):
            if edge.relationship in CHAIN_RELATIONSHIPS:
                ids.update((edge.source_id, edge.target_id))

    found = memory_repo.fetch_many(conn, sorted(ids))
    decisions = [
        m
        for m in found.values()
        if m.memory_type == MemoryType.DECISION and (ns is None or m.namespace == ns)
    ]
    decisions.sort(key=lambda m: (m.created_at, m.id))
    decisions = decisions[-limit:]
    chosen = {m.id for m in decisions}
    links = [
        e
        for e in graph_repo.edges_of(conn, sorted(chosen))
        if e.source_id in chosen and e.target_id in chosen
    ]
    links.sort(key=lambda e: (e.created_at, e.source_id, e.target_id, str(e.relationship)))
    return DecisionChain(topic, ns, decisions, links, replaced(sorted(chosen), conn))


def expand_hits(engine: Engine, hits: Sequence[SearchHit], depth: int) -> list[dict[str, Any]]:
    """Each hit as a dict (with its signals), plus the memories linked to it up to ``depth``
    hops under ``"expanded"``, each memory once across all hits, marked when a later one
    replaced it (as the hits are)."""
    seen = {h.memory.id for h in hits}
    out: list[dict[str, Any]] = []
    expansions: list[dict[str, Any]] = []
    for hit in hits:
        item = hit.to_dict(explain=True)
        item["expanded"] = []
        frontier = [hit.memory.id]
        for hop in range(1, depth + 1):
            next_frontier: list[str] = []
            for node_id in frontier:
                for n in graph_repo.neighbors(engine.conn, node_id):
                    if not n.memory_id or n.memory_id in seen:
                        continue
                    seen.add(n.memory_id)
                    linked = memory_repo.fetch(engine.conn, n.memory_id)
                    if linked is None:
                        continue
                    item["expanded"].append(
                        {
                            **linked.to_dict(),
                            "hop": hop,
                            "via": node_id,
                            "relationship": n.relationship,
                            "direction": n.direction,
                        }
                    )
                    next_frontier.append(n.memory_id)
            frontier = next_frontier
        out.append(item)
        expansions += item["expanded"]
    marked(engine.conn, expansions)
    return out
