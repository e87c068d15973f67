"""Prompts: ready-made openings a user can pick in their client (e.g. a recap of decisions)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from memlode.mcp.render import replaced_note
from memlode.mcp.tooling import ToolCall, mcp_prompt
from memlode.types import MemoryType

__all__ = ["RECAP_DEFAULT_LIMIT", "recent_decisions"]

RECAP_DEFAULT_LIMIT = 20


@mcp_prompt(
    name="recent_decisions",
    title="Recap the project's recent decisions",
    description=(
        "The project's most recent decisions, oldest first, with the instruction to keep new "
        "work consistent with them (or to say which one it changes)."
    ),
)
def recent_decisions(
    call: ToolCall,
    namespace: Annotated[
        str | None, Field(description="Namespace (default: the server's project)")
    ] = None,
    limit: Annotated[
        int, Field(ge=1, le=200, description="How many decisions (default 20)")
    ] = RECAP_DEFAULT_LIMIT,
) -> str:
    memories = call.engine.list_memories(
        namespace=namespace, memory_types=[MemoryType.DECISION], limit=limit
    )
    project = namespace or call.project
    if not memories:
        return (
            f"memlode has no decisions recorded for {project} yet. As we work, store each "
            "decision (with its reason) using the store_memory tool with "
            "memory_type='decision'."
        )
    lines = [
        f"Here are the {len(memories)} most recent decisions recorded for {project}, "
        "oldest first (ids in brackets):",
        "",
    ]
    replaced = call.engine.replaced([m.id for m in memories])
    for memory in reversed(memories):  # list_memories is newest first
        tags = f" [{', '.join(memory.tags)}]" if memory.tags else ""
        text = " ".join(memory.content.split())
        note = replaced_note(replaced.get(memory.id, {}))
        mark = f" {note}" if note else ""
        lines.append(f"- {memory.created_at[:10]} ({memory.id}){tags}{mark}: {text}")
    lines += [
        "",
        "Briefly recap what these decisions mean for the work ahead. Keep new changes "
        "consistent with the current ones (a replaced one is history); where a change would "
        "contradict one, say which and why, and "
        "record the new decision with store_memory (memory_type='decision') linked to the "
        "old one with associate_memories (relationship SUPERSEDES).",
    ]
    return "\n".join(lines)
