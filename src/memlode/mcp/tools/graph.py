"""Graph tools: link memories, walk the links, and follow a file's or topic's decisions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from memlode.mcp.context import ToolContext
from memlode.mcp.models import (
    DecisionChainOut,
    EdgeOut,
    MemoryOut,
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
from memlode.mcp.render import memory_text, respond, short

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["register"]


def register(server: MCPServer[Any], ctx: ToolContext) -> None:
    @server.tool(
        annotations=IDEMPOTENT_WRITE,
        description=(
            "Link two memories with a typed edge source -> target, e.g. a decision LEADS_TO "
            "a pattern, a new decision SUPERSEDES an old one. Linking again updates the weight."
        ),
    )
    def associate_memories(
        source_id: Annotated[MemoryId, Field(description="The memory the edge starts at")],
        target_id: Annotated[MemoryId, Field(description="The memory the edge points to")],
        relationship: Annotated[
            RelationshipName, Field(description="What the link means")
        ] = "RELATES_TO",
        weight: Annotated[
            float, Field(ge=0.0, le=1000.0, description="Strength of the link (1 is normal)")
        ] = 1.0,
        properties: Annotated[
            Metadata, Field(description="A JSON object stored on the edge")
        ] = None,
    ) -> Annotated[CallToolResult, EdgeOut]:
        def call(engine: Engine) -> EdgeOut:
            edge = engine.associate(source_id, target_id, relationship, weight, properties)
            return EdgeOut.model_validate(edge.to_dict())

        out = ctx.run(call, writes=True)
        return respond(out, f"linked {out.source_id} -{out.relationship}-> {out.target_id}")

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Walk the memory graph from one memory, breadth-first (by distance) or depth-first "
            "(branch by branch), up to `depth` hops, optionally only along some relationships."
        ),
    )
    def graph_traverse(
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
    ) -> Annotated[CallToolResult, TraverseOut]:
        def call(engine: Engine) -> TraverseOut:
            from memlode.engine.graph_ops import graph_traverse as walk

            steps = walk(
                engine,
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

        out = ctx.run(call)
        lines = [f"{len(out.nodes) - 1} nodes reached from {memory_id} ({strategy}, depth {depth})"]
        for node in out.nodes:
            indent = "  " * node.depth
            if node.depth == 0:
                link = "start"
            elif node.direction == "out":
                link = f"-{node.relationship}-> from {node.parent}"
            else:
                link = f"<-{node.relationship}- of {node.parent}"
            text = node.memory.content if node.memory is not None else node.name
            lines.append(f"{indent}{node.node_id}  ({link})  {short(text, 90)}")
        return respond(out, "\n".join(lines))

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "The decisions taken about a file or a topic, oldest first, with the links between "
            "them (EVOLVED_INTO, SUPERSEDES, ...): how and why the choice evolved."
        ),
    )
    def get_decision_chain(
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
    ) -> Annotated[CallToolResult, DecisionChainOut]:
        def call(engine: Engine) -> DecisionChainOut:
            from memlode.engine.graph_ops import get_decision_chain as chain_of

            chain = chain_of(engine, topic, namespace=namespace, limit=limit)
            data = chain.to_dict()
            return DecisionChainOut(
                topic=data["topic"],
                namespace=data["namespace"],
                decisions=[MemoryOut.model_validate(m) for m in data["decisions"]],
                links=[EdgeOut.model_validate(e) for e in data["links"]],
            )

        out = ctx.run(call)
        if not out.decisions:
            text = (
                f"no decisions about {topic!r} in namespace {out.namespace}; "
                "store one with store_memory(memory_type='decision')"
            )
            return respond(out, text)
        lines = [f"{len(out.decisions)} decisions about {topic!r}, oldest first:"]
        for i, memory in enumerate(out.decisions, start=1):
            lines.append(memory_text(memory.model_dump(), prefix=f"{i}. "))
        if out.links:
            lines.append("links:")
            lines += [f"  {e.source_id} -{e.relationship}-> {e.target_id}" for e in out.links]
        return respond(out, "\n".join(lines))
