"""Typed shapes of tool inputs and outputs: they become each tool's inputSchema / outputSchema.

The vocabularies are spelled out as ``Literal`` types so a client sees the allowed values in the
schema (an enum) instead of learning them from an error; a test keeps them equal to the enums in
``memlode.types``.
"""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memlode.types import Memory

__all__ = [
    "DecisionChainOut",
    "DeleteOut",
    "EdgeOut",
    "ExpandedHitOut",
    "ExpansionOut",
    "ExportOut",
    "HitOut",
    "ImportOut",
    "LinkedMemoryOut",
    "MemoryBriefOut",
    "MemoryOut",
    "MemoryTypeName",
    "NamespaceDeleteOut",
    "NamespaceOut",
    "NamespacesOut",
    "RecallOut",
    "RelationshipName",
    "StatsOut",
    "StoreOut",
    "TraversalNodeOut",
    "TraverseOut",
    "WeightsOut",
]

MemoryTypeName = Literal[
    "decision", "pattern", "preference", "style", "habit", "insight", "context"
]

RelationshipName = Literal[
    "RELATES_TO",
    "LEADS_TO",
    "PART_OF",
    "REINFORCES",
    "CONTRADICTS",
    "EVOLVED_INTO",
    "DERIVED_FROM",
    "INVALIDATED_BY",
    "DEPENDS_ON",
    "IMPORTS",
    "EXTENDS",
    "CALLS",
    "CONTAINS",
    "SUPERSEDES",
    "BLOCKS",
    "IMPLEMENTS",
    "INHERITS",
    "SIMILAR_TO",
    "PRECEDED_BY",
    "EXEMPLIFIES",
    "EXPLAINS",
    "SHARES_THEME",
    "SUMMARIZES",
]


def _replaced_by() -> Any:
    return Field(
        default=None,
        description="The memory that replaced this one, if one did: this one is history",
    )


def _replaced_at() -> Any:
    return Field(default=None, description="When it was replaced")


class MemoryOut(BaseModel):
    id: str
    content: str
    memory_type: str
    importance: float
    confidence: float
    access_count: int
    tags: list[str]
    metadata: dict[str, Any]
    namespace: str
    source: str
    session_id: str | None
    created_at: str
    updated_at: str
    last_accessed_at: str | None
    replaced_by: str | None = _replaced_by()
    replaced_at: str | None = _replaced_at()

    @classmethod
    def of(cls, memory: Memory, replaced: dict[str, str] | None = None) -> "MemoryOut":
        return cls.model_validate({**memory.to_dict(), **(replaced or {})})


class MemoryBriefOut(BaseModel):
    """A memory as a model reads it: what it says, what it is, when, and whether it was
    replaced. Claude Code hands the model this JSON, not the tool's text (bench/RESULTS.md,
    "Session 35"), so the bookkeeping of a stored row (metadata, access counts, every
    timestamp) stays out of every listing; ``get_memory`` returns all of it."""

    id: str
    content: str
    memory_type: str
    tags: list[str]
    namespace: str
    source: str
    created_at: str
    replaced_by: str | None = _replaced_by()
    replaced_at: str | None = _replaced_at()


class HitOut(MemoryBriefOut):
    """A recalled memory, with its score."""

    score: float
    signals: dict[str, float] | None = Field(
        default=None, description="Each signal's contribution (only with explain=true)"
    )


class ReplacedOut(BaseModel):
    id: str
    content: str
    created_at: str


class StoreOut(BaseModel):
    id: str
    created: bool = Field(description="False: the same content was already stored under this id")
    namespace: str
    replaces: list[ReplacedOut] = Field(
        default_factory=list,
        description="Earlier statements this one was found to replace (now history); undo a "
        "wrong one with supersede_memory(old_id, new_id, undo=true)",
    )
    may_replace: list[ReplacedOut] = Field(
        default_factory=list,
        description="Earlier statements on the same subject that nothing links to it, nearest "
        "first: if it replaces one, link them with supersede_memory(old_id, new_id)",
    )
    next_step: str | None = Field(
        default=None,
        description="The supersede_memory call to make (or to undo) when it replaces, or may "
        "replace, an earlier statement; null when there is nothing to judge",
    )


