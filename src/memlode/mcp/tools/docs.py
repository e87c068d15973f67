"""Memory-file tools: read, search and write MEMORY.md, memory/<name>.md, SOUL.md, USER.md
(project and global), and re-index them with the project's docs.

Thin adapters over :mod:`memlode.engine.docs`, the functions behind ``memlode memory
get/search/store`` and ``memlode docs index``. Paths are guarded there: only memory files can
be read or written.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memlode.mcp.params import IDEMPOTENT_WRITE, READ_ONLY, WRITE
from memlode.mcp.render import short
from memlode.mcp.tooling import ToolCall, mcp_tool

__all__ = ["docs_reindex", "memory_get", "memory_search", "memory_store"]

MAX_NOTE_CHARS = (
    500_000  # memlode.engine.docs refuses notes above MAX_FILE_BYTES // 2 with a message
)


class MemoryFileOut(BaseModel):
    ref: str = Field(description="How to name the file again (e.g. memory/auth.md)")
    path: str
    scope: str = Field(description="project or global")
    namespace: str
    content: str
    bytes: int
    modified_at: str


class DocHitOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    ref: str | None = Field(description="For memory files: what memory_get accepts")
    path: str | None
    file: str | None
    scope: str | None
    namespace: str
    headings: list[str]
    chunk: int | None
    lines: list[int] | None
    evergreen: bool
    score: float
    text: str


class DocSearchOut(BaseModel):
    query: str
    docs_only: bool = Field(description="True: no project here, only global files searched")
    namespaces: list[str]
    results: list[DocHitOut]


class MemoryStoreOut(BaseModel):
    ref: str
    path: str
    scope: str
    namespace: str
    mode: str
    bytes: int
    chunks_added: int
    chunks_removed: int


class DocsIndexOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    docs_only: bool
    project_root: str | None
    namespaces: list[str]
    files: int
    indexed: int
    skipped: int = Field(description="Unchanged files")
    removed: int
    chunks_added: int
    chunks_removed: int
    errors: list[dict[str, Any]]


@mcp_tool(
    READ_ONLY,
    "Read a whole memory file: MEMORY.md, SOUL.md, USER.md, memory/<name>.md of this "
    "project, or global/<same> for the user's global ones.",
    text=lambda out: f"{out.ref} ({out.scope}, {out.bytes} bytes):\n{out.content}",
)
def memory_get(
    call: ToolCall,
    path: Annotated[
        str,
        Field(
            min_length=1,
            max_length=500,
            description="e.g. 'MEMORY.md', 'memory/auth.md', 'global/SOUL.md'",
        ),
    ],
) -> MemoryFileOut:
    from memlode.engine.docs import memory_get as _get

    return MemoryFileOut.model_validate(_get(call.engine, path, cwd=call.cwd))


def _search_text(out: DocSearchOut) -> str:
    if not out.results:
        return f"no memory files or docs match {out.query!r}"
    lines = [f"{len(out.results)} chunks for {out.query!r}:"]
    for i, hit in enumerate(out.results, start=1):
        where = hit.ref or hit.path or hit.file or ""
        span = f":{hit.lines[0]}-{hit.lines[-1]}" if hit.lines else ""
        lines.append(f"{i}. {where}{span}  score={hit.score:.3f}  [{hit.id}]")
        lines.append(f"    {short(hit.text, 300)}")
    return "\n".join(lines)


@mcp_tool(
    READ_ONLY,
    "Search only memory files and docs (this project's and the global ones), best "
    "first; each result names the file and lines it came from.",
    text=_search_text,
)
def memory_search(
    call: ToolCall,
    query: Annotated[str, Field(min_length=1, max_length=10_000, description="What to look for")],
    k: Annotated[int, Field(ge=1, le=100, description="How many chunks to return")] = 5,
) -> DocSearchOut:
    from memlode.engine.docs import memory_search as _search

    return DocSearchOut.model_validate(_search(call.engine, query, k, cwd=call.cwd))


def _store_text(out: MemoryStoreOut) -> str:
    verb = "appended to" if out.mode == "append" else "wrote"
    return (
        f"{verb} {out.ref} ({out.scope}, {out.bytes} bytes); "
        f"chunks +{out.chunks_added} -{out.chunks_removed}"
    )


@mcp_tool(
    WRITE,
    "Write to a memory file and index it at once: append to (or replace) a note "
    "memory/<name>.md, or MEMORY.md / SOUL.md / USER.md, in this project or globally.",
    text=_store_text,
    writes=True,
)
def memory_store(
    call: ToolCall,
    name: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description="A note name ('auth' -> memory/auth.md) or MEMORY.md, SOUL.md, USER.md",
        ),
    ],
    text: Annotated[
        str, Field(min_length=1, max_length=MAX_NOTE_CHARS, description="The text to write")
    ],
    mode: Annotated[
        Literal["append", "write"],
        Field(description="append: add to the end; write: replace the file"),
    ] = "append",
    scope: Annotated[
        Literal["project", "global"] | None,
        Field(description="project (default inside a project) or global"),
    ] = None,
) -> MemoryStoreOut:
    from memlode.engine.docs import memory_store as _store

    result = _store(call.engine, name, text, mode=mode, scope=scope, cwd=call.cwd)
    return MemoryStoreOut.model_validate(result)


def _reindex_text(out: DocsIndexOut) -> str:
    text = (
        f"{out.files} files: {out.indexed} indexed, {out.skipped} unchanged, "
        f"{out.removed} removed; chunks +{out.chunks_added} -{out.chunks_removed}"
    )
    return "docs-only mode (no project here): " + text if out.docs_only else text


@mcp_tool(
    IDEMPOTENT_WRITE,
    "Re-index the memory files and doc folders now (unchanged files are skipped, "
    "deleted ones dropped), e.g. after editing them outside memory_store.",
    text=_reindex_text,
    writes=True,
)
def docs_reindex(call: ToolCall) -> DocsIndexOut:
    from memlode.engine.docs import index_docs

    return DocsIndexOut.model_validate(index_docs(call.engine, cwd=call.cwd))
