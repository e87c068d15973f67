"""OpenCode's plugin payloads in Claude Code's shape (what ``memlode.hooks.extract`` and the
handlers read).

OpenCode (1.18) has no hook commands: memlode's plugin (``memlode/hooks/opencode_plugin.js``)
runs the hook command for its events, with ``hook_event_name`` (OpenCode's event or hook name),
``session_id`` (``ses_…``) and ``cwd`` (the session's directory), and (recorded in
tests/clients/payloads/opencode/):

- ``session.created``: ``source``, ``title``, ``parent_id`` (a subagent's session), ``version``.
- ``chat.message``: ``prompt`` (the user's text parts, joined), ``message_id``, ``agent``.
- ``tool.execute.after``: ``tool``, ``call_id``, ``args`` (the model's arguments), ``title``,
  ``output`` (the text the model got), ``metadata`` (the tool's structured result: read's
  ``display``, edit's unified ``diff``, bash's ``exit``; MCP tools have none). A command that
  exits non-zero is a success here (``metadata.exit``): it is adapted as a failure.
- ``message.part.updated`` of a tool in ``status: "error"`` (a tool that threw: an edit whose
  ``oldString`` is not in the file, a fetch that got a 404): ``tool``, ``args``, ``error``.
  OpenCode does not run ``tool.execute.after`` for those.
- ``session.idle`` (a turn is over): ``last_assistant_message``.
- ``experimental.session.compacting``, ``session.compacted``, ``session.deleted``.

Tools (``read`` -> Read, ``edit`` -> Edit, ``write`` -> Write, ``bash`` -> Bash, ``grep`` ->
Grep, ``glob`` -> Glob, ``webfetch`` -> WebFetch) are in ``_TOOLS``. An MCP tool is named
``<server>_<tool>``: memlode's own (``memlode_…``) are dropped, as are OpenCode's bookkeeping
tools (``todowrite``, ``skill``…); any other keeps its name. Stdlib only: this runs in every
hook process.
"""

from __future__ import annotations

from memlode.hooks.adapters._shape import absolute as _absolute
from memlode.hooks.adapters._shape import as_dict as _dict
from memlode.hooks.adapters._shape import edit
from memlode.hooks.adapters._shape import named as _named
from memlode.hooks.adapters._shape import text as _text
from memlode.sources.patches import unified_hunks as _patch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    # (Claude Code's tool name, its tool_input, its tool_response)
    Mapped = tuple[str, dict[str, Any], dict[str, Any]]

__all__ = ["adapt"]

OWN_TOOL_PREFIX = "memlode_"
# OpenCode's own bookkeeping, nothing a user did: not captured.
_IGNORED_TOOLS = frozenset({"todowrite", "todoread", "skill", "invalid", "question"})
READ_HEADER = "<content>"


