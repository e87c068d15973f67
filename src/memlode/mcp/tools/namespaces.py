"""Namespace tools: list them, count one, delete one (only with confirm=true)."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from memlode.mcp.models import NamespaceDeleteOut, NamespaceOut, NamespacesOut, StatsOut
from memlode.mcp.params import DESTRUCTIVE, MAX_ID_CHARS, READ_ONLY, ReadNamespace
from memlode.mcp.tooling import ToolCall, mcp_tool

__all__ = ["delete_namespace", "list_namespaces", "namespace_stats", "stats_text"]


def stats_text(out: StatsOut) -> str:
    lines = [
        f"namespace {out.namespace}: {out.memories} memories "
        f"({out.embedded} embedded, {out.pending_embeddings} pending)",
    ]
    if out.by_type:
        lines.append("by type: " + ", ".join(f"{k} {v}" for k, v in out.by_type.items()))
    if out.by_source:
        lines.append("by source: " + ", ".join(f"{k} {v}" for k, v in out.by_source.items()))
    lines.append(f"graph: {out.graph_nodes} nodes, {out.graph_edges} edges")
    lines.append(f"sessions: {out.sessions}; last memory at {out.last_memory_at or '-'}")
    lines.append(f"database: {out.database} ({out.database_bytes} bytes)")
    return "\n".join(lines)


def _namespaces_text(out: NamespacesOut) -> str:
    lines = [f"current namespace: {out.current or '(none)'}"]
    if not out.namespaces:
        lines.append("no namespaces yet")
    for n in out.namespaces:
        lines.append(
            f"{n.namespace or '(none)'} ({n.name or '-'}): {n.memories} memories, "
            f"{n.sessions} sessions, {(n.first_at or '-')[:10]} .. {(n.last_at or '-')[:10]}"
            + (" (this project)" if n.current and n.namespace else "")
        )
    return "\n".join(lines)


@mcp_tool(
    READ_ONLY,
    "Every namespace (one per project: its key is the project's name and a hash of its"
    " identity, e.g. app-1a2b3c4d) with its counts and time span.",
    text=_namespaces_text,
)
def list_namespaces(call: ToolCall) -> NamespacesOut:
    return NamespacesOut(
        current=call.engine.namespace,
        namespaces=[NamespaceOut.model_validate(n) for n in call.engine.namespaces()],
    )


@mcp_tool(
    READ_ONLY,
    "Counts for one namespace (default: this project; '*' for all): memories by type "
    "and source, embedded and pending, graph size, sessions.",
    text=stats_text,
)
def namespace_stats(call: ToolCall, namespace: ReadNamespace = None) -> StatsOut:
    return StatsOut.model_validate(call.engine.stats(namespace))


@mcp_tool(
    DESTRUCTIVE,
    "Delete a namespace and everything in it (memories, graph, sessions, code index). "
    "A project's name stands for its key only when one project has it. Irreversible: "
    "ask the user first, then call with confirm=true.",
    text=lambda out: f"deleted namespace {out.namespace!r} ({out.deleted_memories} memories)",
    writes=True,
)
def delete_namespace(
    call: ToolCall,
    namespace: Annotated[
        str, Field(min_length=1, max_length=MAX_ID_CHARS, description="The namespace to delete")
    ],
    confirm: Annotated[
        bool, Field(description="Must be true: the user agreed to delete this namespace")
    ] = False,
) -> NamespaceDeleteOut:
    if not confirm:
        raise ToolError(
            f"not deleted: deleting namespace {namespace!r} cannot be undone; ask the user, "
            "then call delete_namespace again with confirm=true"
        )
    key = call.engine.existing_namespace(namespace)
    return NamespaceDeleteOut(namespace=key, deleted_memories=call.engine.delete_namespace(key))
