"""Codex CLI rollout files (JSONL) as transcripts: raw lines in, one conversation thread out.

A rollout (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl``) is an
append-only log of ``{"timestamp", "type", "payload"}`` objects, one a line (Codex 0.171,
recorded in tests/clients/payloads/codex/):

- ``session_meta``: the thread's id, cwd and git branch (the first line);
- ``turn_context``: each turn's cwd and model;
- ``response_item``: what the model saw and said: a ``message`` (role user, assistant or
  developer), ``function_call`` + ``function_call_output`` (the shell, MCP tools),
  ``custom_tool_call`` + ``custom_tool_call_output`` (``apply_patch``), ``local_shell_call``,
  ``web_search_call``, ``reasoning``, ``tool_search_call``;
- ``event_msg``: what the UI showed: ``item_completed`` (a command's exit code, a patch's
  status), ``task_complete``, ``turn_aborted``, ``thread_rolled_back``, and copies of the
  messages (``user_message``, ``agent_message``, ``UserMessage`` items) that are not read twice;
- ``compacted``: a compaction's summary.

A prompt is a user message the person typed. Codex writes its own context as user messages too
(``<environment_context>``, AGENTS.md instructions, ``<user_shell_command>``; newer builds mark
each piece's provenance), and its instructions and hooks' context (memlode's ``## memlode: …``)
as developer messages: none of that is taken for the user's words. Tools get Claude Code's
names (the shell ``Bash``; a patch one ``Edit``, ``Write`` or ``Delete`` per file) so that turns
and action chunks read alike for every client. Stdlib only, as the Claude Code reader.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from memlode.sources.patches import parse_patch
from memlode.sources.transcript import (
    MAIN_THREAD,
    Block,
    Event,
    EventKind,
    Thread,
    ToolCall,
    Transcript,
)
from memlode.sources.transcript_records import RawLine, decode_object, read_lines, text_field

__all__ = ["CLIENT", "parse_transcript", "recognise"]

CLIENT = "codex"
_RECORD_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context"})
# User-role text Codex writes itself (its context fragments: tags of the codex binary), and
# memlode's own context should a build ever hand it over as a user message.
_HARNESS = re.compile(
    r"\s*(?:<(?:environment_context|user_instructions|INSTRUCTIONS|user_shell_command"
    r"|turn_aborted|subagent_notification|startup_context|skill)\b"
    r"|<[a-z]+(?:_[a-z]+)*_(?:context|instructions|notification)>"
    r"|# AGENTS\.md instructions|## memlode:)"
)
_SHELL_TOOLS = frozenset({"exec_command", "shell", "shell_command", "container.exec"})
_PATCH_TOOL = "apply_patch"
_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"})
# "Process exited with code 1" (the shell), "Exit code: 1" (apply_patch): their reports' heads.
_EXIT_CODE = re.compile(r"^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$")
_REPORT_HEAD_LINES = 8
# The largest first line read to learn a tail's session (its session_meta holds the model's
# whole base instructions).
_HEADER_BYTES = 4 * 1024 * 1024


def recognise(record: dict[str, Any]) -> bool:
    """A rollout line: one of Codex's record types with an object ``payload``."""
    return record.get("type") in _RECORD_TYPES and isinstance(record.get("payload"), dict)


def parse_transcript(path: Path | str, *, start: int = 0, first_line: int = 0) -> Transcript:
    """Parse one rollout file, or its tail from byte ``start`` (line ``first_line``)."""
    file = Path(path)
    lines, end, partial = read_lines(file, start)
    for raw in lines:
        raw.index += first_line
    transcript = Transcript(
        path=str(file), client=CLIENT, lines=len(lines), consumed_bytes=end, partial_tail=partial
    )
    rollout = _Rollout(transcript)
    if start > 0:
        meta = _session_meta(file)
        if meta is not None:
            rollout.session(meta)
    for raw in lines:
        if not raw.data.strip():
            continue
        data = decode_object(raw)
        if data is None or not isinstance(data.get("type"), str):
            transcript.malformed += 1
            transcript.malformed_at.append(raw.index)
            continue
        rollout.add(raw, data)
    return transcript


