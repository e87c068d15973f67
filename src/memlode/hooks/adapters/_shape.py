"""What every adapter needs to write Claude Code's shape: tolerant readers of the client's
fields, Claude Code's name for each memlode event (from the hook-event table), and paths made
absolute against the session's folder. Stdlib and L0 only: a hook process imports it."""

from __future__ import annotations

import os

from memlode.hook_events import CLIENT_HOOKS, DEFAULT_CLIENT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["CLAUDE_EVENT", "absolute", "as_dict", "edit", "file_edits", "named", "text"]

# memlode's event -> the name Claude Code gives it (the handlers and extractors read that)
CLAUDE_EVENT = {spec.name: spec.event for spec in CLIENT_HOOKS[DEFAULT_CLIENT]}


def text(value: object) -> str:
    return value if isinstance(value, str) else ""


def as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def named(event: str, payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``payload`` as memlode event ``event``, under Claude Code's name for it."""
    payload["hook_event_name"] = CLAUDE_EVENT[event]
    return event, payload


def absolute(path: str, cwd: str) -> str:
    if not path or os.path.isabs(path) or not cwd:
        return path
    return os.path.normpath(os.path.join(cwd, path))


def edit(
    path: str,
    old: str,
    new: str,
    *,
    replace_all: bool = False,
    original: str = "",
    patch: list[dict[str, Any]] | None = None,
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """One edit of one file as Claude Code's Edit: (tool name, tool_input, tool_response)."""
    claude_in = {
        "file_path": path,
        "old_string": old,
        "new_string": new,
        "replace_all": replace_all,
    }
    response: dict[str, Any] = {
        "filePath": path,
        "oldString": old,
        "newString": new,
        "originalFile": original,
        "structuredPatch": patch or [],
        "userModified": False,
        "replaceAll": replace_all,
    }
    return "Edit", claude_in, response


def file_edits(base: dict[str, Any], path: str, raw: object) -> tuple[str, dict[str, Any]]:
    """A client's ``[{old_string, new_string}]`` edits of one file as Claude Code's PostToolUse
    of an Edit (one edit) or a MultiEdit (several: one hunk each for the extractor)."""
    edits: list[dict[str, Any]] = [
        {
            "old_string": text(e.get("old_string")),
            "new_string": text(e.get("new_string")),
            "replace_all": False,
        }
        for e in (raw if isinstance(raw, list) else [])
        if isinstance(e, dict)
    ]
    if len(edits) == 1:
        tool, claude_in, response = edit(path, edits[0]["old_string"], edits[0]["new_string"])
        out = {**base, "tool_name": tool, "tool_input": claude_in, "tool_response": response}
        return named("post-tool", out)
    claude_in = {"file_path": path, "edits": edits}
    response = {"filePath": path, "edits": edits, "structuredPatch": [], "userModified": False}
    out = {**base, "tool_name": "MultiEdit", "tool_input": claude_in, "tool_response": response}
    return named("post-tool", out)