def adapt(event: str, payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(memlode event, payload in Claude Code's shape) for one event of memlode's OpenCode
    plugin, or None when it is not worth handling."""
    base = _base(payload)
    if event == "session-start":
        return _named(event, {**base, "source": _text(payload.get("source")) or "startup"})
    if event == "prompt":
        prompt = _text(payload.get("prompt"))
        return _named(event, {**base, "prompt": prompt}) if prompt.strip() else None
    if event in ("post-tool", "post-tool-failure"):
        return _tool(base, payload)
    if event == "stop":
        last = _text(payload.get("last_assistant_message"))
        return _named(event, {**base, "stop_hook_active": False, "last_assistant_message": last})
    if event == "pre-compact":
        trigger = _text(payload.get("trigger")) or "auto"
        return _named(event, {**base, "trigger": trigger, "custom_instructions": ""})
    if event == "post-compact":
        return _named(event, base)
    if event == "session-end":
        return _named(event, {**base, "reason": _text(payload.get("reason")) or "other"})
    return None


# ---- common ------------------------------------------------------------------------------------


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _base(payload: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("session_id", "cwd"):
        value = payload.get(key)
        if isinstance(value, str):
            out[key] = value
    declared = payload.get("hook_event_name")
    if isinstance(declared, str):
        out["client_hook_event_name"] = declared
    return out


# ---- tools -------------------------------------------------------------------------------------


def _tool(base: dict[str, Any], payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    name = _text(payload.get("tool"))
    if not name or name in _IGNORED_TOOLS or name.startswith(OWN_TOOL_PREFIX):
        return None
    args = _dict(payload.get("args"))
    meta = _dict(payload.get("metadata"))
    output = _text(payload.get("output"))
    cwd = _text(base.get("cwd"))
    mapper = _TOOLS.get(name)
    if mapper is None:
        claude_name, claude_in = name, args
        claude_resp: dict[str, Any] = {"output": output} if output else {}
    else:
        claude_name, claude_in, claude_resp = mapper(args, output, meta, cwd)
    out = {**base, "tool_name": claude_name, "tool_input": claude_in}
    error = _failure(name, payload, output, meta)
    if error is not None:
        out["error"] = error
        out["is_interrupt"] = False
        return _named("post-tool-failure", out)
    out["tool_response"] = claude_resp
    return _named("post-tool", out)


def _failure(name: str, payload: dict[str, Any], output: str, meta: dict[str, Any]) -> str | None:
    """The error of a failed call (None when it succeeded): a tool that threw, or a command
    that exited non-zero (with what it printed)."""
    if payload.get("status") == "error" or "error" in payload:
        return _text(payload.get("error")) or "failed"
    if name == "bash":
        code = _int(meta.get("exit"))
        if code is not None and code != 0:
            printed = output or _text(meta.get("output"))
            return f"Exit code {code}\n{printed}".rstrip("\n")
    return None


def _read(args: dict[str, Any], output: str, meta: dict[str, Any], cwd: str) -> Mapped:
    display = _dict(meta.get("display"))
    path = _absolute(_text(args.get("filePath")) or _text(display.get("path")), cwd)
    claude_in: dict[str, Any] = {"file_path": path}
    for key in ("offset", "limit"):
        if _int(args.get(key)) is not None:
            claude_in[key] = args[key]
    if _text(display.get("type")) not in ("", "file"):  # an image, a PDF, a folder listing
        return "Read", claude_in, {"type": _text(display.get("type")), "file": {"filePath": path}}
    content = _text(display.get("text")) or _text(meta.get("preview"))
    first = _int(display.get("lineStart")) or 1
    last = _int(display.get("lineEnd"))
    count = last - first + 1 if last is not None and last >= first else len(content.splitlines())
    file_info: dict[str, Any] = {
        "filePath": path,
        "content": content,
        "numLines": count,
        "startLine": first,
    }
    total = _int(display.get("totalLines"))
    if total is not None:
        file_info["totalLines"] = total
    return "Read", claude_in, {"type": "text", "file": file_info}


def _edit(args: dict[str, Any], output: str, meta: dict[str, Any], cwd: str) -> Mapped:
    filediff = _dict(meta.get("filediff"))
    path = _absolute(_text(args.get("filePath")) or _text(filediff.get("file")), cwd)
    old, new = _text(args.get("oldString")), _text(args.get("newString"))
    replace_all = args.get("replaceAll") is True
    patch = _patch(_text(meta.get("diff")) or _text(filediff.get("patch")))
    return edit(path, old, new, replace_all=replace_all, patch=patch)


def _write(args: dict[str, Any], output: str, meta: dict[str, Any], cwd: str) -> Mapped:
    path = _absolute(_text(args.get("filePath")) or _text(meta.get("filepath")), cwd)
    content = _text(args.get("content"))
    created = meta.get("exists") is False
    claude_resp: dict[str, Any] = {
        "type": "create" if created else "update",
        "filePath": path,
        "content": content,
        "structuredPatch": [],
        "originalFile": None,
    }
    return "Write", {"file_path": path, "content": content}, claude_resp


def _bash(args: dict[str, Any], output: str, meta: dict[str, Any], cwd: str) -> Mapped:
    claude_in: dict[str, Any] = {"command": _text(args.get("command"))}
    if _text(args.get("description")):
        claude_in["description"] = _text(args.get("description"))
    # OpenCode runs the command with stderr merged into stdout: one stream.
    claude_resp: dict[str, Any] = {
        "stdout": _text(meta.get("output")) or output,
        "stderr": "",
        "interrupted": False,
        "isImage": False,
    }
    if meta.get("truncated") is True:
        named, end = _saved(output)
        if end:
            from memlode.hooks.observation import file_part

            part = file_part(_text(meta.get("outputPath")) or named, SAVED_HEAD_BYTES)
            head = part[0].decode("utf-8", "replace") if part else ""
            claude_resp["stdout"] = _joined(head, end) if head else end
    return "Bash", claude_in, claude_resp


# A long output reaches the plugin cut: the model's text is "...output truncated...", "Full
# output saved to: <path>" (also ``metadata.outputPath``), then the output's last ~50 KB
# (``metadata.output``: its last 30 KB). Its start is read from the file, its end taken from
# the model's text (OpenCode 1.18). OpenCode itself sometimes loses the last lines of a long
# output, in the text, the metadata and the file alike (3 of 8 runs here): what it kept is
# what there is.
SAVED_LINE = "Full output saved to: "
SAVED_HEAD_BYTES = 30_000


def _saved(output: str) -> tuple[str, str]:
    """The path after the model's "Full output saved to:" line, and the text after that line
    (the output's end); two empty texts when it has no such line."""
    lines = output.split("\n")
    at = next((i for i, line in enumerate(lines[:5]) if line.startswith(SAVED_LINE)), -1)
    if at < 0:
        return "", ""
    return lines[at][len(SAVED_LINE) :].strip(), "\n".join(lines[at + 1 :]).lstrip("\n")


def _joined(head: str, end: str) -> str:
    """The saved output's ``head`` and its ``end``, without the part both hold: where the rest
    of the head from a line on is the start of the end, they overlap."""
    head = head[: head.rfind("\n") + 1] if "\n" in head else head  # to its last whole line
    first = end.split("\n", 1)[0] + "\n"
    at = head.find(first) if first.strip() else -1
    while at >= 0:
        if (at == 0 or head[at - 1] == "\n") and end.startswith(head[at:]):
            return head[:at] + end
        at = head.find(first, at + 1)
    return head.rstrip("\n") + "\n…\n" + end


def _grep(args: dict[str, Any], output: str, meta: dict[str, Any], cwd: str) -> Mapped:
    claude_in: dict[str, Any] = {"pattern": _text(args.get("pattern"))}
    if _text(args.get("path")):
        claude_in["path"] = _absolute(_text(args.get("path")), cwd)
    if _text(args.get("include")):
        claude_in["glob"] = _text(args.get("include"))
    # "Found N matches\n/abs/a.py:\n  Line 1: text\n\n/abs/b.py:\n  Line 3: text"
    names = [
        line[:-1]
        for line in output.splitlines()[1:]
        if line.endswith(":") and not line.startswith(" ") and line.strip()
    ]
    claude_resp: dict[str, Any] = {
        "mode": "files_with_matches",
        "numFiles": len(names),
        "filenames": names,
    }
    matches = _int(meta.get("matches"))
    if matches is not None:
        claude_resp["numMatches"] = matches
    return "Grep", claude_in, claude_resp


def _glob(args: dict[str, Any], output: str, meta: dict[str, Any], cwd: str) -> Mapped:
    claude_in: dict[str, Any] = {"pattern": _text(args.get("pattern"))}
    if _text(args.get("path")):
        claude_in["path"] = _absolute(_text(args.get("path")), cwd)
    names = [
        line.strip()
        for line in output.splitlines()
        if line.strip() and not line.startswith("(") and line.strip() != "No files found"
    ]
    count = _int(meta.get("count"))
    claude_resp = {
        "filenames": names,
        "numFiles": count if count is not None else len(names),
        "truncated": meta.get("truncated") is True,
    }
    return "Glob", claude_in, claude_resp


def _webfetch(args: dict[str, Any], output: str, meta: dict[str, Any], cwd: str) -> Mapped:
    url = _text(args.get("url"))
    claude_in = {"url": url, "prompt": _text(args.get("format"))}
    return "WebFetch", claude_in, {"url": url, "result": output, "bytes": len(output)}


_TOOLS: dict[str, Callable[[dict[str, Any], str, dict[str, Any], str], Mapped]] = {
    "read": _read,
    "edit": _edit,
    "write": _write,
    "bash": _bash,
    "grep": _grep,
    "glob": _glob,
    "webfetch": _webfetch,
}
