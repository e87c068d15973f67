"""The code tools' argument types and result models (``memlode.mcp.tools.code``).

Symbol hits are the engine's own dataclasses (``SymbolHit``, ``CodeHit``); the other results
are models of the dicts the engine functions return."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from memlode.code.model import CodeHit, SymbolHit
from memlode.mcp.params import MAX_ID_CHARS

__all__ = [
    "CentralNodeOut",
    "ClusterOut",
    "ClustersOut",
    "CodeSearchOut",
    "CrossRepoLinkOut",
    "CrossRepoOut",
    "IndexOut",
    "Kind",
    "Limit",
    "LinkOut",
    "MapFileOut",
    "OneNamespace",
    "PageRankOut",
    "Query",
    "RepoMapOut",
    "SymbolInfoOut",
    "SymbolKind",
    "SymbolRef",
    "SymbolRefOut",
    "SymbolsOut",
    "WalkHitOut",
    "WalkOut",
]

SymbolKind = Literal[
    "file",
    "package",
    "function",
    "method",
    "class",
    "interface",
    "type",
    "constant",
    "module",
    "endpoint",
    "test",
]

# ---- inputs -----------------------------------------------------------------------------------

Query = Annotated[
    str,
    Field(
        min_length=1,
        max_length=1000,
        description=(
            "A symbol name ('parse_config'), a dotted path ('Session.request') or a question "
            "in words ('where are passwords hashed')"
        ),
    ),
]
SymbolRef = Annotated[
    str,
    Field(
        min_length=1,
        max_length=1000,
        description=(
            "The symbol: a node id from search_symbols ('sym:...'), a qualified name "
            "('pkg.mod.func'), a dotted tail ('Class.method'), a bare name, or (impact "
            "only) a description in words ('the function that parses the config')"
        ),
    ),
]
Kind = Annotated[
    SymbolKind | None, Field(description="Only symbols of this kind; default: every kind")
]
Limit = Annotated[int, Field(ge=1, le=100, description="How many results to return")]
OneNamespace = Annotated[
    str | None,
    Field(
        min_length=1,
        max_length=MAX_ID_CHARS,
        description="Namespace (one per indexed project); default: the server's project",
    ),
]


# ---- outputs ----------------------------------------------------------------------------------


class SymbolsOut(BaseModel):
    query: str
    namespace: str = Field(description="The namespace searched ('*' for all)")
    hits: list[SymbolHit]


class CodeSearchOut(BaseModel):
    query: str
    namespace: str
    hits: list[CodeHit]


class IndexOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    namespace: str
    root: str
    files: int = Field(description="Indexed files after the run")
    parsed: int = Field(description="Files parsed in this run")
    unchanged: int = Field(description="Files skipped because they did not change")
    deleted: int
    skipped: int = Field(description="Binary, generated or unreadable files")
    symbols: int
    references: int
    resolved: int
    packages: int
    seconds: float


class LinkOut(BaseModel):
    node_id: str
    name: str
    relationship: str


class SymbolInfoOut(BaseModel):
    node_id: str
    name: str
    qualified_name: str
    kind: str
    path: str
    line: int
    end_line: int
    signature: str
    doc: str
    visibility: str
    parent: str | None
    pagerank: float
    callers: list[LinkOut] = Field(description="What uses it directly (incoming edges)")
    callees: list[LinkOut] = Field(description="What it uses directly (outgoing edges)")
    members: list[LinkOut] = Field(description="What it contains (methods, attributes)")


class SymbolRefOut(BaseModel):
    node_id: str
    name: str
    qualified_name: str
    kind: str
    path: str
    line: int


class WalkHitOut(BaseModel):
    node_id: str
    name: str
    kind: str
    path: str
    line: int
    depth: int = Field(description="Hops from the symbol")
    relationship: str = Field(description="How it is linked to the level before (CALLS, ...)")
    pagerank: float
    via: str | None = Field(
        default=None, description="For a symbol described in words: the match it depends on"
    )


class ResolvedCandidateOut(BaseModel):
    qualified_name: str
    score: float


class ResolvedOut(BaseModel):
    query: str = Field(description="The description given as the symbol")
    candidates: list[ResolvedCandidateOut] = Field(
        description="Symbol search's best matches; the first is the symbol analysed"
    )


class WalkOut(BaseModel):
    symbol: SymbolRefOut | None
    depth: int
    hits: list[WalkHitOut] = Field(description="Nearest first, then by PageRank")
    truncated: bool
    resolved: ResolvedOut | None = Field(
        default=None, description="How a description in words was resolved to a symbol"
    )


class CentralNodeOut(BaseModel):
    node_id: str
    name: str
    kind: str
    path: str
    pagerank: float
    betweenness: float
    degree: float
    cluster: int | None


class PageRankOut(BaseModel):
    namespace: str
    kind: str | None
    nodes: list[CentralNodeOut]


class ClusterOut(BaseModel):
    cluster: int
    size: int = Field(description="Nodes in the community")
    members: list[CentralNodeOut] = Field(description="Its most central members")


class ClustersOut(BaseModel):
    namespace: str
    clusters: list[ClusterOut]


class CrossRepoLinkOut(BaseModel):
    source_namespace: str
    source_package: str
    target_namespace: str
    target_package: str
    via: str = Field(description="manifest (a declared dependency) or import (found in code)")
    modules: list[str]


class CrossRepoOut(BaseModel):
    links: list[CrossRepoLinkOut]


class MapFileOut(BaseModel):
    path: str
    rank: float
    symbols: list[str]


class RepoMapOut(BaseModel):
    namespace: str
    text: str = Field(description="The map: files by importance, each with key signatures")
    tokens: int = Field(description="Estimated tokens of the text")
    budget: int
    files: list[MapFileOut]
    focus: list[str]
    heat: dict[str, float] = Field(description="Recently edited files and their heat")
