"""Codex CLI's hook payloads in Claude Code's shape.

Codex (0.171) runs hooks in Claude Code's wire format: SessionStart, UserPromptSubmit, Stop,
SessionEnd and the compaction events carry the same fields (plus ``turn_id``, ``model``) and
pass through unchanged. Its PostToolUse differs (recorded in tests/clients/payloads/codex/):

- The shell (the model's ``exec_command``) arrives as ``tool_name: "Bash"`` with
  ``tool_input.command`` the command line, but ``tool_response`` is the command's output as one
  string (stdout and stderr together) with no exit code, and a failed command fires PostToolUse
  too (Codex has no PostToolUseFailure).
- An edit arrives as ``tool_name: "apply_patch"`` with ``tool_input.command`` the patch text
  (``*** Begin Patch`` / ``*** Update File: path`` / hunks) and ``tool_response`` the tool's
  report (``Exit code: 0 ... Success. Updated the following files: ...``).
- MCP tools keep Codex's names, ``mcp__<server>__<tool>``.

The exit code and the real diff (with line numbers) are in the session's rollout file
(``transcript_path``), written before the hook runs: an ``item_completed`` event whose item
(``CommandExecution`` with ``exit_code``, ``FileChange`` with a ``unified_diff`` per file) has
the call's id (``tool_use_id``). The adapter reads the end of that file for it; without it, a
command counts as succeeded and an edit's hunks come from the patch (no line numbers).

A failed command becomes memlode's ``post-tool-failure`` (``error``: what it printed); a patch
becomes an ``Edit`` (or a ``Write`` for a new file) of its first file, with a
``structuredPatch``. memlode's own MCP tools are left out.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["adapt", "adapt_all"]

OWN_TOOL_PREFIX = "mcp__memlode__"
# How much of the rollout's end is searched for a call's result: its item_completed line is
# among the last few written (the hook runs right after the call).
ROLLOUT_TAIL_BYTES = 512 * 1024


def adapt(event: str, payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """memlode's event and the payload in Claude Code's shape, or None to ignore it."""
    adapted = adapt_all(event, payload)
    return adapted[0] if adapted else None


def adapt_all(event: str, payload: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """As ``adapt``, one entry per file a patch touches (``adapt`` keeps the first)."""
    if event not in ("post-tool", "post-tool-failure"):
        return [(event, payload)]
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or tool.startswith(OWN_TOOL_PREFIX):
        return []
    if tool == "Bash":
        return [_shell(payload)]
    if tool == "apply_patch":
        return _patch(payload)
    return [(event, payload)]


# ---- the shell -----------------------------------------------------------------------------


def _shell(payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    response = payload.get("tool_response")
    output = _text(response)
    exit_code: int | None = None
    if isinstance(response, dict):  # a later Codex may send the fields themselves
        output = _text(response.get("stdout")) or _text(response.get("output"))
        code = response.get("exit_code", response.get("exitCode"))
        exit_code = code if isinstance(code, int) else None
    item = _rollout_item(payload, "CommandExecution")
    if item is not None:
        code = item.get("exit_code")
        exit_code = code if isinstance(code, int) else exit_code
        whole = _text(item.get("aggregated_output"))
        if not output or (whole and output.startswith(TRUNCATED_NOTE)):
            output = whole  # the whole output, where the hook got its middle cut out
    output = _without_truncation_note(output)
    shaped = {**payload, "tool_name": "Bash", "tool_input": {"command": _text(command)}}
    if exit_code is not None and exit_code != 0:
        shaped.pop("tool_response", None)
        shaped["hook_event_name"] = "PostToolUseFailure"
        shaped["error"] = f"Exit code {exit_code}\n{output}".rstrip()
        return "post-tool-failure", shaped
    shaped["tool_response"] = {
        "stdout": output,
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "exit_code": exit_code,
    }
    return "post-tool", shaped


# A long output reaches the hook with its middle cut out for the model and a note before it
# ("Warning: truncated output (original token count: 19325)", "Total output lines: 1501", seen
# with 0.171 here); the rollout's ``aggregated_output`` holds all of it. The note is Codex's,
# not the command's: left out when only the cut output is there.
TRUNCATED_NOTE = "Warning: truncated output"


def _without_truncation_note(output: str) -> str:
    if not output.startswith(TRUNCATED_NOTE):
        return output
    lines = output.split("\n")[1:]
    if lines and lines[0].startswith("Total output lines:"):
        lines = lines[1:]
    return "\n".join(lines).lstrip("\n")


# ---- apply_patch ---------------------------------------------------------------------------


def _patch(payload: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    tool_input = payload.get("tool_input")
    patch = ""
    if isinstance(tool_input, dict):
        for key in ("command", "input", "patch"):
            if isinstance(tool_input.get(key), str):
                patch = tool_input[key]
                break
    elif isinstance(tool_input, str):
        patch = tool_input
    from memlode.sources.patches import parse_patch, unified_hunks

    files = parse_patch(patch)
    if not files:
        return []
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else ""
    report = _text(payload.get("tool_response"))
    exit_code = _reported_exit_code(report)
    item = _rollout_item(payload, "FileChange")
    changes = item.get("changes") if item is not None else None
    if item is not None and item.get("status") == "failed" and exit_code is None:
        exit_code = 1
    out: list[tuple[str, dict[str, Any]]] = []
    for change in files:
        path = _absolute(str(change["path"]), str(cwd))
        if exit_code is not None and exit_code != 0:
            shaped = {
                **payload,
                "hook_event_name": "PostToolUseFailure",
                "tool_name": "Edit",
                "tool_input": {"file_path": path},
                "error": report.strip() or f"Exit code {exit_code}",
            }
            shaped.pop("tool_response", None)
            out.append(("post-tool-failure", shaped))
            continue
        hunks = change["hunks"]
        if isinstance(changes, dict):
            recorded = changes.get(path)
            if isinstance(recorded, dict) and isinstance(recorded.get("unified_diff"), str):
                hunks = unified_hunks(recorded["unified_diff"]) or hunks
        out.append(("post-tool", _edit_payload(payload, change, path, hunks)))
    return out


def _edit_payload(
    payload: dict[str, Any], change: dict[str, Any], path: str, hunks: list[dict[str, Any]]
) -> dict[str, Any]:
    kind = change["kind"]
    if kind == "add":
        added = [line[1:] for h in change["hunks"] for line in h["lines"] if line[:1] == "+"]
        content = "\n".join(added)
        content += "\n" if content else ""
        return {
            **payload,
            "tool_name": "Write",
            "tool_input": {"file_path": path, "content": content},
            "tool_response": {
                "type": "create",
                "filePath": path,
                "content": content,
                "structuredPatch": [],
                "originalFile": None,
            },
        }
    old = "\n".join(line[1:] for h in hunks for line in h["lines"] if line[:1] in ("-", " "))
    new = "\n".join(line[1:] for h in hunks for line in h["lines"] if line[:1] in ("+", " "))
    response: dict[str, Any] = {
        "filePath": path,
        "oldString": old,
        "newString": new,
        "structuredPatch": hunks,
        "userModified": False,
        "replaceAll": False,
    }
    if kind == "delete":
        response["type"] = "delete"
    moved = change.get("move_to")
    if moved:
        response["movedTo"] = moved
    return {
        **payload,
        "tool_name": "Edit",
        "tool_input": {"file_path": path, "old_string": old, "new_string": new},
        "tool_response": response,
    }


def _reported_exit_code(report: str) -> int | None:
    """``Exit code: N`` at the head of apply_patch's report."""
    for line in report.splitlines()[:3]:
        if line.startswith("Exit code:"):
            try:
                return int(line.split(":", 1)[1].strip())
            except ValueError:
                return None
    return None


