"""Tool arguments shared by several tools: one description and one set of limits each."""

from typing import Annotated, Any

from mcp.types import ToolAnnotations
from pydantic import Field

from memlode.mcp.models import MemoryTypeName, RelationshipName

__all__ = [
    "DESTRUCTIVE",
    "IDEMPOTENT_WRITE",
    "READ_ONLY",
    "WRITE",
    "Confidence",
    "Content",
    "Explain",
    "Importance",
    "K",
    "MemoryId",
    "MemoryTypes",
    "Metadata",
    "Namespace",
    "ReadNamespace",
    "Relationships",
    "Tags",
]

MAX_ID_CHARS = 200
MAX_TAGS = 64
MAX_TAG_CHARS = 200
MAX_RECALL_K = 100
MAX_CONTENT_CHARS = 1_000_000  # the engine's own limit (memlode.validate.MAX_CONTENT_CHARS)

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
IDEMPOTENT_WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)

MemoryId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="A memory id, as returned by store_memory or recall_memory",
    ),
]
Content = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_CONTENT_CHARS,
        description="The text to remember: one self-contained fact, decision or pattern",
    ),
]
Importance = Annotated[
    float, Field(ge=0.0, le=1.0, description="How much this matters, 0 to 1 (0.5 is ordinary)")
]
Confidence = Annotated[
    float, Field(ge=0.0, le=1.0, description="How sure this is, 0 to 1 (1 is certain)")
]
Tags = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_TAG_CHARS)]] | None,
    Field(max_length=MAX_TAGS, description='Short labels, e.g. ["auth", "database"]'),
]
Metadata = Annotated[
    dict[str, Any] | None,
    Field(description='A JSON object of extra facts, e.g. {"file": "src/auth.py"}'),
]
Namespace = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="Namespace (one per project); default: the server's project",
    ),
]
ReadNamespace = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="Namespace to read; default: the server's project; '*' for every namespace",
    ),
]
K = Annotated[int, Field(ge=1, le=MAX_RECALL_K, description="How many results to return")]
MemoryTypes = Annotated[
    list[MemoryTypeName] | None,
    Field(max_length=7, description="Only memories of these types"),
]
Relationships = Annotated[
    list[RelationshipName] | None,
    Field(max_length=23, description="Only follow edges of these relationship types"),
]
Explain = Annotated[
    bool, Field(description="Include each scoring signal's contribution with every hit")
]
