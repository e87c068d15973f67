"""Memory tools: store, recall (plain and with graph expansion), get, update, delete.

Plus the ``memory://{id}`` resource, which reads one memory like ``get_memory``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from memlode.mcp.models import (
    DeleteOut,
    ExpandedHitOut,
    ExpansionOut,
    HitOut,
    ImpactOut,
    MemoryOut,
    MemoryTypeName,
    RecallOut,
    ReplacedOut,
    StoreOut,
)
from memlode.mcp.params import (
    DESTRUCTIVE,
    IDEMPOTENT_WRITE,
    MAX_ID_CHARS,
    READ_ONLY,
    WRITE,
    Confidence,
    Content,
    Explain,
    Importance,
    K,
    MemoryId,
    MemoryTypes,
    Metadata,
    Namespace,
    ReadNamespace,
    Tags,
)
from memlode.mcp.render import memory_text
from memlode.mcp.tooling import ToolCall, mcp_resource, mcp_tool
from memlode.textutil import one_line

if TYPE_CHECKING:
    from memlode.mcp.context import ToolContext
    from memlode.types import Memory

__all__ = [
    "delete_memory",
    "get_memory",
    "memory_resource",
    "recall_memory",
    "recall_with_expansion",
    "recall_with_impact",
    "store_memory",
    "update_memory",
]

Query = Annotated[
    str,
    Field(
        min_length=1,
        max_length=10_000,
        description="What to look for, in words or identifiers (e.g. 'how do we hash passwords')",
    ),
]
Sources = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]] | None,
    Field(
        max_length=20,
        description="Only these sources (memory, transcript, doc, hook, ...); default: all",
    ),
]
Depth = Annotated[int, Field(ge=0, le=3, description="How many graph hops to follow from each hit")]


SHOWN_CHARS = 200  # of an earlier statement, in the store answer's text


def _stored_text(out: StoreOut) -> str:
    verb = "stored" if out.created else "already stored as"
    lines = [f"{verb} {out.id} in namespace {out.namespace or '(none)'}"]
    for old in out.replaces:
        lines.append(
            f"it replaces {old.id} ({old.created_at[:10]}), now history:"
            f" {one_line(old.content, SHOWN_CHARS)}"
            f"\nif it does not, call supersede_memory with old_id={old.id}, new_id={out.id},"
            " undo=true"
        )
    if out.may_replace:
        lines.append(
            "earlier statements on the same subject, not linked to it; if it replaces one,"
            f" call supersede_memory with old_id=<that id>, new_id={out.id}:"
        )
        lines += [
            f"- {m.id} ({m.created_at[:10]}): {one_line(m.content, SHOWN_CHARS)}"
            for m in out.may_replace
        ]
    return "\n".join(lines)


@mcp_tool(
    WRITE,
    "Remember something for later sessions: a decision and its reason, a pattern, a "
    "preference, an insight. Storing the same text twice returns the existing id. A "
    "statement that replaces an earlier one (a changed decision) is linked to it, and the "
    "answer names it, and the earlier ones on its subject that nothing linked, for you to "
    "judge. Default namespace: this project ({project}).",
    text=_stored_text,
    writes=True,
)
def store_memory(
    call: ToolCall,
    content: Content,
    memory_type: Annotated[
        MemoryTypeName, Field(description="What kind of memory this is")
    ] = "context",
    importance: Importance = 0.5,
    confidence: Confidence = 1.0,
    tags: Tags = None,
    namespace: Namespace = None,
    metadata: Metadata = None,
) -> StoreOut:
    engine = call.engine
    result = engine.store(content, memory_type, importance, confidence, tags, namespace, metadata)
    stored = engine.get(result.id, touch=False)
    replaced, maybe = engine.replacing(result.id) if result.created else ([], [])
    return StoreOut(
        id=result.id,
        created=result.created,
        namespace=stored.namespace,
        replaces=[_replaced(m) for m in replaced],
        may_replace=[_replaced(m) for m in maybe],
        next_step=_next_step(result.id, replaced, maybe),
    )


def _next_step(new_id: str, replaced: list[Memory], maybe: list[Memory]) -> str | None:
    """What the assistant that stored it is to judge, said in the structured answer itself:
    Claude Code hands its model that JSON and not the text beside it (bench/RESULTS.md,
    "Session 35"), and a model reads a schema's field descriptions no more than it reads
    that text."""
    steps = [
        f"If it does not replace {m.id}, call supersede_memory(old_id={m.id!r}, "
        f"new_id={new_id!r}, undo=true)."
        for m in replaced
    ]
    if maybe:
        steps.append(
            "If it replaces one of may_replace, call supersede_memory(old_id=<that id>, "
            f"new_id={new_id!r})."
        )
    return " ".join(steps) or None


def _replaced(memory: Memory) -> ReplacedOut:
    return ReplacedOut(id=memory.id, content=memory.content, created_at=memory.created_at)


def _recall_text(out: RecallOut) -> str:
    if not out.hits:
        return f"no memories match {out.query!r} in namespace {out.namespace}"
    blocks = [
        memory_text(hit.model_dump(), prefix=f"{i}. ") for i, hit in enumerate(out.hits, start=1)
    ]
    return f"{len(out.hits)} memories for {out.query!r}:\n" + "\n".join(blocks)


def _recall_elsewhere(ctx: ToolContext, args: dict[str, Any]) -> RecallOut | None:
    """``recall_memory`` answered by the store's resident in another process (the same
    ``Engine.search``, warm); None to answer here."""
    found = ctx.search_elsewhere(
        args["query"],
        args.get("k", 10),
        namespace=args.get("namespace"),
        memory_types=args.get("memory_types"),
        tags=args.get("tags"),
        sources=args.get("sources") or (),
    )
    if found is None:
        return None
    hits, read = found
    explain = bool(args.get("explain", False))
    return RecallOut(
        query=args["query"],
        namespace=read,
        hits=[HitOut.model_validate(hit.to_dict(explain)) for hit in hits],
    )


@mcp_tool(
    READ_ONLY,
    "Search memories, best first (hybrid: full text, vectors, graph, recency, tags, "
    "importance). Use it before deciding something the project may already have "
    "decided. Default namespace: this project ({project}); '*' searches all.",
    text=_recall_text,
    elsewhere=_recall_elsewhere,
)
def recall_memory(
    call: ToolCall,
    query: Query,
    k: K = 10,
    namespace: ReadNamespace = None,
    memory_types: MemoryTypes = None,
    tags: Annotated[Tags, Field(description="Only memories carrying all of these tags")] = None,
    explain: Explain = False,
    sources: Sources = None,
) -> RecallOut:
    engine = call.engine
    # what was stored a moment ago is found by meaning too, not only once the server's
    # embedding worker reaches it
    engine.catch_up()
    hits = engine.search(
        query, k, namespace=namespace, memory_types=memory_types, tags=tags, sources=sources or ()
    )
    return RecallOut(
        query=query,
        namespace=call.shown_namespace(namespace),
        hits=[HitOut.model_validate(hit.to_dict(explain)) for hit in hits],
    )


def _expansion_text(out: ExpansionOut) -> str:
    if not out.hits:
        return f"no memories match {out.query!r} in namespace {out.namespace}"
    linked = sum(len(hit.expanded) for hit in out.hits)
    lines = [f"{len(out.hits)} memories for {out.query!r}, with {linked} linked memories:"]
    for i, hit in enumerate(out.hits, start=1):
        lines.append(memory_text(hit.model_dump(exclude={"expanded"}), prefix=f"{i}. "))
        for item in hit.expanded:
            arrow = (
                f"-{item.relationship}->" if item.direction == "out" else f"<-{item.relationship}-"
            )
            block = memory_text(item.model_dump(), prefix=f"{arrow} (hop {item.hop}) ")
            lines.append("\n".join("      " + line for line in block.splitlines()))
    return "\n".join(lines)


@mcp_tool(
    READ_ONLY,
    "Search memories, then add the memories linked to each hit in the graph (up to "
    "`depth` hops): the hits plus their context, e.g. the decision a pattern came from.",
    text=_expansion_text,
)
def recall_with_expansion(
    call: ToolCall,
    query: Query,
    k: K = 10,
    depth: Depth = 1,
    namespace: ReadNamespace = None,
    memory_types: MemoryTypes = None,
    tags: Annotated[Tags, Field(description="Only hits carrying all of these tags")] = None,
    explain: Explain = False,
    sources: Sources = None,
) -> ExpansionOut:
    items = call.engine.recall_with_expansion(
        query,
        k,
        depth=depth,
        namespace=namespace,
        memory_types=memory_types,
        tags=tags,
        sources=sources or (),
    )
    if not explain:
        for item in items:
            item.pop("signals", None)
    return ExpansionOut(
        query=query,
        namespace=call.shown_namespace(namespace),
        depth=depth,
        hits=[ExpandedHitOut.model_validate(item) for item in items],
    )


def _impact_text(out: ImpactOut) -> str:
    if not out.hits:
        return f"no memories match {out.query!r} in namespace {out.namespace}"
    lines = [f"{len(out.hits)} memories for {out.query!r}:"]
    for i, hit in enumerate(out.hits, start=1):
        lines.append(memory_text(hit.model_dump(exclude={"code"}), prefix=f"{i}. "))
        for code in hit.code:
            names = ", ".join(f"{d.name} ({d.path})" for d in code.dependents[:5])
            more = len(code.dependents) - 5 + code.more
            tail = f" and {more} more" if more > 0 else ""
            lines.append(
                f"      about {code.kind} {code.name}: "
                + (f"depended on by {names}{tail}" if names else "nothing depends on it")
            )
    if not out.code_indexed:
        lines.append("(no code index here: run `memlode index` for impact)")
    elif out.files_affected:
        lines.append("files affected: " + ", ".join(out.files_affected[:20]))
    return "\n".join(lines)


@mcp_tool(
    READ_ONLY,
    "Search memories, then give each hit's code impact: the files and symbols it is about "
    "(the file a tool touched, the symbols an edit changed, paths in its text) and what "
    "depends on them in the code graph. Use it before changing code a past decision or "
    "failure was about. Default namespace: this project ({project}).",
    text=_impact_text,
)
def recall_with_impact(
    call: ToolCall,
    query: Query,
    k: Annotated[int, Field(ge=1, le=50, description="How many memories")] = 5,
    depth: Annotated[int, Field(ge=1, le=5, description="Dependency hops to follow")] = 2,
    namespace: ReadNamespace = None,
    memory_types: MemoryTypes = None,
    sources: Sources = None,
) -> ImpactOut:
    from memlode.engine.recall_impact import recall_with_impact as recall

    call.engine.catch_up()
    found = recall(
        call.engine,
        query,
        k,
        depth=depth,
        namespace=namespace,
        memory_types=memory_types,
        sources=sources or (),
    )
    return ImpactOut.model_validate(found)


def _memory_text(out: MemoryOut) -> str:
    return memory_text(out.model_dump())


@mcp_tool(READ_ONLY, "Read one memory in full, by id.", text=_memory_text)
def get_memory(call: ToolCall, memory_id: MemoryId) -> MemoryOut:
    engine = call.engine
    memory = engine.get(memory_id)
    return MemoryOut.of(memory, engine.replaced([memory.id]).get(memory.id))


@mcp_tool(
    IDEMPOTENT_WRITE,
    "Change fields of a memory; give only the fields to change (tags and metadata are "
    "replaced whole). New content is re-embedded in the background.",
    text=lambda out: "updated\n" + memory_text(out.model_dump()),
    writes=True,
)
def update_memory(
    call: ToolCall,
    memory_id: MemoryId,
    content: Annotated[
        Content | None, Field(description="New text (replaces the old text)")
    ] = None,
    memory_type: Annotated[MemoryTypeName | None, Field(description="New memory type")] = None,
    importance: Annotated[
        float | None, Field(ge=0.0, le=1.0, description="New importance, 0 to 1")
    ] = None,
    confidence: Annotated[
        float | None, Field(ge=0.0, le=1.0, description="New confidence, 0 to 1")
    ] = None,
    tags: Annotated[Tags, Field(description="New tags (replace the old ones)")] = None,
    metadata: Annotated[
        Metadata, Field(description="New metadata object (replaces the old one)")
    ] = None,
) -> MemoryOut:
    memory = call.engine.update(
        memory_id,
        content=content,
        memory_type=memory_type,
        importance=importance,
        confidence=confidence,
        tags=tags,
        metadata=metadata,
    )
    return MemoryOut.of(memory)


@mcp_tool(
    DESTRUCTIVE,
    "Delete a memory for good, with its embedding and graph links.",
    text=lambda out: f"deleted {out.id}",
    writes=True,
)
def delete_memory(call: ToolCall, memory_id: MemoryId) -> DeleteOut:
    call.engine.delete(memory_id)
    return DeleteOut(id=memory_id, deleted=True)


@mcp_resource(
    "memory://{memory_id}",
    name="memory",
    title="A stored memory",
    description="One memory by id: a header (type, tags, dates) and its full text.",
)
def memory_resource(call: ToolCall, memory_id: str) -> str:
    memory = call.engine.get(memory_id)
    data = memory.to_dict()
    meta = [
        f"id: {memory.id}",
        f"type: {memory.memory_type}",
        f"namespace: {memory.namespace or '(none)'}",
        f"source: {memory.source}",
        f"importance: {memory.importance}  confidence: {memory.confidence}",
        f"tags: {', '.join(memory.tags) or '-'}",
        f"created: {memory.created_at}  updated: {memory.updated_at}",
    ]
    if data["metadata"]:
        meta.append(f"metadata: {data['metadata']}")
    replaced = call.engine.replaced([memory.id]).get(memory.id)
    if replaced:
        by, at = replaced["replaced_by"], replaced["replaced_at"]
        meta.append(f"replaced: {at} by {by} (history, not current)")
    return "\n".join(meta) + "\n\n" + memory.content
