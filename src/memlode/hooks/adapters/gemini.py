"""Gemini CLI's hook payloads in Claude Code's shape (what ``memlode.hooks.extract`` and the
handlers read).

Gemini CLI (0.61, recorded in tests/clients/payloads/gemini/) sends every event the common
fields ``session_id``, ``transcript_path`` (its own chat file, JSONL), ``cwd``,
``hook_event_name`` and ``timestamp``, and:

- SessionStart ``source`` (startup/resume/clear); SessionEnd ``reason`` (exit, clear, ...).
- BeforeAgent ``prompt``. In non-interactive runs SessionStart's additionalContext is put in
  front of the first prompt as ``<hook_context>…</hook_context>`` and BeforeAgent receives the
  combined text: that block is memlode's own context and is cut off here.
- AfterTool ``tool_name``, ``tool_input`` (the model's arguments) and ``tool_response``
  ``{llmContent, returnDisplay, error?}``; MCP tools are ``mcp_<server>_<tool>`` with
  ``mcp_context``. A failed call carries ``error {message, type}``, except a shell command
  that exits non-zero: that is a success whose ``llmContent`` reads ``Exit Code: N``.
- AfterAgent ``prompt``, ``prompt_response`` (all the turn's text), ``stop_hook_active``.
- PreCompress ``trigger``. Gemini CLI 0.61 fires it with ``auto`` before every model request
  (its compression service fires the hook before checking the token threshold), so ``auto``
  says nothing about a compression and is ignored; ``manual`` (``/compress``) is kept.

Tool names and arguments (``read_file`` -> Read, ``replace`` -> Edit, ``write_file`` ->
Write, ``run_shell_command`` -> Bash, ``glob`` -> Glob, ``grep_search`` -> Grep, ``web_fetch``
-> WebFetch, ``google_web_search`` -> WebSearch) are in ``_TOOLS``. Other tools keep their
name (an MCP tool becomes ``mcp__<server>__<tool>``); memlode's own MCP tools and the CLI's
bookkeeping tools are dropped. Stdlib only: this runs in every hook process.
"""

from __future__ import annotations

from memlode.hooks.adapters._shape import absolute as _absolute
from memlode.hooks.adapters._shape import as_dict as _dict
from memlode.hooks.adapters._shape import edit
from memlode.hooks.adapters._shape import named as _named
from memlode.hooks.adapters._shape import text as _text
from memlode.sources.gemini_text import shell_sections, strip_hook_context, unwrap
from memlode.sources.patches import unified_hunks as _patch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    # (Claude Code's tool name, its tool_input, its tool_response)
    Mapped = tuple[str, dict[str, Any], dict[str, Any]]

__all__ = ["adapt", "strip_hook_context"]

OWN_SERVER = "memlode"

# Claude Code's name for each memlode event (the payload's hook_event_name after adapting).
# The CLI's own bookkeeping, nothing a user did: not captured.
_IGNORED_TOOLS = frozenset(
    {"update_topic", "write_todos", "list_background_processes", "read_background_output"}
)