def _session_meta(file: Path) -> dict[str, Any] | None:
    """The payload of the file's first line when it is a ``session_meta`` (for a tail read)."""
    try:
        with file.open("rb") as fh:
            line = fh.readline(_HEADER_BYTES)
        data = json.loads(line)
    except (OSError, ValueError, RecursionError):
        return None
    if isinstance(data, dict) and data.get("type") == "session_meta":
        payload = data.get("payload")
        return payload if isinstance(payload, dict) else None
    return None


class _Rollout:
    """Builds the main thread from a rollout's records, in order."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.thread = Thread(MAIN_THREAD, sidechain=False, origin="main")
        transcript.threads.append(self.thread)
        self.cwd: str | None = None
        self.calls: dict[str, list[ToolCall]] = {}  # call_id -> its calls (a patch: per file)
        self.prompts: list[int] = []  # where each prompt's event sits in the thread

    def session(self, meta: dict[str, Any]) -> None:
        transcript = self.transcript
        if transcript.session_id is not None:
            return  # a forked thread's file repeats its parent's meta: the first is this file's
        transcript.session_id = text_field(meta.get("id")) or text_field(meta.get("session_id"))
        transcript.cwd = text_field(meta.get("cwd"))
        self.cwd = self.cwd or transcript.cwd
        git = meta.get("git")
        if isinstance(git, dict):
            transcript.git_branch = text_field(git.get("branch"))

    def event(self, kind: EventKind, raw: RawLine, data: dict[str, Any], uid: str) -> Event:
        ts = text_field(data.get("timestamp"))
        event = Event(
            kind=kind,
            uuids=[uid],
            line=raw.index,
            offset=raw.offset,
            timestamp=ts,
            end_timestamp=ts,
            session_id=self.transcript.session_id,
            cwd=self.cwd,
            git_branch=self.transcript.git_branch,
        )
        self.thread.events.append(event)
        return event

    def add(self, raw: RawLine, data: dict[str, Any]) -> None:
        kind = data["type"]
        payload = data.get("payload")
        if not isinstance(payload, dict):
            return
        if kind == "session_meta":
            self.session(payload)
        elif kind == "turn_context":
            self.cwd = text_field(payload.get("cwd")) or self.cwd
        elif kind == "response_item":
            self.item(raw, data, payload)
        elif kind == "event_msg":
            self.ui_event(raw, data, payload)
        elif kind == "compacted":
            summary = text_field(payload.get("message"))
            if summary and summary.strip():
                event = self.event(EventKind.COMPACT_SUMMARY, raw, data, f"@{raw.offset}")
                event.text = summary.strip()

    # ---- response items --------------------------------------------------------------------

    def item(self, raw: RawLine, data: dict[str, Any], item: dict[str, Any]) -> None:
        kind = item.get("type")
        uid = text_field(item.get("id")) or f"@{raw.offset}"
        if kind == "message":
            role = item.get("role")
            if role == "user":
                text = _prompt_text(item)
                if text:
                    self.prompts.append(len(self.thread.events))
                    self.event(EventKind.PROMPT, raw, data, uid).text = text
            elif role == "assistant":
                text = _content_text(item.get("content"))
                if text:
                    event = self.event(EventKind.ASSISTANT, raw, data, uid)
                    event.blocks.append(Block(uid, text=text))
            # developer and system messages: Codex's instructions and the hooks' context
        elif kind in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
            calls = self.tool_calls(item, uid)
            if calls:
                event = self.event(EventKind.ASSISTANT, raw, data, uid)
                event.blocks.extend(Block(uid, tool=call) for call in calls)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self.result(raw, data, item, uid)

    def tool_calls(self, item: dict[str, Any], uid: str) -> list[ToolCall]:
        call_id = text_field(item.get("call_id")) or text_field(item.get("id")) or uid
        kind = item.get("type")
        name = text_field(item.get("name")) or ""
        if kind == "web_search_call":
            action = item.get("action")
            query = action.get("query") if isinstance(action, dict) else None
            calls = [ToolCall(call_id, "WebSearch", {"query": str(query or "")}, uid)]
        elif kind == "local_shell_call":
            action = item.get("action")
            command = action.get("command") if isinstance(action, dict) else None
            calls = self.shell(call_id, command, uid)
        elif kind == "custom_tool_call":
            raw_input = item.get("input")
            text = raw_input if isinstance(raw_input, str) else ""
            if name == _PATCH_TOOL:
                calls = self.patch(call_id, text, uid)
            else:
                calls = [ToolCall(call_id, name or "tool", {"input": text}, uid)]
        else:
            args = _arguments(item.get("arguments"))
            if name == _PATCH_TOOL:
                calls = self.patch(call_id, str(args.get("input") or args.get("patch") or ""), uid)
            elif name in _SHELL_TOOLS:
                calls = self.shell(call_id, args.get("cmd", args.get("command")), uid)
            else:
                namespace = text_field(item.get("namespace"))
                if namespace and namespace.startswith("mcp__") and not name.startswith("mcp__"):
                    name = f"{namespace}__{name}"
                calls = [ToolCall(call_id, name or "tool", args, uid)]
        self.calls.setdefault(call_id, []).extend(calls)
        return calls

    def shell(self, call_id: str, command: object, uid: str) -> list[ToolCall]:
        if isinstance(command, list) and command and command[0] == _PATCH_TOOL:
            return self.patch(call_id, str(command[1]) if len(command) > 1 else "", uid)
        return [ToolCall(call_id, "Bash", {"command": _command_line(command)}, uid)]

    def patch(self, call_id: str, patch: str, uid: str) -> list[ToolCall]:
        """One call per file the patch touches, as Claude Code's Edit, Write or Delete."""
        calls: list[ToolCall] = []
        for change in parse_patch(patch):
            path = _absolute(str(change["path"]), self.cwd)
            lines = [line for hunk in change["hunks"] for line in hunk["lines"]]
            added = "\n".join(line[1:] for line in lines if line[:1] == "+")
            if change["kind"] == "add":
                calls.append(ToolCall(call_id, "Write", {"file_path": path, "content": added}, uid))
            elif change["kind"] == "delete":
                calls.append(ToolCall(call_id, "Delete", {"file_path": path}, uid))
            else:
                removed = "\n".join(line[1:] for line in lines if line[:1] == "-")
                args: dict[str, Any] = {
                    "file_path": path,
                    "old_string": removed,
                    "new_string": added,
                }
                if change["move_to"]:
                    args["move_to"] = _absolute(str(change["move_to"]), self.cwd)
                calls.append(ToolCall(call_id, "Edit", args, uid))
        return calls or [ToolCall(call_id, _PATCH_TOOL, {"input": patch}, uid)]

    def result(self, raw: RawLine, data: dict[str, Any], item: dict[str, Any], uid: str) -> None:
        call_id = text_field(item.get("call_id")) or ""
        output = item.get("output")
        text = _output_text(output)
        failed = _reported_failure(output, text)
        body = _report_body(text)
        for call in self.calls.get(call_id, []):
            call.result = body
            call.is_error = call.is_error or failed
            call.result_uuid = uid
        self.event(EventKind.TOOL_RESULTS, raw, data, uid)

    # ---- UI events -------------------------------------------------------------------------

    def ui_event(self, raw: RawLine, data: dict[str, Any], event: dict[str, Any]) -> None:
        kind = event.get("type")
        uid = f"@{raw.offset}"
        if kind in ("task_complete", "turn_complete"):
            self.event(EventKind.TURN_END, raw, data, uid)
        elif kind == "turn_aborted":
            self.event(EventKind.INTERRUPT, raw, data, uid)
        elif kind == "thread_rolled_back":
            turns = event.get("num_turns")
            self.rollback(turns if isinstance(turns, int) else 0)
        elif kind == "item_completed":
            item = event.get("item")
            if isinstance(item, dict):
                self.completed(item)
        elif kind == "exec_command_end":  # older builds
            code = event.get("exit_code")
            self.fail(event.get("call_id"), isinstance(code, int) and code != 0)
        elif kind == "patch_apply_end":  # older builds
            self.fail(event.get("call_id"), event.get("success") is False)

    def completed(self, item: dict[str, Any]) -> None:
        """An ``item_completed``: a command's exit code, a patch's or a tool's failure."""
        code = item.get("exit_code")
        failed = item.get("status") == "failed" or (isinstance(code, int) and code != 0)
        self.fail(item.get("id"), failed)
        output = item.get("aggregated_output")
        if failed and isinstance(output, str) and output.strip():
            for call in self.calls.get(str(item.get("id")), []):
                call.result = call.result or output.strip()

    def fail(self, call_id: object, failed: bool) -> None:
        if failed and isinstance(call_id, str):
            for call in self.calls.get(call_id, []):
                call.is_error = True

    def rollback(self, turns: int) -> None:
        """``thread_rolled_back``: the last ``turns`` prompts and all that followed them are
        gone from the conversation (Codex's backtrack)."""
        if turns <= 0 or not self.prompts:
            return
        cut = self.prompts[-min(turns, len(self.prompts))]
        self.transcript.abandoned += len(self.thread.events) - cut
        del self.thread.events[cut:]
        self.prompts = [i for i in self.prompts if i < cut]


