"""Cursor's hook payloads in Claude Code's shape.

No Cursor runs here: this follows Cursor's hooks reference, https://cursor.com/docs/agent/hooks
(read Dec 2026 through stored copies: the page's event list, and the field lists quoted from it
by tools that read Cursor's hooks, e.g. openlit's Cursor handler "Field reference:
cursor.com/docs/hooks (2026-05)"). Fields this module relies on:

- Every event: ``conversation_id`` (the chat; stable for its life: memlode's session id),
  ``generation_id`` (one agent turn), ``hook_event_name``, ``workspace_roots`` (list of paths;
  the first is the cwd), ``model``, ``cursor_version``, ``user_email``, ``transcript_path``.
- sessionStart: ``session_id``, ``is_background_agent``, ``composer_mode``. sessionEnd:
  ``session_id``, ``reason``, ``duration_ms``, ``final_status``.
- beforeSubmitPrompt: ``prompt``, ``attachments``.
- afterFileEdit: ``file_path``, ``edits`` [{``old_string``, ``new_string``}] (more keys per
  edit, such as ``range``, are not read).
- afterShellExecution: ``command``, ``output``, ``duration`` (ms), ``sandbox``. No exit code:
  a command that ran counts as succeeded; a failing one also fires postToolUseFailure.
- afterMCPExecution: ``tool_name``, ``tool_input`` (a JSON string), ``result_json``,
  ``duration``, and the server's ``url`` or ``command``.
- postToolUse: ``tool_name``, ``tool_input``, ``tool_output``, ``tool_use_id``, ``cwd``,
  ``duration``. Registered for reads (Cursor has no after-read event); Shell, edits and MCP
  arrive through their own events above and are passed over here. The Read tool's own
  ``tool_input`` keys are not documented: ``file_path``, ``path`` or ``target_file`` is taken.
- postToolUseFailure: ``tool_name``, ``tool_input``, ``tool_use_id``, ``cwd``,
  ``error_message``, ``failure_type`` (timeout, error, permission_denied), ``duration``,
  ``is_interrupt``.
- afterAgentResponse: ``text`` (the assistant's message). stop: ``status`` (completed,
  aborted, error), ``loop_count``. preCompact: ``trigger`` (auto, manual) and context figures.

Cursor names its tools ``Shell``, ``Read``, ``Write``, ``Edit``, ``Grep``, ``Delete``,
``Task``, ``MCP:<tool>`` (the names its matchers use); Shell becomes Bash. memlode's own MCP
tools are dropped. Stdlib only: this runs in every hook process.
"""

from __future__ import annotations

from memlode.hooks.adapters._shape import absolute as _absolute
from memlode.hooks.adapters._shape import file_edits
from memlode.hooks.adapters._shape import named as _named
from memlode.hooks.adapters._shape import text as _text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["adapt", "render"]

OWN_SERVER = "memlode"

# Claude Code's name for each memlode event (the payload's hook_event_name after adapting).
# Cursor's tool names -> Claude Code's (tools whose inputs memlode's extractors read).
_TOOLS = {"Shell": "Bash", "Read": "Read", "Write": "Write", "Edit": "Edit", "Grep": "Grep"}
# Tools whose successes arrive through their own events (afterShellExecution, afterFileEdit,
# afterMCPExecution): postToolUse passes them over so each call is stored once.
_OWN_EVENT_TOOLS = frozenset({"Shell", "Write", "Edit", "Delete", "MultiEdit"})


