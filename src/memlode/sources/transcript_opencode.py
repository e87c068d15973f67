"""OpenCode sessions as transcripts: one session of OpenCode's database, one thread out.

OpenCode (1.18; a real database recorded in tests/clients/payloads/opencode/opencode.db) keeps
no conversation files: its sessions live in SQLite, ``$XDG_DATA_HOME/opencode/opencode.db``
(``~/.local/share/opencode/opencode.db`` by default; WAL), in three tables:

- ``session``: ``id`` (``ses_…``), ``directory`` (the project), ``title``, ``parent_id`` (a
  subagent's session), ``revert`` (JSON ``{messageID, partID?}`` while an undo is pending: that
  message, or its parts from ``partID`` on, and everything after are gone);
- ``message``: ``id`` (``msg_…``, ascending in time), ``session_id``, ``time_created`` (ms),
  ``data``: JSON ``{role: "user"|"assistant", …}``; an assistant message with ``summary: true``
  is a compaction's summary. One assistant message per model step: a turn with four tool calls
  is a user message and five assistant messages;
- ``part``: ``id`` (``prt_…``, ascending), ``message_id``, ``data``: JSON ``{type, …}``:
  ``text`` (``synthetic`` when OpenCode wrote it, ``ignored`` when not sent), ``tool``
  (``{tool, callID, state: {status, input, output | error, metadata}}``), ``compaction`` (the
  user message that asks for one), and bookkeeping (``step-start``, ``step-finish``,
  ``reasoning``, ``patch``, ``snapshot``, ``file``, ``agent``).

A prompt is a user message's own text parts, verbatim: memlode's context reaches OpenCode's
model through the system prompt (the plugin's ``experimental.chat.system.transform``), never
through the messages. Tools get Claude Code's names and argument keys (``edit`` -> Edit with
``file_path``, ``bash`` -> Bash), so that turns and action chunks read alike for every client.

The database is opened read-only (``memlode.storage.opencode_db`` holds the queries) and read
whole per session (an indexed query); what changed since the last ingest is told by
:func:`session_version`. Stdlib only, as the other readers.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memlode.errors import NotFound
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
from memlode.storage import opencode_db

__all__ = [
    "CLIENT",
    "DB_NAME",
    "SessionVersion",
    "is_database",
    "list_sessions",
    "read_session",
    "session_version",
]

CLIENT = "opencode"
DB_NAME = "opencode.db"
# OpenCode's tool names as Claude Code's (memlode.hooks.adapters.opencode maps the same tools'
# arguments and results for the hooks).
_TOOL_NAMES = {
    "read": "Read",
    "edit": "Edit",
    "multiedit": "MultiEdit",
    "write": "Write",
    "bash": "Bash",
    "grep": "Grep",
    "glob": "Glob",
    "list": "LS",
    "webfetch": "WebFetch",
    "websearch": "WebSearch",
    "task": "Task",
}
# OpenCode's own bookkeeping, nothing the user did (as the hook adapter drops them).
_IGNORED_TOOLS = frozenset({"todowrite", "todoread", "skill", "invalid", "question"})
_FAILED_STATUSES = frozenset({"error"})
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")
# The title a session has until OpenCode's title request names it: no summary of anything.
_PLACEHOLDER_TITLE = re.compile(r"^(New|Child) session - ")


@dataclass(frozen=True, slots=True)
class SessionVersion:
    """What a session's rows look like now: their count and their latest update (ms). Any
    append, edit or delete (an undo) moves one of the two."""

    rows: int
    updated_ms: int


def is_database(path: Path) -> bool:
    """Whether ``path`` is an SQLite database with OpenCode's session tables."""
    return opencode_db.is_database(path)


def list_sessions(db: Path) -> list[str]:
    """Every session's id, oldest first."""
    with opencode_db.connect(db) as conn:
        return opencode_db.session_ids(conn)


def session_version(db: Path, session_id: str) -> SessionVersion:
    """The session's :class:`SessionVersion` (``NotFound`` when the database has no such
    session)."""
    with opencode_db.connect(db) as conn:
        session = opencode_db.session_row(conn, session_id)
        if session is None:
            raise NotFound(f"OpenCode's database {db} has no session {session_id}")
        rows, updated = opencode_db.session_version(conn, session_id)
    return SessionVersion(rows + 1, max(updated, int(session["time_updated"] or 0)))