# ---- helpers ---------------------------------------------------------------------------------


def _content_text(content: object) -> str:
    """The text pieces of a message's content (``input_text``, ``output_text``), joined."""
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        return ""
    parts = [str(p.get("text") or "").strip() for p in content if isinstance(p, dict)]
    return "\n\n".join(p for p in parts if p)


def _prompt_text(item: dict[str, Any]) -> str:
    """What the person typed in a user message: its text pieces, less those Codex wrote itself
    (by their provenance where the build records it, else by their opening tag)."""
    content = item.get("content")
    if isinstance(content, str):
        content = [{"type": "input_text", "text": content}]
    if not isinstance(content, list):
        return ""
    passthrough = item.get("internal_chat_message_metadata_passthrough")
    meta = passthrough.get("content_item_metadata") if isinstance(passthrough, dict) else None
    provenance = meta if isinstance(meta, list) and len(meta) == len(content) else None
    parts: list[str] = []
    for n, piece in enumerate(content):
        if not isinstance(piece, dict) or piece.get("type") not in ("input_text", "text"):
            continue
        text = str(piece.get("text") or "")
        if not text.strip() or _HARNESS.match(text):
            continue
        if provenance is not None:
            source = provenance[n].get("provenance") if isinstance(provenance[n], dict) else None
            if isinstance(source, dict) and source.get("type") not in (None, "user"):
                continue
        parts.append(text.strip())
    return "\n\n".join(parts)