class RecallOut(BaseModel):
    query: str
    namespace: str = Field(description="The namespace searched ('*' for all)")
    hits: list[HitOut]


class LinkedMemoryOut(MemoryBriefOut):
    hop: int = Field(description="Graph distance from the hit")
    via: str = Field(description="The node this memory was reached from")
    relationship: str
    direction: str = Field(description="out: via -> this memory; in: this memory -> via")


class ExpandedHitOut(HitOut):
    expanded: list[LinkedMemoryOut] = Field(description="Memories linked to this hit")


class ExpansionOut(BaseModel):
    query: str
    namespace: str
    depth: int
    hits: list[ExpandedHitOut]


class DependentOut(BaseModel):
    node_id: str
    name: str
    kind: str
    path: str
    line: int
    depth: int = Field(description="Hops from the code the memory is about")
    relationship: str = Field(description="How it depends on the level above (CALLS, ...)")
    pagerank: float


class CodeImpactOut(BaseModel):
    ref: str = Field(description="The code node the memory is about (a file or a symbol)")
    name: str
    kind: str
    path: str
    line: int
    dependents: list[DependentOut] = Field(description="What depends on it, nearest first")
    more: int = Field(description="Dependents left out of the list")
    truncated: bool


class ImpactHitOut(HitOut):
    code: list[CodeImpactOut] = Field(description="The code this memory is about, with impact")


class ImpactOut(BaseModel):
    query: str
    namespace: str | None
    code_indexed: bool = Field(description="False: no code index, so no impact (hits only)")
    hits: list[ImpactHitOut]
    files_affected: list[str] = Field(description="Every file that depends on the hits' code")


class DeleteOut(BaseModel):
    id: str
    deleted: bool


class EdgeOut(BaseModel):
    source_id: str
    target_id: str
    relationship: str
    weight: float
    properties: dict[str, Any]
    created_at: str


class TraversalNodeOut(BaseModel):
    node_id: str
    kind: str
    name: str
    depth: int
    parent: str | None
    relationship: str | None
    direction: str | None
    weight: float | None
    memory: MemoryBriefOut | None


class TraverseOut(BaseModel):
    start_id: str
    strategy: str
    depth: int
    nodes: list[TraversalNodeOut]


class DecisionChainOut(BaseModel):
    topic: str
    namespace: str
    decisions: list[MemoryBriefOut] = Field(description="Oldest first")
    links: list[EdgeOut] = Field(description="Edges between decisions of the chain")


class NamespaceOut(BaseModel):
    namespace: str = Field(description="The key: a project's name and a hash of its identity")
    name: str = Field("", description="The readable name (the key without its hash)")
    memories: int
    sessions: int = 0
    code_files: int = 0
    first_at: str | None
    last_at: str | None
    current: bool = False


class NamespacesOut(BaseModel):
    current: str = Field(description="The server's own namespace (its project)")
    namespaces: list[NamespaceOut]


class NamespaceDeleteOut(BaseModel):
    namespace: str
    deleted_memories: int


class StatsOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    namespace: str
    memories: int
    by_type: dict[str, int]
    by_source: dict[str, int]
    embedded: int
    pending_embeddings: int
    graph_nodes: int
    graph_edges: int
    sessions: int
    last_memory_at: str | None
    database: str
    database_bytes: int


class ExportOut(BaseModel):
    namespace: str
    records: int = Field(description="Memories, sessions and edges written (header excluded)")
    jsonl: str = Field(description="One JSON object per line; give it to import_memories")


class ImportOut(BaseModel):
    memories_added: int
    memories_skipped: int
    edges_added: int
    edges_skipped: int
    sessions_added: int


class WeightsOut(BaseModel):
    weights: dict[str, float] = Field(description="Effective signal weights, summing to 1")