def read_session(db: Path, session_id: str, *, key: str | None = None) -> Transcript:
    """One session of OpenCode's database ``db`` as a transcript (its ``path`` is ``key``,
    the name its ingest state is stored under; the database's path when not given)."""
    with opencode_db.connect(db) as conn:
        session = opencode_db.session_row(conn, session_id)
        if session is None:
            raise NotFound(f"OpenCode's database {db} has no session {session_id}")
        messages = opencode_db.message_rows(conn, session_id)
        parts: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for part_id, message_id, data in opencode_db.part_rows(conn, session_id):
            decoded = _json(data)
            if decoded is not None:
                parts.setdefault(message_id, []).append((part_id, decoded))
    directory, title, revert = session["directory"], session["title"], session["revert"]
    transcript = Transcript(
        path=key or str(db), client=CLIENT, session_id=session_id, cwd=directory or None
    )
    transcript.lines = len(messages)
    if isinstance(title, str) and title.strip() and not _PLACEHOLDER_TITLE.match(title):
        transcript.titles.append(Title(title.strip(), None, 0))
    thread = Thread(MAIN_THREAD, sidechain=False, origin="main")
    transcript.threads.append(thread)
    cut_message, cut_part = _revert(revert)
    for index, (message_id, created, data) in enumerate(messages):
        mid = message_id
        record = _json(data)
        if record is None:
            transcript.malformed += 1
            transcript.malformed_at.append(index)
            continue
        own = parts.get(mid, [])
        if cut_message is not None and mid >= cut_message:
            if mid > cut_message or cut_part is None:
                transcript.abandoned += 1
                continue
            own = [(pid, part) for pid, part in own if pid < cut_part]
        _add(thread, transcript, record, own, mid, index, _iso(created))
    return transcript


# ---- rows ------------------------------------------------------------------------------------


def _json(data: object) -> dict[str, Any] | None:
    try:
        decoded = json.loads(data) if isinstance(data, str | bytes) else None
    except (ValueError, RecursionError):
        return None
    return decoded if isinstance(decoded, dict) else None


def _revert(revert: object) -> tuple[str | None, str | None]:
    """(first message undone, first part undone in it) of a pending undo."""
    record = _json(revert)
    if record is None:
        return None, None
    message, part = record.get("messageID"), record.get("partID")
    return (
        message if isinstance(message, str) else None,
        part if isinstance(part, str) else None,
    )


def _iso(ms: object) -> str | None:
    if not isinstance(ms, int) or isinstance(ms, bool):
        return None
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat()


# ---- events ----------------------------------------------------------------------------------


def _add(
    thread: Thread,
    transcript: Transcript,
    record: dict[str, Any],
    parts: list[tuple[str, dict[str, Any]]],
    mid: str,
    index: int,
    ts: str | None,
) -> None:
    def event(kind: EventKind, text: str = "") -> Event:
        ev = Event(
            kind=kind,
            uuids=[mid],
            line=index,
            offset=index,  # no bytes in a database: the message's place in the session
            timestamp=ts,
            end_timestamp=ts,
            text=text,
            message_id=mid,
            session_id=transcript.session_id,
            cwd=transcript.cwd,
        )
        thread.events.append(ev)
        return ev

    role = record.get("role")
    if role == "user":
        if any(p.get("type") == "compaction" for _, p in parts):
            return  # OpenCode's request for a compaction, not the person's words
        text = "\n".join(_texts(parts)).strip()
        if text:
            event(EventKind.PROMPT, text)
    elif role == "assistant":
        if record.get("summary") is True:
            text = "\n".join(_texts(parts)).strip()
            if text:
                event(EventKind.COMPACT_SUMMARY, text)
            return
        blocks = _blocks(parts, mid)
        if blocks:
            event(EventKind.ASSISTANT).blocks.extend(blocks)


def _texts(parts: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The text parts written by the person or the model (not OpenCode's synthetic ones)."""
    return [
        str(part["text"])
        for _, part in parts
        if part.get("type") == "text"
        and isinstance(part.get("text"), str)
        and not part.get("synthetic")
        and not part.get("ignored")
    ]


def _blocks(parts: list[tuple[str, dict[str, Any]]], mid: str) -> list[Block]:
    blocks: list[Block] = []
    for part_id, part in parts:
        kind = part.get("type")
        if kind == "text" and not part.get("synthetic") and not part.get("ignored"):
            text = str(part.get("text") or "").strip()
            if text:
                blocks.append(Block(mid, text=text))
        elif kind == "tool":
            call = _tool_call(part, part_id, mid)
            if call is not None:
                blocks.append(Block(mid, tool=call))
    return blocks


def _tool_call(part: dict[str, Any], part_id: str, mid: str) -> ToolCall | None:
    name = str(part.get("tool") or "")
    if not name or name in _IGNORED_TOOLS:
        return None
    state = part.get("state")
    state = state if isinstance(state, dict) else {}
    args = state.get("input")
    status = state.get("status")
    output = state.get("output") if isinstance(state.get("output"), str) else None
    error = state.get("error") if isinstance(state.get("error"), str) else None
    metadata = state.get("metadata")
    exit_code = metadata.get("exit") if isinstance(metadata, dict) else None
    failed = status in _FAILED_STATUSES or error is not None
    failed = failed or (name == "bash" and isinstance(exit_code, int) and exit_code != 0)
    result = error if error is not None else output
    return ToolCall(
        id=str(part.get("callID") or part_id),
        name=_TOOL_NAMES.get(name, name),
        input=_claude_input(args) if name in _TOOL_NAMES else _dict(args),
        uuid=mid,
        result=result,
        is_error=failed,
        result_uuid=mid if result is not None else None,
    )


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _claude_input(args: object) -> dict[str, Any]:
    """OpenCode's camelCase argument keys as Claude Code's (``filePath`` -> ``file_path``)."""
    return {_CAMEL.sub(r"_\1", str(k)).lower(): v for k, v in _dict(args).items()}
