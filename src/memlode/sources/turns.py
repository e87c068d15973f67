"""Turns and chunks: what of a conversation is stored and searched, and in what pieces.

A turn is one prompt and everything the assistant did about it. The stored text of Turn[n] is
User[n] + Assistant[n] + User[n+1]: the next prompt is forward context, because it often says
whether the answer worked ("that fixed it", "no, still failing"). A turn longer than the
embedder's window is split on its markdown structure into sub-chunks that each carry the tail
of the previous one. Turns that used tools also yield *action* chunks ("used Edit on auth.py to
...") dated and on their branch, so that "when did we change X" finds them. Compaction summaries
and session titles become *summary* chunks.

Stdlib only (the Stop hook runs this).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from memlode.sources.chunking import (
    CHUNK_WORDS,
    HEADER_WORDS,
    OVERLAP_RATIO,
    chunk_text,
    clip_words,
    merge_ids,
)
from memlode.sources.compaction import compaction_parts
from memlode.sources.outcomes import read_output
from memlode.sources.transcript import (
    Block,
    Event,
    EventKind,
    Thread,
    Title,
    ToolCall,
    Transcript,
)

__all__ = [
    "ACTION_MIN_TOOLS",
    "CHUNK_WORDS",
    "OVERLAP_RATIO",
    "Chunk",
    "Summary",
    "Turn",
    "build_turns",
    "chunk_metadata",
    "chunk_text",
    "is_reply",
    "namespace_hint",
    "summaries",
    "summary_chunks",
    "turn_chunks",
]

# A turn is "tool-heavy" (gets action chunks) with this many tool calls, or any file change.
ACTION_MIN_TOOLS = 3
_CHANGING_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
# How much of a tool argument a turn's text shows; of an edit whose texts share their start
# past that, the words shown before the first that differs.
_ARG_WORDS = 14
_CHANGE_CONTEXT_WORDS = 4
# The next prompt is context for this turn, not its content: only its start is kept.
_NEXT_USER_WORDS = 50
# A prompt of at most this many words ("both", "yes", "do it", "and push") answers what the
# assistant last wrote, and means nothing alone: its turn shows the end of that message (the
# question or the options are usually last), at most this many words of it.
REPLY_MAX_WORDS = 3
_REPLIED_WORDS = 40


@dataclass(slots=True)
class Turn:
    thread: str
    index: int
    sidechain: bool
    user_text: str  # the prompt or "/command args"; "" when the thread starts mid-response
    user_kind: str  # "prompt", "command" or "" (none)
    user_uuid: str | None
    offset: int  # byte offset of the turn's first line
    line: int
    started_at: str | None
    ended_at: str | None
    session_id: str | None
    cwd: str | None
    git_branch: str | None
    blocks: list[Block] = field(default_factory=list)
    uuids: list[str] = field(default_factory=list)
    next_user_text: str = ""
    replied_to: str = ""  # for a short reply: the end of the assistant's message it answers
    complete: bool = False  # ended with end_turn or a turn_duration record
    interrupted: bool = False
    provisional: bool = False  # the last turn of its thread: the next prompt may still come

    @property
    def tools(self) -> list[ToolCall]:
        return [b.tool for b in self.blocks if b.tool is not None]


@dataclass(slots=True)
class Summary:
    kind: str  # "compaction", "title" or "link" (a pull request the session is linked to)
    text: str
    uuids: list[str]
    timestamp: str | None
    line: int


@dataclass(slots=True)
class Chunk:
    kind: str  # "turn", "action" or "summary"
    text: str
    uuids: list[str]
    part: int = 0
    parts: int = 1
    section: str = ""  # of a compaction summary: the section it comes from
    history: bool = False  # ... and whether that section is the state at compaction time


# ---- turns ----------------------------------------------------------------------------------


def _new_turn(thread: Thread, index: int, ev: Event, user: Event | None) -> Turn:
    head = user or ev
    return Turn(
        thread=thread.key,
        index=index,
        sidechain=thread.sidechain,
        user_text=user.text if user else "",
        user_kind=str(user.kind) if user else "",
        user_uuid=user.uuids[0] if user and user.uuids else None,
        offset=head.offset,
        line=head.line,
        started_at=head.timestamp,
        ended_at=head.end_timestamp,
        session_id=head.session_id,
        cwd=head.cwd,
        git_branch=head.git_branch,
        uuids=list(user.uuids) if user else [],
    )


def build_turns(thread: Thread) -> list[Turn]:
    """Group a thread's events into turns; the last one is marked provisional.

    A prompt starts a turn. A slash command starts one only when the assistant answers it
    (``/model`` or ``/mcp`` only print local output). Everything else joins the current turn.
    """
    turns: list[Turn] = []
    current: Turn | None = None
    pending_command: Event | None = None
    for ev in thread.events:
        kind = ev.kind
        if kind is EventKind.PROMPT:
            pending_command = None
            current = _new_turn(thread, len(turns), ev, ev)
            turns.append(current)
            continue
        if kind is EventKind.COMMAND:
            pending_command = ev
            continue
        if kind is EventKind.ASSISTANT:
            if pending_command is not None or current is None:
                current = _new_turn(thread, len(turns), ev, pending_command)
                turns.append(current)
                pending_command = None
            current.blocks.extend(ev.blocks)
            current.uuids.extend(ev.uuids)
            current.ended_at = ev.end_timestamp or current.ended_at
            if ev.stop_reason == "end_turn":
                current.complete = True
            continue
        if current is None:
            continue
        if kind is EventKind.TOOL_RESULTS:
            current.uuids.extend(ev.uuids)
        elif kind is EventKind.INTERRUPT:
            current.interrupted = True
            current.uuids.extend(ev.uuids)
        elif kind is EventKind.TURN_END:
            current.complete = True
    turns = [t for t in turns if t.user_text or t.blocks]
    for i, turn in enumerate(turns):
        turn.index = i
        if i + 1 < len(turns):
            turn.next_user_text = turns[i + 1].user_text
        if i and turn.user_kind == str(EventKind.PROMPT) and is_reply(turn.user_text):
            turn.replied_to = _last_words(turns[i - 1], _REPLIED_WORDS)
    if turns:
        turns[-1].provisional = True
    return turns


def is_reply(text: str) -> bool:
    """Whether a prompt is a short reply, whose turn shows what it answers (``replied_to``)."""
    return 0 < len(text.split()) <= REPLY_MAX_WORDS


def _last_words(turn: Turn, count: int) -> str:
    """The last ``count`` words of the last text the assistant wrote in ``turn``; ''."""
    text = next((b.text for b in reversed(turn.blocks) if b.tool is None and b.text), "")
    said = text.split()
    return ("… " if len(said) > count else "") + " ".join(said[-count:])


def _user_line(turn: Turn) -> str:
    """``User: <prompt>``; for a short reply, with the end of what it answers before it."""
    if turn.replied_to:
        return f'User, to "{turn.replied_to}": {turn.user_text}'
    return f"User: {turn.user_text}"


def summaries(transcript: Transcript) -> list[Summary]:
    """Compaction summaries on the main thread, then session titles (deduplicated)."""
    out: list[Summary] = []
    seen: set[str] = set()
    for ev in transcript.main.events:
        if ev.kind is EventKind.COMPACT_SUMMARY and ev.text and ev.text not in seen:
            seen.add(ev.text)
            out.append(Summary("compaction", ev.text, list(ev.uuids), ev.timestamp, ev.line))
    named = [Title(transcript.custom_title, None, 0)] if transcript.custom_title else []
    for title in [*transcript.titles, *named]:
        if title.text not in seen:
            seen.add(title.text)
            uuids = [title.leaf_uuid] if title.leaf_uuid else []
            out.append(Summary(title.kind, title.text, uuids, None, title.line))
    return out


# ---- rendering ------------------------------------------------------------------------------


def _short_path(path: str, cwd: str | None) -> str:
    """A path relative to the session's cwd when it lies inside it."""
    if cwd:
        base = cwd.rstrip("/\\")
        if path.startswith(base) and path[len(base) : len(base) + 1] in ("/", "\\"):
            return path[len(base) + 1 :] or path
    return path