def _arguments(raw: object) -> dict[str, Any]:
    """A function call's arguments: a JSON object, usually as a string."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            return {"input": raw}
        return value if isinstance(value, dict) else {"input": raw}
    return {}


def _command_line(command: object) -> str:
    """The command line the shell ran: ``["bash", "-lc", "cat x"]`` is ``cat x``."""
    if isinstance(command, str):
        return command
    if not isinstance(command, list):
        return ""
    words = [str(w) for w in command]
    if len(words) == 3 and words[0] in _SHELLS and words[1] in ("-lc", "-c"):
        return words[2]
    return " ".join(words)


def _output_text(output: object) -> str:
    """A call's output: a string, ``{"content": …}``, or a list of content pieces."""
    if isinstance(output, str):
        return output
    if isinstance(output, dict):
        return _output_text(output.get("content") or output.get("output"))
    if isinstance(output, list):
        return _content_text(output)
    return ""


def _reported_failure(output: object, text: str) -> bool:
    """A non-zero exit code at the head of the report, ``success: false``, or (older builds)
    ``metadata.exit_code`` in a JSON report."""
    if isinstance(output, dict) and output.get("success") is False:
        return True
    for line in text.splitlines()[:_REPORT_HEAD_LINES]:
        match = _EXIT_CODE.match(line.strip())
        if match:
            return int(match.group(1)) != 0
    if text.startswith("{"):
        try:
            report = json.loads(text)
        except (ValueError, RecursionError):
            return False
        meta = report.get("metadata") if isinstance(report, dict) else None
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        return isinstance(code, int) and code != 0
    return False


def _report_body(text: str) -> str:
    """What a call printed, without the report's head (``Chunk ID``, ``Wall time``, ...) that
    ends with an ``Output:`` line."""
    lines = text.splitlines()
    for n, line in enumerate(lines[:_REPORT_HEAD_LINES]):
        if line.strip() == "Output:":
            return "\n".join(lines[n + 1 :]).strip()
    return text.strip()


def _absolute(path: str, cwd: str | None) -> str:
    if not path or os.path.isabs(path) or not cwd:
        return path
    return os.path.normpath(os.path.join(cwd, path))
