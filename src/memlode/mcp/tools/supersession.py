"""Supersession tools: record by hand that a memory replaces an earlier one (or undo it), and a
memory's chain of replacements with dates (``memlode.engine.supersession``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from memlode.engine import supersession
from memlode.mcp.params import IDEMPOTENT_WRITE, READ_ONLY, MemoryId
from memlode.mcp.tooling import ToolCall, mcp_tool

__all__ = ["memory_history", "supersede_memory"]


class SupersedeOut(BaseModel):
    old: str = Field(description="The replaced memory")
    new: str = Field(description="The memory that replaces it")
    at: str = Field("", description="Since when (empty after an undo)")
    undone: bool = Field(False, description="True: the link was removed")


class ChainMemberOut(BaseModel):
    id: str
    content: str
    memory_type: str
    since: str = Field(description="When it was stored")
    until: str | None = Field(None, description="When a later memory replaced it")
    replaced_by: str | None = None
    current: bool


class ChainOut(BaseModel):
    id: str
    chain: list[ChainMemberOut] = Field(description="Oldest first; the last current one holds")


def _supersede_text(out: SupersedeOut) -> str:
    if out.undone:
        return f"{out.new} no longer replaces {out.old}"
    return f"{out.new} replaces {out.old} since {out.at[:10]}"


@mcp_tool(
    IDEMPOTENT_WRITE,
    "Record that memory new_id replaces old_id (a decision, preference or state that changed): "
    "search then ranks the old one below the new one, and recall shows it only as history. "
    "undo=true removes such a link.",
    text=_supersede_text,
    writes=True,
)
def supersede_memory(
    call: ToolCall,
    old_id: Annotated[MemoryId, Field(description="The memory that no longer holds")],
    new_id: Annotated[MemoryId, Field(description="The memory that replaces it")],
    undo: Annotated[bool, Field(description="Remove the link instead of adding it")] = False,
) -> SupersedeOut:
    if undo:
        supersession.unsupersede(call.engine.db, old_id, new_id)
        return SupersedeOut(old=old_id, new=new_id, at="", undone=True)
    done = supersession.supersede(call.engine.db, old_id, new_id)
    return SupersedeOut(old=old_id, new=new_id, at=done["at"], undone=False)


def _chain_text(out: ChainOut) -> str:
    lines = [f"{len(out.chain)} versions, oldest first:"]
    for member in out.chain:
        when = f"{member.since[:10]} until {member.until[:10]}" if member.until else "current"
        lines.append(f"- {member.id} ({when}) {' '.join(member.content.split())[:200]}")
    return "\n".join(lines)


@mcp_tool(
    READ_ONLY,
    "The versions of one memory's subject, oldest first with their dates: what it replaced "
    "and what replaced it, and which one holds now.",
    text=_chain_text,
)
def memory_history(
    call: ToolCall,
    memory_id: Annotated[MemoryId, Field(description="Any memory of the chain")],
) -> ChainOut:
    found = supersession.decision_chain(call.engine.conn, memory_id)
    return ChainOut(
        id=found["id"],
        chain=[
            ChainMemberOut(
                id=m["id"],
                content=m["content"],
                memory_type=m["memory_type"],
                since=m["from"],
                until=m["until"],
                replaced_by=m["replaced_by"],
                current=m["current"],
            )
            for m in found["chain"]
        ],
    )