def adapt(event: str, payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """(memlode event, payload in Claude Code's shape) for one Gemini CLI hook, or None when
    the event is not worth handling. ``event`` is memlode's name for it, as registered."""
    base = _base(payload)
    if event == "session-start":
        return _named(event, {**base, "source": _text(payload.get("source")) or "startup"})
    if event == "prompt":
        prompt = strip_hook_context(_text(payload.get("prompt")))
        return _named(event, {**base, "prompt": prompt})
    if event in ("post-tool", "post-tool-failure"):
        return _tool(base, payload)
    if event == "stop":
        out = {
            **base,
            "stop_hook_active": payload.get("stop_hook_active") is True,
            "last_assistant_message": _text(payload.get("prompt_response")),
        }
        return _named(event, out)
    if event == "pre-compact":
        trigger = _text(payload.get("trigger"))
        if trigger != "manual":
            return None
        return _named(event, {**base, "trigger": trigger, "custom_instructions": ""})
    if event == "session-end":
        return _named(event, {**base, "reason": _text(payload.get("reason")) or "other"})
    return None  # post-compact, subagent-stop: Gemini CLI has no such events


# ---- common ------------------------------------------------------------------------------------


def _base(payload: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("session_id", "transcript_path", "cwd"):
        value = payload.get(key)
        if isinstance(value, str):
            out[key] = value
    declared = payload.get("hook_event_name")
    if isinstance(declared, str):
        out["client_hook_event_name"] = declared
    return out


def _llm_text(response: dict[str, Any]) -> str:
    """``llmContent`` as text: a string, or the text parts of a part list."""
    content = response.get("llmContent")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    return "\n".join(_text(_dict(part).get("text")) for part in parts if _dict(part).get("text"))


def _lines(text: str) -> int:
    return len(text.splitlines())


# ---- AfterTool ---------------------------------------------------------------------------------


def _tool(base: dict[str, Any], payload: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    name = _text(payload.get("tool_name"))
    if not name or name in _IGNORED_TOOLS:
        return None
    tool_in = _dict(payload.get("tool_input"))
    response = _dict(payload.get("tool_response"))
    cwd = _text(base.get("cwd"))
    mcp = _dict(payload.get("mcp_context"))
    if mcp or name.startswith("mcp_"):
        server = _text(mcp.get("server_name"))
        if server == OWN_SERVER or name.startswith(f"mcp_{OWN_SERVER}_"):
            return None  # memlode's own tools: never captured
        tool = _text(mcp.get("tool_name"))
        if server and tool:
            name = f"mcp__{server}__{tool}"
    mapper = _TOOLS.get(name)
    if mapper is None:  # its reply as the model read it, in an MCP reply's shape
        said = _llm_text(response)
        reply = {"content": [{"type": "text", "text": said}]} if said else response
        claude_name, claude_in, claude_resp = name, tool_in, reply
    else:
        claude_name, claude_in, claude_resp = mapper(tool_in, response, cwd)
    error = _failure(name, response)
    out = {**base, "tool_name": claude_name, "tool_input": claude_in}
    if error is not None:
        out["error"] = error
        out["is_interrupt"] = _shell_aborted(response) and name == "run_shell_command"
        return _named("post-tool-failure", out)
    out["tool_response"] = claude_resp
    return _named("post-tool", out)


def _failure(name: str, response: dict[str, Any]) -> str | None:
    """The error of a failed call (None when it succeeded): the tool's ``error``, or a shell
    command's non-zero exit, signal or cancellation, with what it printed."""
    error = response.get("error")
    message = _text(_dict(error).get("message")) if error else ""
    if name != "run_shell_command":
        if error is None or error is False:
            return None
        return message or _llm_text(response) or "failed"
    sections = shell_sections(_llm_text(response))
    code = sections.get("Exit Code", "").strip()
    failed = error not in (None, False) or (code not in ("", "0")) or "Signal" in sections
    if not failed and not _shell_aborted(response):
        return None
    head = f"Exit code {code}" if code else (message or "failed")
    if "Signal" in sections:
        head += f" (signal {sections['Signal'].strip()})"
    output = sections.get("Output", "")
    detail = sections.get("Error", "").strip()
    parts = [head, *(p for p in (output, detail) if p and p != message)]
    if _shell_aborted(response) and not sections:
        parts.append(unwrap(_llm_text(response)))
    return "\n".join(parts)


def _shell_aborted(response: dict[str, Any]) -> bool:
    return unwrap(_llm_text(response)).startswith("Command was ")


def _read(tool_in: dict[str, Any], response: dict[str, Any], cwd: str) -> Mapped:
    path = _absolute(_text(tool_in.get("file_path")), cwd)
    claude_in: dict[str, Any] = {"file_path": path}
    start, end = tool_in.get("start_line"), tool_in.get("end_line")
    if isinstance(start, int):
        claude_in["offset"] = start
        if isinstance(end, int) and end >= start:
            claude_in["limit"] = end - start + 1
    content = response.get("llmContent")
    if not isinstance(content, str):  # an image or a PDF: inlineData parts
        inline = _dict(_dict(content).get("inlineData"))
        kind = "image" if _text(inline.get("mimeType")).startswith("image/") else "binary"
        return "Read", claude_in, {"type": kind, "file": {"filePath": path}}
    body, first, count, total = _read_window(content)
    if first is None:
        first = start if isinstance(start, int) else 1
    if count is None:
        count = _lines(body)
    file_info: dict[str, Any] = {
        "filePath": path,
        "content": body,
        "numLines": count,
        "startLine": first,
    }
    if total is not None:
        file_info["totalLines"] = total
    elif "offset" not in claude_in:
        file_info["totalLines"] = count
    return "Read", claude_in, {"type": "text", "file": file_info}


def _read_window(content: str) -> tuple[str, int | None, int | None, int | None]:
    """A truncated read's header (``Status: Showing lines 2-5 of 40 total lines.`` then
    ``--- FILE CONTENT (truncated) ---``): (body, first line, lines shown, total lines)."""
    marker = "--- FILE CONTENT (truncated) ---"
    if marker not in content:
        return content, None, None, None
    head, _sep, body = content.partition(marker)
    body = body.lstrip("\n")
    first = count = total = None
    for line in head.splitlines():
        if line.startswith("Status: Showing lines "):
            words = line[len("Status: Showing lines ") :].split()
            span = words[0].split("-") if words else []
            if len(span) == 2 and span[0].isdigit() and span[1].isdigit():
                first, last = int(span[0]), int(span[1])
                count = last - first + 1
            if len(words) >= 3 and words[1] == "of" and words[2].isdigit():
                total = int(words[2])
    return body, first, count, total


def _edit(tool_in: dict[str, Any], response: dict[str, Any], cwd: str) -> Mapped:
    display = _dict(response.get("returnDisplay"))
    path = _absolute(_text(tool_in.get("file_path")) or _text(display.get("filePath")), cwd)
    old, new = _text(tool_in.get("old_string")), _text(tool_in.get("new_string"))
    patch = _patch(_text(display.get("fileDiff")))
    if display.get("isNewFile") is True:  # replace with an empty old_string creates the file
        return _write({"file_path": path, "content": new}, response, cwd)
    replace_all = tool_in.get("allow_multiple") is True
    original = _text(display.get("originalContent"))
    return edit(path, old, new, replace_all=replace_all, original=original, patch=patch)


def _write(tool_in: dict[str, Any], response: dict[str, Any], cwd: str) -> Mapped:
    display = _dict(response.get("returnDisplay"))
    path = _absolute(_text(tool_in.get("file_path")) or _text(display.get("filePath")), cwd)
    content = _text(tool_in.get("content"))
    created = display.get("isNewFile") is True
    claude_resp: dict[str, Any] = {
        "type": "create" if created else "update",
        "filePath": path,
        "content": content or _text(display.get("newContent")),
        "structuredPatch": [] if created else _patch(_text(display.get("fileDiff"))),
        "originalFile": None if created else _text(display.get("originalContent")),
    }
    return "Write", {"file_path": path, "content": content}, claude_resp


def _shell(tool_in: dict[str, Any], response: dict[str, Any], cwd: str) -> Mapped:
    claude_in: dict[str, Any] = {"command": _text(tool_in.get("command"))}
    if _text(tool_in.get("description")):
        claude_in["description"] = _text(tool_in.get("description"))
    if tool_in.get("is_background") is True:
        claude_in["run_in_background"] = True
    sections = shell_sections(_llm_text(response))
    claude_resp = {
        "stdout": sections.get("Output", "") if sections else _text(response.get("returnDisplay")),
        "stderr": sections.get("Error", ""),
        "interrupted": _shell_aborted(response),
        "isImage": False,
    }
    return "Bash", claude_in, claude_resp


def _glob(tool_in: dict[str, Any], response: dict[str, Any], cwd: str) -> Mapped:
    claude_in: dict[str, Any] = {"pattern": _text(tool_in.get("pattern"))}
    if _text(tool_in.get("dir_path")):
        claude_in["path"] = _absolute(_text(tool_in.get("dir_path")), cwd)
    content = _llm_text(response)
    names: list[str] = []
    if content.startswith("Found "):  # "Found N file(s) matching …:\n/abs/a\n/abs/b"
        names = [line.strip() for line in content.splitlines()[1:] if line.strip()]
    claude_resp = {"filenames": names, "numFiles": len(names), "truncated": False, "durationMs": 0}
    return "Glob", claude_in, claude_resp


def _grep(tool_in: dict[str, Any], response: dict[str, Any], cwd: str) -> Mapped:
    claude_in: dict[str, Any] = {"pattern": _text(tool_in.get("pattern"))}
    where = _text(tool_in.get("dir_path")) or _text(tool_in.get("path"))
    if where:
        claude_in["path"] = _absolute(where, cwd)
    include = _text(tool_in.get("include_pattern")) or _text(tool_in.get("include"))
    if include:
        claude_in["glob"] = include
    names_only = tool_in.get("names_only") is True
    claude_in["output_mode"] = "files_with_matches" if names_only else "content"
    matches = _grep_matches(response)
    files = list(dict.fromkeys(path for path, _line, _text_ in matches))
    if names_only:
        claude_resp: dict[str, Any] = {
            "mode": "files_with_matches",
            "numFiles": len(files),
            "filenames": files,
        }
    else:
        lines = [f"{path}:{number}:{text}" for path, number, text in matches]
        claude_resp = {
            "mode": "content",
            "numFiles": len(files),
            "filenames": files,
            "content": "\n".join(lines),
            "numLines": len(lines),
        }
    return "Grep", claude_in, claude_resp


def _grep_matches(response: dict[str, Any]) -> list[tuple[str, int, str]]:
    """(file, line, text) of each match: ``returnDisplay.matches`` where the CLI gives them,
    else ``llmContent``'s ``File: a.py`` / ``L3: text`` blocks (``L4-`` lines are context)."""
    display = _dict(response.get("returnDisplay"))
    found = display.get("matches")
    out: list[tuple[str, int, str]] = []
    if isinstance(found, list):
        for match in found:
            item = _dict(match)
            number = item.get("lineNumber")
            out.append(
                (
                    _text(item.get("filePath")) or _text(item.get("absolutePath")),
                    number if isinstance(number, int) else 0,
                    _text(item.get("line")),
                )
            )
        return out
    current = ""
    for line in _llm_text(response).splitlines():
        if line.startswith("File: "):
            current = line[len("File: ") :].strip()
        elif current and line.startswith("L"):
            number, sep, text = line[1:].partition(": ")
            if sep and number.isdigit():
                out.append((current, int(number), text))
    return out


def _web_fetch(tool_in: dict[str, Any], response: dict[str, Any], cwd: str) -> Mapped:
    prompt = _text(tool_in.get("prompt"))
    url = _text(tool_in.get("url")) or _first_url(prompt)
    claude_in = {"url": url, "prompt": prompt}
    return "WebFetch", claude_in, {"url": url, "result": _llm_text(response)}


def _first_url(text: str) -> str:
    for word in text.split():
        word = word.strip("<>()[]\"',")
        if word.startswith(("http://", "https://")):
            return word
    return ""


def _web_search(tool_in: dict[str, Any], response: dict[str, Any], cwd: str) -> Mapped:
    return "WebSearch", {"query": _text(tool_in.get("query"))}, {"result": _llm_text(response)}


_TOOLS: dict[str, Callable[[dict[str, Any], dict[str, Any], str], Mapped]] = {
    "read_file": _read,
    "replace": _edit,
    "edit": _edit,
    "write_file": _write,
    "run_shell_command": _shell,
    "glob": _glob,
    "grep_search": _grep,
    "search_file_content": _grep,  # its name before 0.2x
    "grep": _grep,
    "web_fetch": _web_fetch,
    "google_web_search": _web_search,
}