def _tool_target(call: ToolCall, cwd: str | None) -> str:
    args = call.input
    for key in ("file_path", "notebook_path", "path"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return _short_path(value, cwd)
    for key in ("command", "pattern", "url", "query", "description", "prompt", "skill"):
        value = args.get(key)
        if isinstance(value, str) and value:
            return clip_words(value, _ARG_WORDS)
    if call.name == "TodoWrite" and isinstance(args.get("todos"), list):
        items = [t.get("content") for t in args["todos"] if isinstance(t, dict)]
        return clip_words("; ".join(str(i) for i in items if i), _ARG_WORDS)
    for value in args.values():
        if isinstance(value, str) and value:
            return clip_words(value, _ARG_WORDS)
    return ""


# Decisive error lines of a failed command kept in its turn's tool line (sources/outcomes.py).
_ERROR_LINES = 3


def _result_notes(call: ToolCall) -> tuple[str, str]:
    """What a tool call's result says: its failure (the decisive error lines of a command, or
    the start of the message) and, for a command, the state it left (a commit, a push, test
    totals: ``memlode.sources.outcomes``); each '' when there is none."""
    result = call.result or ""
    if call.name != "Bash" or not result:
        return (clip_words(result, _ARG_WORDS) if call.is_error and result else ""), ""
    command = str(call.input.get("command") or "")
    outcomes, errors, failed = read_output(command, result, failed=call.is_error)
    said = "; ".join(outcomes)
    if not (failed or call.is_error):
        return "", said
    errors = [e for e in errors if not e.lower().startswith("exit code")]
    shown = "; ".join(errors[:_ERROR_LINES]) or clip_words(result, _ARG_WORDS)
    return shown, said


def _tool_line(call: ToolCall, cwd: str | None) -> str:
    target = _tool_target(call, cwd)
    line = f"[{call.name}] {target}".rstrip()
    failure, said = _result_notes(call)
    if failure:
        line += f" (failed: {failure})"
    if said:
        line += f" (outcome: {said})"
    return line


def _turn_blocks(turn: Turn) -> list[tuple[str, list[str]]]:
    """The turn as (markdown text, uuids) pieces in order, consecutive tool calls grouped."""
    pieces: list[tuple[str, list[str]]] = []
    if turn.user_text:
        pieces.append((_user_line(turn), [turn.user_uuid] if turn.user_uuid else []))
    tool_lines: list[str] = []
    tool_uuids: list[str] = []
    first_text = True

    def flush() -> None:
        if tool_lines:
            pieces.append(("\n".join(tool_lines), list(tool_uuids)))
            tool_lines.clear()
            tool_uuids.clear()

    for block in turn.blocks:
        if block.tool is not None:
            tool_lines.append(_tool_line(block.tool, turn.cwd))
            tool_uuids.extend(u for u in (block.uuid, block.tool.result_uuid) if u)
        elif block.text:
            flush()
            prefix = "Assistant: " if first_text else ""
            first_text = False
            pieces.append((prefix + block.text, [block.uuid]))
    flush()
    if turn.next_user_text:
        nxt = clip_words(turn.next_user_text, _NEXT_USER_WORDS)
        pieces.append((f"Next user message: {nxt}", []))
    return pieces


def _date(ts: str | None) -> str:
    if not ts:
        return ""
    return ts[:16].replace("T", " ")


def _changed(old: str, new: str) -> tuple[str, str]:
    """An edit's old and new text as a turn shows them, ``_ARG_WORDS`` words each, from a few
    words before where they first differ: an edit that adds a line to a list ("base-devel
    cargo git" to "base-devel cargo git dbus") shares its start with what it replaces, and
    both cut at its start showed the same words twice and not the change."""
    was, now = old.split(), new.split()
    same = 0
    while same < min(len(was), len(now)) and was[same] == now[same]:
        same += 1
    start = max(same - _CHANGE_CONTEXT_WORDS, 0) if same >= _ARG_WORDS else 0
    lead = "… " if start else ""
    return (
        lead + clip_words(" ".join(was[start:]), _ARG_WORDS),
        lead + clip_words(" ".join(now[start:]), _ARG_WORDS),
    )


def _action(call: ToolCall, cwd: str | None) -> str:
    args = call.input
    target = _tool_target(call, cwd)
    name = call.name
    if name in ("Edit", "MultiEdit") and isinstance(args.get("old_string"), str):
        old, new = _changed(str(args.get("old_string")), str(args.get("new_string") or ""))
        text = f"used {name} on {target} to change `{old}` to `{new}`"
    elif name == "Bash":
        desc = args.get("description")
        text = f"ran `{target}`" + (f" to {str(desc)[:1].lower()}{str(desc)[1:]}" if desc else "")
    else:
        text = f"used {name}" + (f" on {target}" if target else "")
    failure, said = _result_notes(call)
    if call.is_error or failure:
        text += f" (it failed: {failure})" if failure else " (it failed)"
    if said:
        text += f" ({said})"
    return text


def _action_pieces(turn: Turn) -> list[tuple[str, list[str]]]:
    tools = turn.tools
    if not tools:
        return []
    if len(tools) < ACTION_MIN_TOOLS and not any(t.name in _CHANGING_TOOLS for t in tools):
        return []
    when = _date(turn.started_at)
    where = f" on branch {turn.git_branch}" if turn.git_branch else ""
    head = f"On {when}{where}" if when else f"In this session{where}"
    asked = f', asked "{clip_words(turn.user_text, HEADER_WORDS)}",' if turn.user_text else ""
    pieces: list[tuple[str, list[str]]] = [(f"{head}{asked} the assistant:", [])]
    for block in turn.blocks:
        if block.tool is not None:
            uuids = [u for u in (block.uuid, block.tool.result_uuid) if u]
            pieces.append(("- " + _action(block.tool, turn.cwd), uuids))
    return pieces


def turn_chunks(turn: Turn, *, budget: int = CHUNK_WORDS) -> list[Chunk]:
    """The turn's chunks (sub-chunks when long), then its action chunks if it used tools."""
    out: list[Chunk] = []
    header = _user_line(turn) if turn.user_text else ""
    parts = chunk_text(_turn_blocks(turn), budget=budget, header=header)
    for i, (text, uuids) in enumerate(parts):
        out.append(Chunk("turn", text, uuids, i, len(parts)))
    actions = _action_pieces(turn)
    if actions:
        # action lists are packed line by line; one line per tool call, never split
        packed = _pack_lines(actions, budget)
        for i, (text, uuids) in enumerate(packed):
            out.append(Chunk("action", text, uuids, i, len(packed)))
    return out


def _pack_lines(pieces: list[tuple[str, list[str]]], budget: int) -> list[tuple[str, list[str]]]:
    head, _ = pieces[0]
    out: list[tuple[str, list[str]]] = []
    lines: list[str] = [head]
    uuids: list[str] = []
    size = len(head.split())
    for text, ids in pieces[1:]:
        n = len(text.split())
        if size + n > budget and len(lines) > 1:
            out.append(("\n".join(lines), uuids))
            lines, uuids, size = [head + " (continued)"], [], len(head.split()) + 1
        lines.append(text)
        uuids = merge_ids([uuids, ids])
        size += n
    if len(lines) > 1:
        out.append(("\n".join(lines), uuids))
    return out


def summary_chunks(summary: Summary, *, budget: int = CHUNK_WORDS) -> list[Chunk]:
    """A session title as one chunk; a compaction summary cut along its sections
    (``memlode.sources.compaction``)."""
    if summary.kind == "compaction":
        pieces = compaction_parts(summary.text)
        return [
            Chunk("summary", p.text, summary.uuids, i, len(pieces), p.section, p.history)
            for i, p in enumerate(pieces)
        ]
    if summary.kind == "link":  # a pull request the session is linked to: says itself
        return [Chunk("summary", summary.text, summary.uuids, 0, 1)]
    label = "Session title"
    parts = chunk_text([(f"{label}: {summary.text}", summary.uuids)], budget=budget, header=label)
    return [Chunk("summary", text, uuids, i, len(parts)) for i, (text, uuids) in enumerate(parts)]


def namespace_hint(cwd: str) -> str:
    """The last folder name of a transcript's cwd, Windows paths included."""
    pure = PureWindowsPath(cwd) if "\\" in cwd or re.match(r"^[A-Za-z]:", cwd) else None
    name = pure.name if pure is not None else PurePosixPath(cwd).name
    return name


def chunk_metadata(turn: Turn, chunk: Chunk, transcript_path: str) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "kind": chunk.kind,
        "session_id": turn.session_id,
        "thread": turn.thread,
        "turn": turn.index,
        "part": chunk.part,
        "parts": chunk.parts,
        "uuids": chunk.uuids,
        "started_at": turn.started_at,
        "ended_at": turn.ended_at,
        "git_branch": turn.git_branch,
        "cwd": turn.cwd,
        "transcript": transcript_path,
    }
    if turn.sidechain:
        meta["sidechain"] = True
        meta["agent_id"] = turn.thread
    if turn.interrupted:
        meta["interrupted"] = True
    return {k: v for k, v in meta.items() if v is not None}
