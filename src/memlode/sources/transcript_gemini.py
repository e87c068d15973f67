"""Gemini CLI chat files (JSONL) as transcripts: raw lines in, one conversation thread out.

A chat file (``~/.gemini/tmp/<project>/chats/session-<date>T<hh-mm>-<id8>.jsonl``; Gemini CLI
0.61, recorded in tests/clients/payloads/gemini/) is a log its ChatRecordingService appends to:

- a header ``{sessionId, projectHash, startTime, lastUpdated, kind}`` (``projectHash`` is the
  SHA-256 of the project's root, which ``../.project_root`` beside ``chats/`` names);
- message records ``{id, timestamp, type, content, …}``, type ``user``, ``gemini``, ``info``,
  ``error`` or ``warning``. A record is written again, whole, each time it grows (a reply's
  tokens, then its ``toolCalls`` with their results): the last copy of an id wins, in the place
  of its first. A user record holding ``functionResponse`` parts carries tool results; a user
  record's ``displayContent`` is what the person typed when ``content`` expanded it;
- ``{"$set": {…}}`` updates: ``lastUpdated``, ``summary`` (a session title), ``directories``,
  or ``messages``: the whole list again (at start, the CLI's ``<session_context>``; after a
  cancelled prompt, the list without it; after a compression, a ``<state_snapshot>`` summary in
  front of what was kept);
- ``{"$rewindTo": id}``: that message and all after it are gone.

A prompt is a user message the person typed: not the CLI's ``<session_context>``, and without
the ``<hook_context>`` block (memlode's own briefing) Gemini puts in front of the first one;
``/`` and ``?`` lines are commands. Tools get Claude Code's names (``replace`` -> Edit,
``run_shell_command`` -> Bash, ...) so that turns and action chunks read alike for every client.
Stdlib only, as the Claude Code reader.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memlode.sources.gemini_text import shell_sections, strip_hook_context, unwrap
from memlode.sources.transcript import (
    MAIN_THREAD,
    Block,
    Event,
    EventKind,
    Thread,
    Title,
    ToolCall,
    Transcript,
)
from memlode.sources.transcript_records import RawLine, decode_object, read_lines, text_field

__all__ = ["CLIENT", "parse_transcript", "recognise"]

CLIENT = "gemini"
_MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
# Gemini's tool names as Claude Code's (the hook adapter, memlode.hooks.adapters.gemini, maps
# the same tools' arguments and results for the hooks).
_TOOL_NAMES = {
    "read_file": "Read",
    "read_many_files": "Read",
    "replace": "Edit",
    "edit": "Edit",
    "write_file": "Write",
    "run_shell_command": "Bash",
    "glob": "Glob",
    "grep_search": "Grep",
    "search_file_content": "Grep",
    "grep": "Grep",
    "list_directory": "LS",
    "web_fetch": "WebFetch",
    "google_web_search": "WebSearch",
}
_SESSION_CONTEXT = "<session_context>"
_STATE_SNAPSHOT = "<state_snapshot>"
_COMMAND_PREFIXES = ("/", "?")
_FAILED_STATUSES = frozenset({"error", "cancelled"})
_PROJECT_ROOT_FILE = ".project_root"


def recognise(record: dict[str, Any]) -> bool:
    """A chat-file line: its header, a ``$set`` or ``$rewindTo`` update, or a message record
    (an ``id`` and a Gemini type, with no Claude Code ``message`` or ``uuid``)."""
    if isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str):
        return True
    if isinstance(record.get("$set"), dict) or isinstance(record.get("$rewindTo"), str):
        return True
    return (
        isinstance(record.get("id"), str)
        and record.get("type") in _MESSAGE_TYPES
        and "message" not in record
        and "uuid" not in record
    )


@dataclass(slots=True)
class _Message:
    record: dict[str, Any]
    line: int
    offset: int
    synthetic: bool = False  # first seen in a ``$set`` list: the CLI's, not the person's


def parse_transcript(path: Path | str, *, start: int = 0, first_line: int = 0) -> Transcript:
    """Parse one chat file, or its tail from byte ``start`` (line ``first_line``)."""
    file = Path(path)
    lines, end, partial = read_lines(file, start)
    for raw in lines:
        raw.index += first_line
    transcript = Transcript(
        path=str(file), client=CLIENT, lines=len(lines), consumed_bytes=end, partial_tail=partial
    )
    header: dict[str, Any] = _header(file) if start > 0 else {}
    messages: dict[str, _Message] = {}
    for raw in lines:
        if not raw.data.strip():
            continue
        data = decode_object(raw)
        if data is None:
            transcript.malformed += 1
            transcript.malformed_at.append(raw.index)
        elif isinstance(data.get("$rewindTo"), str):
            _rewind(messages, data["$rewindTo"], transcript)
        elif isinstance(data.get("$set"), dict):
            _update(data["$set"], raw, header, messages, transcript, start > 0)
        elif isinstance(data.get("id"), str):
            known = messages.get(data["id"])
            if known is None:
                messages[data["id"]] = _Message(data, raw.index, raw.offset)
            else:
                known.record = data  # the record again, grown: the last copy wins
        elif isinstance(data.get("sessionId"), str):
            header.update(data)
    transcript.session_id = text_field(header.get("sessionId"))
    transcript.cwd = _project_root(file, header)
    thread = Thread(MAIN_THREAD, sidechain=False, origin="main")
    transcript.threads.append(thread)
    for message in messages.values():
        _add(thread, transcript, message)
    return transcript


def _header(file: Path) -> dict[str, Any]:
    """The file's first line when it is the header (a tail read needs its session)."""
    try:
        with file.open("rb") as fh:
            data = json.loads(fh.readline(1024 * 1024))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("sessionId"), str) else {}


