"""Graph tools: link memories, walk the links, and follow a file's or topic's decisions."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from memlode.mcp.models import (
    DecisionChainOut,
    EdgeOut,
    MemoryBriefOut,
    RelationshipName,
    TraversalNodeOut,
    TraverseOut,
)
from memlode.mcp.params import (
    IDEMPOTENT_WRITE,
    READ_ONLY,
    MemoryId,
    Metadata,
    ReadNamespace,
    Relationships,
)
from memlode.mcp.render import memory_text, replaced_note, short
from memlode.mcp.tooling import ToolCall, mcp_tool

__all__ = ["associate_memories", "get_decision_chain", "graph_traverse"]


@mcp_tool(
    IDEMPOTENT_WRITE,
    "Link two memories with a typed edge source -> target, e.g. a decision LEADS_TO "
    "a pattern, a new decision SUPERSEDES an old one. Linking again updates the weight.",
    text=lambda out: f"linked {out.source_id} -{out.relationship}-> {out.target_id}",
    writes=True,
)
def associate_memories(
    call: ToolCall,
    source_id: Annotated[MemoryId, Field(description="The memory the edge starts at")],
    target_id: Annotated[MemoryId, Field(description="The memory the edge points to")],
    relationship: Annotated[
        RelationshipName, Field(description="What the link means")
    ] = "RELATES_TO",
    weight: Annotated[
        float, Field(ge=0.0, le=1000.0, description="Strength of the link (1 is normal)")
    ] = 1.0,
    properties: Annotated[Metadata, Field(description="A JSON object stored on the edge")] = None,
) -> EdgeOut:
    edge = call.engine.associate(source_id, target_id, relationship, weight, properties)
    return EdgeOut.model_validate(edge.to_dict())


def _traverse_text(out: TraverseOut) -> str:
    lines = [
        f"{len(out.nodes) - 1} nodes reached from {out.start_id} "
        f"({out.strategy}, depth {out.depth})"
    ]
    for node in out.nodes:
        indent = "  " * node.depth
        if node.depth == 0:
            link = "start"
        elif node.direction == "out":
            link = f"-{node.relationship}-> from {node.parent}"
        else:
            link = f"<-{node.relationship}- of {node.parent}"
        if node.memory is None:
            lines.append(f"{indent}{node.node_id}  ({link})  {short(node.name, 90)}")
            continue
        note = replaced_note(node.memory.model_dump())
        mark = f"  {note}" if note else ""
        lines.append(f"{indent}{node.node_id}  ({link}){mark}  {short(node.memory.content, 90)}")
    return "\n".join(lines)


@mcp_tool(
    READ_ONLY,
    "Walk the memory graph from one memory, breadth-first (by distance) or depth-first "
    "(branch by branch), up to `depth` hops, optionally only along some relationships.",
    text=_traverse_text,
)
def graph_traverse(
    call: ToolCall,
    memory_id: Annotated[MemoryId, Field(description="The memory to start from")],
    depth: Annotated[int, Field(ge=1, le=5, description="How many hops to go")] = 2,
    relationships: Relationships = None,
    direction: Annotated[
        Literal["out", "in", "both"],
        Field(description="out: follow edges forward; in: backward; both: either way"),
    ] = "both",
    strategy: Annotated[
        Literal["bfs", "dfs"], Field(description="bfs: breadth-first; dfs: depth-first")
    ] = "bfs",
    limit: Annotated[
        int, Field(ge=1, le=1000, description="At most this many nodes, start included")
    ] = 100,
) -> TraverseOut:
    from memlode.engine.graph_ops import graph_traverse as walk

    steps = walk(
        call.engine,
        memory_id,
        depth=depth,
        relationships=relationships or (),
        direction=direction,
        strategy=strategy,
        limit=limit,
    )
    return TraverseOut(
        start_id=memory_id,
        strategy=strategy,
        depth=depth,
        nodes=[TraversalNodeOut.model_validate(s.to_dict()) for s in steps],
    )


def _chain_text(out: DecisionChainOut) -> str:
    if not out.decisions:
        return (
            f"no decisions about {out.topic!r} in namespace {out.namespace}; "
            "store one with store_memory(memory_type='decision')"
        )
    lines = [f"{len(out.decisions)} decisions about {out.topic!r}, oldest first:"]
    for i, memory in enumerate(out.decisions, start=1):
        lines.append(memory_text(memory.model_dump(), prefix=f"{i}. "))
    if out.links:
        lines.append("links:")
        lines += [f"  {e.source_id} -{e.relationship}-> {e.target_id}" for e in out.links]
    return "\n".join(lines)


@mcp_tool(
    READ_ONLY,
    "The decisions taken about a file or a topic, oldest first, with the links between "
    "them (EVOLVED_INTO, SUPERSEDES, ...): how and why the choice evolved.",
    text=_chain_text,
)
def get_decision_chain(
    call: ToolCall,
    topic: Annotated[
        str,
        Field(
            min_length=1,
            max_length=1000,
            description="A file path (src/auth.py) or a topic (token refresh)",
        ),
    ],
    namespace: ReadNamespace = None,
    limit: Annotated[
        int, Field(ge=1, le=200, description="At most this many (the most recent)")
    ] = 50,
) -> DecisionChainOut:
    from memlode.engine.graph_ops import get_decision_chain as chain_of

    data = chain_of(call.engine, topic, namespace=namespace, limit=limit).to_dict()
    return DecisionChainOut(
        topic=data["topic"],
        namespace=data["namespace"],
        decisions=[MemoryBriefOut.model_validate(m) for m in data["decisions"]],
        links=[EdgeOut.model_validate(e) for e in data["links"]],
    )
