"""What one hook event teaches, before it is stored: an ``Observation`` (text, memory type,
importance by kind, tags, metadata), and the small readers the extractors share: defensive
reads of payload values (Anthropic publishes no schema for ``tool_response``), paths shown
relative to the session's working directory, a bounded part of a file a client keeps.
"""

from __future__ import annotations

import os

from memlode.textutil import one_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "IMPORTANCE",
    "OWN_TOOL_PREFIX",
    "Observation",
    "Paths",
    "as_dict",
    "as_int",
    "as_text",
    "clip",
    "display_path",
    "is_own_tool",
    "one_line",
]

OWN_TOOL_PREFIX = "mcp__memlode__"

# Importance of each kind of observation: edits are what changed, searches show intent,
# reads are the most frequent and least telling. Deliberately below the 0.5 default of a
# memory stored on purpose, so curated memories outrank passive capture.
IMPORTANCE = {
    "read": 0.2,
    "search": 0.3,
    "edit": 0.45,
    "command": 0.3,
    # A command that changed shared state: a commit, push, tag, release, pull request, merge.
    "outcome": 0.45,
    "fetch": 0.35,
    "failure": 0.4,
    # What the user decided: their answer to a question, a plan they approved.
    "decision": 0.8,
    "plan": 0.7,
    # What a subagent found (research, a review): its report back to the main agent.
    "subagent": 0.5,
    # What the assistant said it did at the end of a turn (Stop's last message).
    "report": 0.45,
    "other": 0.2,
}


class Observation:
    """What one tool call taught: text plus how to file it."""

    __slots__ = ("action", "content", "file_path", "importance", "memory_type", "metadata", "tags")

    def __init__(
        self,
        action: str,
        content: str,
        memory_type: str,
        tags: list[str],
        metadata: dict[str, Any],
        file_path: str | None = None,
    ) -> None:
        self.action = action
        self.content = content
        self.memory_type = memory_type
        self.importance = IMPORTANCE.get(action, 0.2)
        self.tags = tags
        self.metadata = metadata
        self.file_path = file_path


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_text(value: object, limit: int = 100_000) -> str:
    if isinstance(value, str):
        return value[:limit]
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def as_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def file_part(path: object, limit: int, *, end: bool = False) -> tuple[bytes, int] | None:
    """The first ``limit`` bytes of the regular file at ``path`` (its last with ``end``) and the
    file's size; None when there is no such readable file (a FIFO or a device would block the
    hook, a folder has no bytes). A client's kept output or session log, read by a hook."""
    if not isinstance(path, str) or not path:
        return None
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if end and size > limit:
                file.seek(size - limit)
            return file.read(limit), size
    except OSError:
        return None


def clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_own_tool(tool_name: str) -> bool:
    return tool_name.startswith(OWN_TOOL_PREFIX)


class Paths:
    """Absolute and display forms of a path, relative to the session's working directory."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd

    def absolute(self, path: str) -> str:
        if not os.path.isabs(path) and self.cwd:
            path = os.path.join(self.cwd, path)
        return os.path.normpath(path)

    def display(self, path: str) -> str:
        if self.cwd:
            root = os.path.normpath(self.cwd)
            if path == root:
                return "."
            if path.startswith(root.rstrip(os.sep) + os.sep):
                return path[len(root.rstrip(os.sep)) + 1 :]
        return path

    def file_tags(self, abs_path: str) -> list[str]:
        shown = self.display(abs_path)
        tags = [f"file:{shown}"]
        ext = os.path.splitext(abs_path)[1].lstrip(".").lower()
        if ext:
            tags.append(f"ext:{ext}")
        folder = os.path.dirname(shown)
        tags.append(f"dir:{folder or '.'}")
        return tags


def display_path(path: str, cwd: str) -> str:
    """``path`` relative to ``cwd`` when inside it, else as given."""
    return Paths(cwd).display(path)
