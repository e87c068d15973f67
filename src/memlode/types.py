"""Core value types shared by every layer: the vocabularies and the records they describe.

L0: stdlib only. Enum values are the strings stored in SQLite and shown to users.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "Edge",
    "Memory",
    "MemoryType",
    "NodeKind",
    "Relationship",
    "Session",
    "format_ts",
    "parse_ts",
    "utcnow",
]


class MemoryType(enum.StrEnum):
    DECISION = "decision"
    PATTERN = "pattern"
    PREFERENCE = "preference"
    STYLE = "style"
    HABIT = "habit"
    INSIGHT = "insight"
    CONTEXT = "context"


class NodeKind(enum.StrEnum):
    FILE = "file"
    PACKAGE = "package"
    FUNCTION = "function"
    METHOD = "method"
    CLASS = "class"
    INTERFACE = "interface"
    TYPE = "type"
    CONSTANT = "constant"
    MODULE = "module"
    MEMORY = "memory"
    ENDPOINT = "endpoint"
    TEST = "test"


class Relationship(enum.StrEnum):
    # General
    RELATES_TO = "RELATES_TO"
    LEADS_TO = "LEADS_TO"
    PART_OF = "PART_OF"
    # Knowledge
    REINFORCES = "REINFORCES"
    CONTRADICTS = "CONTRADICTS"
    EVOLVED_INTO = "EVOLVED_INTO"
    DERIVED_FROM = "DERIVED_FROM"
    INVALIDATED_BY = "INVALIDATED_BY"
    # Code
    DEPENDS_ON = "DEPENDS_ON"
    IMPORTS = "IMPORTS"
    EXTENDS = "EXTENDS"
    CALLS = "CALLS"
    CONTAINS = "CONTAINS"
    SUPERSEDES = "SUPERSEDES"
    BLOCKS = "BLOCKS"
    # Structural
    IMPLEMENTS = "IMPLEMENTS"
    INHERITS = "INHERITS"
    # Semantic
    SIMILAR_TO = "SIMILAR_TO"
    PRECEDED_BY = "PRECEDED_BY"
    EXEMPLIFIES = "EXEMPLIFIES"
    EXPLAINS = "EXPLAINS"
    SHARES_THEME = "SHARES_THEME"
    SUMMARIZES = "SUMMARIZES"


# Timestamps are stored as fixed-width ISO-8601 UTC text, so that text order is time order.
_TS_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def utcnow() -> datetime:
    return datetime.now(UTC)


def format_ts(value: datetime) -> str:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime(_TS_FORMAT)


def parse_ts(value: str) -> datetime:
    """Parse a stored timestamp, or any ISO-8601 date/time a user gives (naive means UTC)."""
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


@dataclass(slots=True)
class Memory:
    """One retrievable piece of text: a stored memory, a transcript turn, a doc chunk, ..."""

    id: str
    content: str
    memory_type: MemoryType = MemoryType.CONTEXT
    importance: float = 0.5
    confidence: float = 1.0
    access_count: int = 0
    content_hash: str = ""
    tags: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    namespace: str = ""
    source: str = "memory"
    session_id: str | None = None
    created_at: str = ""
    updated_at: str = ""
    last_accessed_at: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "content": self.content,
            "memory_type": str(self.memory_type),
            "importance": self.importance,
            "confidence": self.confidence,
            "access_count": self.access_count,
            "content_hash": self.content_hash,
            "tags": list(self.tags),
            "metadata": dict(self.metadata),
            "namespace": self.namespace,
            "source": self.source,
            "session_id": self.session_id,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "last_accessed_at": self.last_accessed_at,
        }


@dataclass(slots=True)
class SearchHit:
    """A memory recalled for a query, its score and each signal's contribution (the engine's
    search and the resident's answer to the CLI both give these)."""

    memory: Memory
    score: float
    signals: dict[str, float] = field(default_factory=dict)
    # when a later memory replaced it: {"replaced_by": its id, "replaced_at": when}
    replaced: dict[str, str] | None = None

    def to_dict(self, explain: bool = False) -> dict[str, Any]:
        out = self.memory.to_dict()
        out["score"] = round(self.score, 6)
        if explain:
            out["signals"] = {k: round(v, 6) for k, v in self.signals.items()}
        if self.replaced is not None:
            out.update(self.replaced)
        return out


@dataclass(slots=True)
class Edge:
    source_id: str
    target_id: str
    relationship: Relationship
    weight: float = 1.0
    properties: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "target_id": self.target_id,
            "relationship": str(self.relationship),
            "weight": self.weight,
            "properties": dict(self.properties),
            "created_at": self.created_at,
        }


@dataclass(slots=True)
class Session:
    id: str
    namespace: str = ""
    started_at: str = ""
    ended_at: str | None = None
    summary: str | None = None
    source: str = "cli"
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "namespace": self.namespace,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "summary": self.summary,
            "source": self.source,
            "metadata": dict(self.metadata),
        }