def _rewind(messages: dict[str, _Message], target: str, transcript: Transcript) -> None:
    """``$rewindTo``: the message and every later one are gone (all of them, as Gemini does,
    when the id is unknown)."""
    ids = list(messages)
    cut = ids.index(target) if target in messages else 0
    for gone in ids[cut:]:
        del messages[gone]
    transcript.abandoned += max(len(ids) - cut, 1)


def _update(
    changes: dict[str, Any],
    raw: RawLine,
    header: dict[str, Any],
    messages: dict[str, _Message],
    transcript: Transcript,
    tail: bool,
) -> None:
    header.update({k: v for k, v in changes.items() if k != "messages"})
    summary = text_field(changes.get("summary"))
    if summary and summary.strip():
        transcript.titles.append(Title(summary.strip(), None, raw.index))
    listed = changes.get("messages")
    if not isinstance(listed, list):
        return
    if tail:
        # which messages the list leaves out is known only against the whole file: counted
        # as abandoned, so that an incremental ingest reads the whole file instead
        transcript.abandoned += 1
    records = [m for m in listed if isinstance(m, dict) and isinstance(m.get("id"), str)]
    ids = [m["id"] for m in records]
    if ids and all(i in messages for i in ids):
        # the list again without its end (a cancelled prompt rolled back): those are gone
        dropped = [i for i in messages if i not in set(ids)]
        for gone in dropped:
            del messages[gone]
        transcript.abandoned += len(dropped)
        return
    # a new history (the session's start, a compression, a resume): what it drops was said
    # all the same and stays; what it adds is the CLI's own (its context, a summary)
    for record in records:
        if record["id"] not in messages:
            messages[record["id"]] = _Message(record, raw.index, raw.offset, synthetic=True)


