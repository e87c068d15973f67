"""The structured session summary: how a session ended, then what it decided, asked, changed,
ran, searched and read.

Built from the session's own memories (those stored with its ``session_id`` plus observations it
repeated from earlier sessions, which dedup filed under the first one; the hook keeps their ids
in the session's metadata under ``seen``). Stored as one Insight per session that later
checkpoints update in place, and as the session row's ``summary``.
"""

from __future__ import annotations

import os

from memlode.hooks._lean import loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence
    from typing import Any

__all__ = ["MAX_SUMMARY_CHARS", "SUMMARY_TAG", "build_summary", "session_rows"]

SUMMARY_TAG = "session-summary"
MAX_SUMMARY_CHARS = 2000
MAX_OUTCOME_CHARS = 600
_MAX_ITEMS = 8
_ITEM_CHARS = 160


def session_rows(
    conn: sqlite3.Connection, session_id: str, seen: Sequence[str]
) -> list[tuple[str, str, str, str, str]]:
    """(id, content, memory_type, tags, metadata) of the session's memories, oldest first."""
    ids = [i for i in seen if isinstance(i, str)][:500]
    extra = ""
    if ids:
        extra = f" OR id IN ({','.join('?' * len(ids))})"
    rows = conn.execute(
        "SELECT id, content, memory_type, tags, metadata FROM memories"
        f" WHERE session_id = ?{extra} ORDER BY created_at, id",
        (session_id, *ids),
    ).fetchall()
    return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]


def _loads(text: str) -> Any:
    try:
        return loads(text)
    except ValueError:
        return None


def _one_line(text: str, limit: int = _ITEM_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _section(title: str, items: list[str]) -> str:
    unique = list(dict.fromkeys(i for i in items if i))
    if not unique:
        return ""
    shown = unique[-_MAX_ITEMS:] if title == "Prompts" else unique[:_MAX_ITEMS]
    more = len(unique) - len(shown)
    text = f"{title} ({len(unique)}): " + "; ".join(shown)
    return text + (f"; +{more} more" if more > 0 else "")


def build_summary(
    rows: Sequence[tuple[str, str, str, str, str]],
    *,
    namespace: str,
    started_at: str,
    cwd: str,
    last_message: str = "",
) -> str:
    """A few labelled lines; '' when the session left nothing to summarise."""
    prompts: list[str] = []
    edited: dict[str, _EditTally] = {}
    read: list[str] = []
    searches: list[str] = []
    commands: list[str] = []
    web: list[str] = []
    notes: list[str] = []
    decided: list[str] = []
    failed: list[str] = []
    for _id, content, memory_type, tags_json, meta_json in rows:
        tags = _loads(tags_json)
        tags = tags if isinstance(tags, list) else []
        if SUMMARY_TAG in tags:
            continue
        meta = _loads(meta_json)
        meta = meta if isinstance(meta, dict) else {}
        tool = meta.get("tool")
        first = content.split("\n", 1)[0]
        if "prompt" in tags:
            prompts.append(_one_line(content, 120))
        elif tool in ("Edit", "MultiEdit", "Write", "NotebookEdit"):
            path = _display(str(meta.get("file") or ""), cwd)
            diff = meta.get("diff")
            edited.setdefault(path, _EditTally()).add(diff if isinstance(diff, dict) else {})
        elif tool == "Read":
            read.append(_display(str(meta.get("file") or ""), cwd))
        elif tool in ("Grep", "Glob"):
            searches.append(_one_line(first.split(" -> ", 1)[0], 100))
        elif tool == "Bash":
            commands.append(_one_line(str(meta.get("command") or first.removeprefix("$ ")), 100))
        elif tool in ("AskUserQuestion", "ExitPlanMode"):
            decided.append(_one_line(content.split("\n", 1)[-1], 200))
        elif "failure" in tags:
            failed.append(_one_line(first.removeprefix("Failed: "), 100))
        elif tool in ("WebFetch", "WebSearch"):
            web.append(_one_line(str(meta.get("url") or meta.get("query") or first), 120))
        elif tool is None and memory_type in ("decision", "insight", "pattern", "preference"):
            notes.append(f"[{memory_type}] " + _one_line(content, 140))
    sections = [
        _section("Decided", decided),
        _section("Prompts", prompts),
        _section("Edited", [tally.note(path) for path, tally in edited.items()]),
        _section("Failed", failed),
        _section("Commands", commands),
        _section("Searches", searches),
        _section("Read", [p for p in read if p not in edited]),
        _section("Web", web),
        _section("Noted", notes),
    ]
    body = [s for s in sections if s]
    outcome = _one_line(last_message, MAX_OUTCOME_CHARS) if last_message.strip() else ""
    if not body and not outcome:
        return ""
    when = started_at[:16].replace("T", " ") if started_at else ""
    head = f"Session summary ({namespace or 'no project'}{', ' + when if when else ''} UTC)"
    # The outcome (the session's last word: committed, pushed, what is left) leads and is never
    # cut; the activity sections fill what is left of the budget, in order of what they tell.
    lines = [head, f"Outcome: {outcome}"] if outcome else [head]
    used = sum(len(line) + 1 for line in lines)
    for section in body:
        room = MAX_SUMMARY_CHARS - used
        if room < 40:
            break
        line = section if len(section) < room else section[: room - 2] + "…"
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def _display(path: str, cwd: str) -> str:
    if cwd and path.startswith(cwd.rstrip(os.sep) + os.sep):
        return path[len(cwd.rstrip(os.sep)) + 1 :]
    return path


class _EditTally:
    __slots__ = ("added", "removed", "symbols")

    def __init__(self) -> None:
        self.added = 0
        self.removed = 0
        self.symbols: dict[str, None] = {}

    def add(self, diff: dict[str, Any]) -> None:
        for name in ("added", "removed"):
            value = diff.get(name)
            if isinstance(value, int) and not isinstance(value, bool):
                setattr(self, name, getattr(self, name) + value)
        for symbol in diff.get("symbols") or []:
            if isinstance(symbol, str):
                self.symbols.setdefault(symbol, None)

    def note(self, path: str) -> str:
        text = f"{path} (+{self.added} -{self.removed}"
        if self.symbols:
            text += "; " + ", ".join(list(self.symbols)[:6])
        return text + ")"
