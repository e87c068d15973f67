"""Windsurf's (Cascade's) hook payloads in Claude Code's shape.

No Windsurf runs here: this follows the Cascade hooks reference,
https://docs.windsurf.com/windsurf/cascade/hooks (read Dec 2026 through stored copies of the
page and of tools that read its payloads). Fields this module relies on:

- Every event: ``agent_action_name`` (the event), ``trajectory_id`` (the Cascade conversation:
  memlode's session id), ``execution_id`` (one agent turn), ``timestamp`` (ISO 8601) and
  ``tool_info``, whose keys depend on the event:
- pre_user_prompt: ``tool_info.user_prompt``.
- post_read_code: ``tool_info.file_path`` (may be a directory read recursively).
- post_write_code: ``tool_info.file_path``, ``tool_info.edits`` [{``old_string``,
  ``new_string``}].
- post_run_command: ``tool_info.command_line``, ``tool_info.cwd``. Nothing about the
  command's output or exit code: a command is stored as run, never as failed.
- post_mcp_tool_use: ``tool_info.mcp_server_name``, ``mcp_tool_name``,
  ``mcp_tool_arguments`` (an object), ``mcp_result``.
- post_cascade_response: ``tool_info.response`` (Cascade's response, markdown).

Cascade has no session start or end and no compaction event. Only ``post_run_command``
carries a cwd; the other events leave it out (memlode takes the process's: Cascade runs hooks
from the workspace root unless ``working_directory`` says otherwise). memlode's own MCP tools
are dropped. Stdlib only: this runs in every hook process.
"""

from __future__ import annotations

from memlode.hooks.adapters._shape import absolute as _absolute
from memlode.hooks.adapters._shape import as_dict as _dict
from memlode.hooks.adapters._shape import file_edits
from memlode.hooks.adapters._shape import named as _named
from memlode.hooks.adapters._shape import text as _text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["adapt"]

OWN_SERVER = "memlode"


def adapt(event: str, payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(memlode event, payload in Claude Code's shape) for one Cascade hook, or None when the
    event is not worth handling. ``event`` is memlode's name for it, as registered."""
    info = _dict(payload.get("tool_info"))
    base = _base(payload, info)
    action = _text(payload.get("agent_action_name"))
    if event == "prompt":
        return _named(event, {**base, "prompt": _text(info.get("user_prompt"))})
    if event == "stop":
        out = {**base, "stop_hook_active": False}
        response = _text(info.get("response"))
        if response:
            out["last_assistant_message"] = response
        return _named(event, out)
    if event != "post-tool":
        return None  # Cascade has no other events memlode registers
    if action == "post_run_command" or "command_line" in info:
        return _command(base, info)
    if action == "post_write_code" or "edits" in info:
        return _write(base, info)
    if action == "post_mcp_tool_use" or "mcp_tool_name" in info:
        return _mcp(base, info)
    if action == "post_read_code" or "file_path" in info:
        return _read(base, info)
    return None


# ---- common ------------------------------------------------------------------------------------


def _base(payload: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    session = _text(payload.get("trajectory_id"))
    if session:
        out["session_id"] = session
    cwd = _text(info.get("cwd"))
    if cwd:
        out["cwd"] = cwd
    action = payload.get("agent_action_name")
    if isinstance(action, str):
        out["client_hook_event_name"] = action
    return out


# ---- tools -------------------------------------------------------------------------------------


def _command(base: dict[str, Any], info: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    command = _text(info.get("command_line"))
    if not command.strip():
        return None
    response = {"stdout": "", "stderr": "", "interrupted": False, "isImage": False}
    out = {**base, "tool_name": "Bash", "tool_input": {"command": command}}
    out["tool_response"] = response
    return _named("post-tool", out)


def _write(base: dict[str, Any], info: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """One Edit, or a MultiEdit (Claude Code's shape for several edits of one file) when
    Cascade reports several."""
    path = _absolute(_text(info.get("file_path")), _text(base.get("cwd")))
    if not path:
        return None
    return file_edits(base, path, info.get("edits"))


def _read(base: dict[str, Any], info: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    path = _absolute(_text(info.get("file_path")), _text(base.get("cwd")))
    if not path:
        return None
    out = {**base, "tool_name": "Read", "tool_input": {"file_path": path}}
    out["tool_response"] = {"type": "text", "file": {"filePath": path}}
    return _named("post-tool", out)


def _mcp(base: dict[str, Any], info: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    server = _text(info.get("mcp_server_name"))
    tool = _text(info.get("mcp_tool_name"))
    if not tool or server == OWN_SERVER:
        return None
    out = {
        **base,
        "tool_name": f"mcp__{server or 'unknown'}__{tool}",
        "tool_input": _dict(info.get("mcp_tool_arguments")),
        "tool_response": {"result": _text(info.get("mcp_result"))},
    }
    return _named("post-tool", out)