# ---- the rollout ---------------------------------------------------------------------------


def _rollout_item(payload: dict[str, Any], kind: str) -> dict[str, Any] | None:
    """The ``item_completed`` item of type ``kind`` for this call in the session's rollout
    (``transcript_path``), or None when it cannot be found or read."""
    path = payload.get("transcript_path")
    call = payload.get("tool_use_id")
    if not isinstance(path, str) or not path or not isinstance(call, str) or not call:
        return None
    from memlode.hooks.observation import file_part

    part = file_part(path, ROLLOUT_TAIL_BYTES, end=True)
    if part is None:
        return None
    tail = part[0]
    needle = f'"id":"{call}"'.encode()
    if needle not in tail:
        return None
    from memlode.fastjson import loads

    for raw in reversed(tail.split(b"\n")):
        if needle not in raw or b"item_completed" not in raw:
            continue
        try:
            line = loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        event = line.get("payload") if isinstance(line, dict) else None
        item = event.get("item") if isinstance(event, dict) else None
        if isinstance(item, dict) and item.get("type") == kind and item.get("id") == call:
            return item
    return None


# ---- small helpers -------------------------------------------------------------------------


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        from memlode.fastjson import dumps

        try:
            return str(dumps(value))
        except (TypeError, ValueError):
            return ""
    return ""


def _absolute(path: str, cwd: str) -> str:
    if path.startswith("/") or not cwd:
        return path
    from os.path import join, normpath

    return normpath(join(cwd, path))
