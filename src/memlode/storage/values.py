"""The values the repositories take and give that are not a ``memlode.types`` record: a memory
about to be stored (``NewMemory``), which memories a read selects (``MemoryFilter``), a graph
node to write (``Node``) and a neighbour read back (``Neighbor``).

Import-light and free of any implementation: the standard library and ``memlode.types`` only,
so that ``search/``, ``engine/`` and the repositories themselves name these types without
importing a repository (and what a repository imports: the redaction choke point, the
connection). ``MemoryFilter.where`` spells the filter in SQL for the ``Dialect`` it is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memlode.types import MemoryType, NodeKind

if TYPE_CHECKING:
    from memlode.storage.sql import Dialect

__all__ = ["PROMPT_TAG", "MemoryFilter", "Neighbor", "NewMemory", "Node"]

PROMPT_TAG = "prompt"  # the tag of a prompt the UserPromptSubmit hook stored


@dataclass(slots=True)
class NewMemory:
    """A memory about to be stored. ``id``/``created_at`` are filled in when left empty."""

    content: str
    memory_type: MemoryType = MemoryType.CONTEXT
    importance: float = 0.5
    confidence: float = 1.0
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    namespace: str = ""
    source: str = "memory"
    session_id: str | None = None
    created_at: str | None = None
    id: str | None = None


@dataclass(slots=True)
class MemoryFilter:
    namespace: str | None = None  # None = every namespace
    also_namespaces: Sequence[str] = ()  # read beside ``namespace`` (the global one)
    memory_types: Sequence[MemoryType] = ()
    tags: Sequence[str] = ()  # all must be present
    sources: Sequence[str] = ()
    session_id: str | None = None
    since: str | None = None  # inclusive, stored timestamp format
    until: str | None = None  # exclusive
    # Leave out the prompts the hooks stored (tag PROMPT_TAG): a question is not an answer,
    # and the prompt just submitted must not come back as the best hit for itself.
    exclude_prompts: bool = False
    # Leave out one session's rows: the asking hook's own session is already in the
    # assistant's context (memlode.resident's recall).
    exclude_session_id: str | None = None
    # Only what one person or machine stored (``memories.created_by``; a team store's filter).
    created_by: str | None = None

    def namespaces(self) -> tuple[str, ...]:
        """The namespaces this filter reads (empty: every namespace)."""
        if self.namespace is None:
            return ()
        return (self.namespace, *(n for n in self.also_namespaces if n != self.namespace))

    def where(self, alias: str, dialect: Dialect) -> tuple[str, list[object]]:
        """This filter as a condition on ``memories`` (alias ``alias``) in ``dialect``'s SQL
        (``memlode.storage.sql.dialect_of(conn)``), and its parameters."""
        clauses: list[str] = []
        params: list[object] = []
        if self.exclude_prompts:
            clauses.append(dialect.json_lacks(f"{alias}.tags"))
            params.append(PROMPT_TAG)
        if self.namespace is not None and self.also_namespaces:
            names = self.namespaces()
            clauses.append(f"{alias}.namespace IN ({','.join('?' * len(names))})")
            params.extend(names)
        elif self.namespace is not None:
            clauses.append(f"{alias}.namespace = ?")
            params.append(self.namespace)
        if self.memory_types:
            clauses.append(f"{alias}.memory_type IN ({','.join('?' * len(self.memory_types))})")
            params.extend(str(t) for t in self.memory_types)
        for tag in self.tags:
            clauses.append(dialect.json_has(f"{alias}.tags"))
            params.append(tag)
        if self.sources:
            clauses.append(f"{alias}.source IN ({','.join('?' * len(self.sources))})")
            params.extend(self.sources)
        if self.session_id is not None:
            clauses.append(f"{alias}.session_id = ?")
            params.append(self.session_id)
        if self.exclude_session_id is not None:
            clauses.append(f"({alias}.session_id IS NULL OR {alias}.session_id != ?)")
            params.append(self.exclude_session_id)
        if self.since is not None:
            clauses.append(f"{alias}.created_at >= ?")
            params.append(self.since)
        if self.until is not None:
            clauses.append(f"{alias}.created_at < ?")
            params.append(self.until)
        if self.created_by is not None:
            clauses.append(f"{alias}.created_by = ?")
            params.append(self.created_by)
        return (" AND ".join(clauses) if clauses else "TRUE"), params


@dataclass(slots=True)
class Node:
    """A row of ``graph_nodes`` to write (``memlode.storage.graph.upsert_node``)."""

    id: str
    kind: NodeKind
    name: str
    namespace: str = ""
    memory_id: str | None = None
    properties: dict[str, Any] | None = None


@dataclass(slots=True)
class Neighbor:
    """A node next to another along one edge (``memlode.storage.graph.neighbors``)."""

    node_id: str
    kind: str
    name: str
    memory_id: str | None
    relationship: str
    direction: str  # "out" (node -> neighbor) or "in"
    weight: float