def _project_root(file: Path, header: dict[str, Any]) -> str | None:
    """The project's folder: ``.project_root`` beside ``chats/`` when its SHA-256 is the
    header's ``projectHash``, else the first of the session's ``directories``."""
    digest = text_field(header.get("projectHash"))
    for folder in (file.parent.parent, file.parent.parent.parent):  # chats/ or chats/<parent>/
        try:
            root = (folder / _PROJECT_ROOT_FILE).read_text("utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if root and (digest is None or hashlib.sha256(root.encode()).hexdigest() == digest):
            return root
    directories = header.get("directories")
    if isinstance(directories, list) and directories and isinstance(directories[0], str):
        return directories[0]
    return None


# ---- events ----------------------------------------------------------------------------------


def _add(thread: Thread, transcript: Transcript, message: _Message) -> None:
    record = message.record
    kind = record.get("type")
    uid = str(record["id"])
    ts = text_field(record.get("timestamp"))

    def event(event_kind: EventKind, text: str = "") -> Event:
        ev = Event(
            kind=event_kind,
            uuids=[uid],
            line=message.line,
            offset=message.offset,
            timestamp=ts,
            end_timestamp=ts,
            text=text,
            session_id=transcript.session_id,
            cwd=transcript.cwd,
        )
        thread.events.append(ev)
        return ev

    if kind == "user":
        content = record.get("content")
        if _has_function_response(content):
            if not message.synthetic:
                event(EventKind.TOOL_RESULTS)
            return
        display = record.get("displayContent")
        text = _text(display if display else content).strip()
        if text.startswith(_STATE_SNAPSHOT):
            event(EventKind.COMPACT_SUMMARY, text)
        elif message.synthetic or text.startswith(_SESSION_CONTEXT):
            return  # the CLI's own context
        else:
            text = strip_hook_context(text).strip()
            if text.startswith(_COMMAND_PREFIXES):
                event(EventKind.COMMAND, text)
            elif text:
                event(EventKind.PROMPT, text)
    elif kind == "gemini" and not message.synthetic:
        blocks = _reply_blocks(record, uid)
        if blocks:
            event(EventKind.ASSISTANT).blocks.extend(blocks)


def _reply_blocks(record: dict[str, Any], uid: str) -> list[Block]:
    blocks: list[Block] = []
    text = _text(record.get("content")).strip()
    if text:
        blocks.append(Block(uid, text=text))
    calls = record.get("toolCalls")
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict):
            blocks.append(Block(uid, tool=_tool_call(call, uid)))
    return blocks


def _tool_call(call: dict[str, Any], uid: str) -> ToolCall:
    name = str(call.get("name") or "tool")
    args = call.get("args")
    output, error = _result(call.get("result"))
    failed = call.get("status") in _FAILED_STATUSES or error is not None
    if name == "run_shell_command" and output is not None:
        sections = shell_sections(output)
        code = sections.get("Exit Code", "").strip()
        failed = failed or code not in ("", "0") or "Signal" in sections
        output = sections.get("Output", unwrap(output))
    return ToolCall(
        id=str(call.get("id") or uid),
        name=_TOOL_NAMES.get(name, name),
        input=args if isinstance(args, dict) else {},
        uuid=uid,
        result=error if error is not None else output,
        is_error=failed,
        result_uuid=uid if output is not None or error is not None else None,
    )


def _result(parts: object) -> tuple[str | None, str | None]:
    """(output, error) of a tool call's ``functionResponse`` parts."""
    outputs: list[str] = []
    errors: list[str] = []
    for part in parts if isinstance(parts, list) else []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if not isinstance(body, dict):
            continue
        if isinstance(body.get("error"), str):
            errors.append(body["error"])
        if isinstance(body.get("output"), str):
            outputs.append(body["output"])
    return ("\n".join(outputs) if outputs else None), ("\n".join(errors) if errors else None)


def _has_function_response(content: object) -> bool:
    return isinstance(content, list) and any(
        isinstance(p, dict) and "functionResponse" in p for p in content
    )


def _text(content: object) -> str:
    """A message's text: a string, a part, or the text parts of a part list."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return _text([content])
    if isinstance(content, list):
        return "".join(str(p["text"]) for p in content if isinstance(p, dict) and "text" in p)
    return ""
