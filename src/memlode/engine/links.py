"""Links between memories: a user's typed, weighted edges, and a memory's neighbours."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memlode import validate
from memlode.engine.supersession import marked
from memlode.errors import InvalidInput, NotFound
from memlode.storage import graph as graph_repo
from memlode.storage import memories as memory_repo
from memlode.types import Edge, Relationship

if TYPE_CHECKING:
    from memlode.storage.store import Store

__all__ = ["associate", "neighbors"]


def associate(
    db: Store,
    source_id: str,
    target_id: str,
    relationship: Relationship | str = Relationship.RELATES_TO,
    weight: float = 1.0,
    properties: dict[str, Any] | str | None = None,
) -> Edge:
    """Link two memories (both must exist) with a typed, weighted edge."""
    rel = validate.relationship(relationship)
    props = validate.metadata(properties)
    try:
        weight = float(weight)
    except (TypeError, ValueError):
        raise InvalidInput(f"weight must be a number, got {weight!r}") from None
    if source_id == target_id:
        raise InvalidInput("a memory cannot be associated with itself")
    with db.write() as conn:
        for memory_id in (source_id, target_id):
            memory = memory_repo.fetch(conn, memory_id)
            if memory is None:
                raise NotFound(f"no memory with id {memory_id!r}")
            graph_repo.ensure_memory_node(conn, memory.id, memory.content, memory.namespace)
        edge = Edge(source_id, target_id, rel, weight, props)
        graph_repo.add_edge(conn, edge)
    return edge


def neighbors(
    conn: sqlite3.Connection,
    memory_id: str,
    relationships: Sequence[Relationship | str] = (),
    direction: str = "both",
) -> list[dict[str, Any]]:
    """The memory's graph neighbours, with the memory each one is (where it is one)."""
    if direction not in ("in", "out", "both"):
        raise InvalidInput("direction must be in, out or both")
    if memory_repo.fetch(conn, memory_id) is None:
        raise NotFound(f"no memory with id {memory_id!r}")
    rels = [validate.relationship(r) for r in relationships]
    found = graph_repo.neighbors(conn, memory_id, rels, direction)
    memories = memory_repo.fetch_many(conn, [n.memory_id for n in found if n.memory_id])
    out: list[dict[str, Any]] = []
    for n in found:
        item: dict[str, Any] = {
            "node_id": n.node_id,
            "kind": n.kind,
            "name": n.name,
            "relationship": n.relationship,
            "direction": n.direction,
            "weight": n.weight,
        }
        if n.memory_id and n.memory_id in memories:
            item["memory"] = memories[n.memory_id].to_dict()
        out.append(item)
    marked(conn, [item["memory"] for item in out if "memory" in item])
    return out
