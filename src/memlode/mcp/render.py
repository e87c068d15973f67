"""Text renderings shared by the tools: a memory, a shortened line.

Every tool result carries a structured part (the typed model, validated against the tool's
outputSchema by the SDK) and a text block (``memlode.mcp.tooling.respond``): a compact
rendering with every id a model needs for a follow-up call, since many clients show a model
only the text.
"""

from collections.abc import Mapping
from typing import Any

__all__ = ["memory_text", "replaced_note", "short"]


def short(text: str, width: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def replaced_note(memory: Mapping[str, Any]) -> str:
    """The note for a memory a later one replaced (its ``replaced_by`` and ``replaced_at``),
    "(replaced <date> by <id>: history, not current)", else ""."""
    if not memory.get("replaced_by"):
        return ""
    when = str(memory.get("replaced_at") or "")[:10]
    return f"(replaced {when} by {memory['replaced_by']}: history, not current)"


def memory_text(memory: Mapping[str, Any], *, full: bool = True, prefix: str = "") -> str:
    """One memory as a header line (id, type, date, score, tags) and its content."""
    head = f"{prefix}{memory['id']}  {memory.get('memory_type', '')}"
    created = memory.get("created_at") or ""
    if created:
        head += f"  {created[:16]}"
    if memory.get("score") is not None:
        head += f"  score={float(memory['score']):.3f}"
    if memory.get("namespace"):
        head += f"  ns={memory['namespace']}"
    tags = memory.get("tags") or []
    if tags:
        head += f"  [{', '.join(tags)}]"
    note = replaced_note(memory)
    if note:
        head += f"  {note}"
    content = str(memory.get("content", ""))
    body = content if full else short(content)
    indented = "\n".join("    " + line for line in body.splitlines() or [""])
    lines = [head, indented]
    signals = memory.get("signals")
    if signals:
        parts = ", ".join(f"{k}={float(v):.3f}" for k, v in signals.items())
        lines.append(f"    signals: {parts}")
    return "\n".join(lines)