def adapt(event: str, payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(memlode event, payload in Claude Code's shape) for one Cursor hook, or None when the
    event is not worth handling. ``event`` is memlode's name for it, as registered."""
    base = _base(payload)
    declared = _text(payload.get("hook_event_name"))
    if event == "session-start":
        if payload.get("is_background_agent") is True:
            base["agent_type"] = "background"
        return _named(event, {**base, "source": "startup"})
    if event == "prompt":
        return _named(event, {**base, "prompt": _text(payload.get("prompt"))})
    if event == "post-tool-failure":
        return _failure(base, payload)
    if event == "post-tool":
        if declared == "afterFileEdit" or "edits" in payload:
            return _file_edit(base, payload)
        if declared == "afterShellExecution" or (
            "command" in payload and "tool_name" not in payload
        ):
            return _shell(base, payload)
        if declared == "afterMCPExecution" or "result_json" in payload:
            return _mcp(base, payload)
        return _tool(base, payload)
    if event == "stop":
        out = {**base, "stop_hook_active": False}
        text = _text(payload.get("text"))  # afterAgentResponse: the assistant's message
        if text:
            out["last_assistant_message"] = text
        status = _text(payload.get("status"))
        if status:
            out["status"] = status
        return _named(event, out)
    if event == "pre-compact":
        trigger = _text(payload.get("trigger")) or "auto"
        return _named(event, {**base, "trigger": trigger, "custom_instructions": ""})
    if event == "session-end":
        return _named(event, {**base, "reason": _text(payload.get("reason")) or "other"})
    return None  # post-compact, subagent-stop: not registered for Cursor


# ---- common ------------------------------------------------------------------------------------


def _base(payload: dict[str, Any]) -> dict[str, Any]:
    """session_id, cwd, transcript_path and model, as Claude Code names them. Without a
    workspace root the cwd is left out (memlode then takes CLAUDE_PROJECT_DIR, which Cursor
    sets too, or the process's)."""
    out: dict[str, Any] = {}
    session = _text(payload.get("conversation_id")) or _text(payload.get("session_id"))
    if session:
        out["session_id"] = session
    roots = payload.get("workspace_roots")
    root = roots[0] if isinstance(roots, list) and roots else None
    cwd = _text(payload.get("cwd")) or _text(root)
    if cwd:
        out["cwd"] = cwd
    for key in ("transcript_path", "model"):
        value = _text(payload.get(key))
        if value:
            out[key] = value
    declared = payload.get("hook_event_name")
    if isinstance(declared, str):
        out["client_hook_event_name"] = declared
    return out


def _json_object(value: object) -> dict[str, Any]:
    """A tool input given as an object or as a JSON string (afterMCPExecution's)."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip().startswith("{"):
        from memlode.fastjson import loads

        try:
            parsed = loads(value)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


def _is_own_mcp(name: str, payload: dict[str, Any]) -> bool:
    if name.startswith((f"mcp__{OWN_SERVER}__", f"MCP:{OWN_SERVER}")):
        return True
    server = f"{_text(payload.get('url'))} {_text(payload.get('command'))}".lower()
    return OWN_SERVER in server


# ---- events ------------------------------------------------------------------------------------


def _file_edit(base: dict[str, Any], payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """afterFileEdit: one Edit, or a MultiEdit (Claude Code's shape for several edits of one
    file, which memlode's extractor sums) when Cursor reports several."""
    path = _absolute(_text(payload.get("file_path")), _text(base.get("cwd")))
    if not path:
        return None
    return file_edits(base, path, payload.get("edits"))


def _shell(base: dict[str, Any], payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    command = _text(payload.get("command"))
    if not command.strip():
        return None
    response = {
        "stdout": _text(payload.get("output")),
        "stderr": "",
        "interrupted": False,
        "isImage": False,
    }
    out = {**base, "tool_name": "Bash", "tool_input": {"command": command}}
    out["tool_response"] = response
    return _named("post-tool", out)


def _mcp(base: dict[str, Any], payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    name = _text(payload.get("tool_name"))
    if not name or _is_own_mcp(name, payload):
        return None
    tool = name if name.startswith("mcp__") else f"mcp__cursor__{name.removeprefix('MCP:')}"
    out = {
        **base,
        "tool_name": tool,
        "tool_input": _json_object(payload.get("tool_input")),
        "tool_response": {"result": _text(payload.get("result_json"))},
    }
    return _named("post-tool", out)


def _tool(base: dict[str, Any], payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """postToolUse: kept for the tools no other event reports (reads, searches)."""
    name = _text(payload.get("tool_name"))
    if not name or name in _OWN_EVENT_TOOLS or name.startswith(("MCP:", "mcp__")):
        return None
    tool_in = _json_object(payload.get("tool_input"))
    cwd = _text(base.get("cwd"))
    if name == "Read":
        path = _text(tool_in.get("file_path")) or _text(tool_in.get("path"))
        path = _absolute(path or _text(tool_in.get("target_file")), cwd)
        if not path:
            return None
        output = _text(payload.get("tool_output"))
        claude_in = {"file_path": path}
        file_info = {"filePath": path, "content": output}
        out = {**base, "tool_name": "Read", "tool_input": claude_in}
        out["tool_response"] = {"type": "text", "file": file_info}
        return _named("post-tool", out)
    out = {**base, "tool_name": _TOOLS.get(name, name), "tool_input": tool_in}
    out["tool_response"] = {"result": _text(payload.get("tool_output"))}
    return _named("post-tool", out)


def _failure(base: dict[str, Any], payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """postToolUseFailure: a failed command or edit, with Cursor's error message."""
    name = _text(payload.get("tool_name"))
    if not name or (name.startswith(("MCP:", "mcp__")) and _is_own_mcp(name, payload)):
        return None
    tool_in = _json_object(payload.get("tool_input"))
    tool = _TOOLS.get(name, name)
    if tool == "Bash":
        claude_in: dict[str, Any] = {"command": _text(tool_in.get("command"))}
    else:
        claude_in = dict(tool_in)
        path = _text(tool_in.get("file_path")) or _text(tool_in.get("path"))
        if path:
            claude_in["file_path"] = _absolute(path, _text(base.get("cwd")))
    error = _text(payload.get("error_message")) or _text(payload.get("failure_type")) or "failed"
    kind = _text(payload.get("failure_type"))
    if kind and kind not in error:
        error = f"{error} ({kind})"
    out = {
        **base,
        "tool_name": tool,
        "tool_input": claude_in,
        "error": error,
        "is_interrupt": payload.get("is_interrupt") is True,
    }
    tool_use_id = _text(payload.get("tool_use_id"))
    if tool_use_id:
        out["tool_use_id"] = tool_use_id
    return _named("post-tool-failure", out)


def render(event: str, output: str) -> str | None:
    """What Cursor reads from a hook's stdout: sessionStart takes ``additional_context``
    (cursor.com/docs/agent/hooks); memlode's handlers print Claude Code's
    ``hookSpecificOutput.additionalContext``."""
    import json

    try:
        data = json.loads(output)
    except ValueError:
        return None
    context = data.get("hookSpecificOutput", {}).get("additionalContext")
    if event != "session-start" or not isinstance(context, str) or not context:
        return None
    return json.dumps({"additional_context": context, "continue": True})
