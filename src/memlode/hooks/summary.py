"""The structured session summary: how a session ended, then what it decided, asked, changed,
ran, searched and read.

Built from the session's own memories (those stored with its ``session_id`` plus observations it
repeated from earlier sessions, which dedup filed under the first one; the hook notes those in
the ``session_seen`` table of ``memlode.storage.capture_session``). Stored as one Insight per
session that later checkpoints update in place, and as the session row's ``summary``.
"""

from __future__ import annotations

import os

from memlode.fastjson import loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["MAX_SUMMARY_CHARS", "SUMMARY_TAG", "build_summary"]

SUMMARY_TAG = "session-summary"
MAX_SUMMARY_CHARS = 2000
MAX_OUTCOME_CHARS = 600
_MAX_ITEMS = 8
_ITEM_CHARS = 160


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
    activity = _Activity(cwd)
    for _id, content, memory_type, tags_json, meta_json in rows:
        tags = _loads(tags_json)
        meta = _loads(meta_json)
        activity.add(
            content,
            memory_type,
            tags if isinstance(tags, list) else [],
            meta if isinstance(meta, dict) else {},
        )
    body = [s for s in activity.sections() if s]
    state = activity.state
    outcome = _one_line(last_message, MAX_OUTCOME_CHARS) if last_message.strip() else ""
    if not body and not outcome and not state.line():
        return ""
    when = started_at[:16].replace("T", " ") if started_at else ""
    head = f"Session summary ({namespace or 'no project'}{', ' + when if when else ''} UTC)"
    # The outcome (the session's last word: committed, pushed, what is left) leads and is never
    # cut; the activity sections fill what is left of the budget, in order of what they tell.
    lines = [head, f"Outcome: {outcome}"] if outcome else [head]
    milestones = state.line()
    if milestones:
        lines.append(f"State: {milestones}")
    used = sum(len(line) + 1 for line in lines)
    for section in body:
        room = MAX_SUMMARY_CHARS - used
        if room < 40:
            break
        line = section if len(section) < room else section[: room - 2] + "…"
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


class _Activity:
    """What a session's rows say, sorted into the summary's sections."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.prompts: list[str] = []
        self.edited: dict[str, _EditTally] = {}
        self.read: list[str] = []
        self.searches: list[str] = []
        self.commands: list[str] = []
        self.web: list[str] = []
        self.notes: list[str] = []
        self.decided: list[str] = []
        self.failed: list[str] = []
        self.state = _State()

    def add(self, content: str, memory_type: str, tags: list[Any], meta: dict[str, Any]) -> None:
        if SUMMARY_TAG in tags:
            return
        tool = meta.get("tool")
        first = content.split("\n", 1)[0]
        command = str(meta.get("command") or "")
        if "prompt" in tags or "instruction" in tags:
            self.prompts.append(_one_line(content, 120))
        elif tool in ("Edit", "MultiEdit", "Write", "NotebookEdit"):
            path = _display(str(meta.get("file") or ""), self.cwd)
            diff = meta.get("diff")
            self.edited.setdefault(path, _EditTally()).add(diff if isinstance(diff, dict) else {})
        elif tool == "Read":
            self.read.append(_display(str(meta.get("file") or ""), self.cwd))
        elif tool in ("Grep", "Glob"):
            self.searches.append(_one_line(first.split(" -> ", 1)[0], 100))
        elif tool == "Bash":
            self.commands.append(_one_line(command or first.removeprefix("$ "), 100))
            self.state.add(content, command=command)
        elif tool in ("AskUserQuestion", "ExitPlanMode"):
            self.decided.append(_one_line(content.split("\n", 1)[-1], 200))
        elif "failure" in tags:
            self.failed.append(_one_line(first.removeprefix("Failed: "), 100))
            self.state.add(content, command=command, failed=True)
        elif tool in ("WebFetch", "WebSearch"):
            self.web.append(_one_line(str(meta.get("url") or meta.get("query") or first), 120))
        elif tool is None and memory_type in ("decision", "insight", "pattern", "preference"):
            self.notes.append(f"[{memory_type}] " + _one_line(content, 140))

    def sections(self) -> list[str]:
        """The labelled lines, in order of what they tell ('' for an empty one)."""
        return [
            _section("Decided", self.decided),
            _section("Prompts", self.prompts),
            _section("Edited", [tally.note(path) for path, tally in self.edited.items()]),
            _section("Failed", self.failed),
            _section("Commands", self.commands),
            _section("Searches", self.searches),
            _section("Read", [p for p in self.read if p not in self.edited]),
            _section("Web", self.web),
            _section("Noted", self.notes),
        ]


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


class _State:
    """Where a session left its work, read from the commands it ran: commits, pushes, closed
    and filed issues (git, gh, bd), the last test run's tally. Plain string scanning: the
    Stop hook must not import ``re``."""

    __slots__ = ("closed", "commits", "filed", "push", "tests")

    def __init__(self) -> None:
        self.commits: list[tuple[str, str]] = []  # (short hash or '', first line of message)
        self.push = ""
        self.closed: dict[str, None] = {}
        self.filed: list[str] = []
        self.tests = ""

    def add(self, content: str, *, command: str = "", failed: bool = False) -> None:
        """One command's observation; ``command`` is the command itself when the observation
        recorded it (a long one is stored as its first line, the output, then the rest)."""
        if command:
            lines = command.split("\n")
        else:
            head = content.split("\n[stdout]", 1)[0].split("\n[stderr]", 1)[0]
            lines = head.removeprefix("Failed: ").removeprefix("$ ").split("\n")
            if len(lines) > 1 and lines[-1].startswith("# "):
                lines.pop()  # the command's description
        if " commit" in lines[0] and _message_at(lines[0]) >= 0 and not failed:
            self.commits.append((_commit_hash(content), _commit_message("\n".join(lines))))
        for part in lines[0].replace("&&", ";").replace("||", ";").split(";"):
            self._command(part.strip(), failed)
        if not failed:
            self._tests(content)

    def _command(self, part: str, failed: bool) -> None:
        words = part.split()
        if len(words) < 2:
            return
        if words[0] == "git" and words[1] == "push":
            branch = next((w for w in words[2:] if not w.startswith("-") and w != "origin"), "")
            if failed:
                self.push = self.push or "push failed"
            else:
                self.push = "pushed" + (f" {branch}" if branch and branch != "2>&1" else "")
        elif failed:
            return
        elif words[:2] in (["bd", "close"], ["gh", "issue"]) and (
            words[1] == "close" or words[2:3] == ["close"]
        ):
            start = 2 if words[0] == "bd" else 3
            for word in words[start:]:
                if word.startswith("-") or word in ("2>&1", "|"):
                    break
                self.closed.setdefault(word.strip("'\""), None)
        elif words[:2] in (["bd", "create"], ["gh", "issue"]) and "--title" in part:
            title = part.split("--title", 1)[1].lstrip(" =")
            quote = title[:1]
            if quote in "'\"":
                title = title[1:].split(quote, 1)[0]
            self.filed.append(_one_line(title, 120))

    def _tests(self, content: str) -> None:
        for line in content.splitlines():
            low = line.lower()
            if (" tests, " in low and "failure" in low) or (
                " passed" in low and ("failed" in low or " in " in low or "tests:" in low)
            ):
                self.tests = _one_line(line.strip(" =|"), 80)

    def line(self) -> str:
        parts = []
        if self.commits:
            count = len(self.commits)
            # the last commit, and the last one before it with another message: a session's
            # final commit is often a small fix after the one that holds its work
            last = _commit_text(*self.commits[-1])
            earlier = [c for c in self.commits[:-1] if c[1] != self.commits[-1][1]]
            if last and earlier:
                last += "; before it: " + _commit_text(*earlier[-1])
            parts.append(
                f"committed {count} time{'s' if count > 1 else ''}"
                + (f" (last: {last})" if last else "")
            )
        if self.push:
            parts.append(self.push)
        elif self.commits:
            parts.append("not pushed (no git push in this session)")
        if self.closed:
            parts.append("closed " + ", ".join(list(self.closed)[:10]))
        if self.filed:
            parts.append("filed " + "; ".join(f'"{t}"' for t in self.filed[:3]))
        if self.tests:
            parts.append(f"last test run: {self.tests}")
        return "; ".join(parts)


def _commit_text(commit_hash: str, message: str) -> str:
    """``<hash> "<message>"``, each part only where known."""
    quoted = f'"{message}"' if message else ""
    return f"{commit_hash} {quoted}".strip()


_HEX = frozenset("0123456789abcdef")


def _commit_hash(output: str) -> str:
    """The short hash git printed for a commit (``[main 1a2b3c4] message``, ``[main
    (root-commit) 1a2b3c4] message``); '' when the output shows none."""
    for line in output.splitlines():
        if not line.startswith("[") or "] " not in line:
            continue
        inside = line[1 : line.index("] ")].split()
        if len(inside) >= 2 and 7 <= len(inside[-1]) <= 40 and set(inside[-1]) <= _HEX:
            return inside[-1]
    return ""


# How a commit command gives its message: ``-m``, ``-am`` (``-a -m``), ``--message``.
_MESSAGE_FLAGS = (" -m", " -am", " --message")


def _message_at(command: str) -> int:
    """Where the first message flag of ``command`` ends; -1 when it has none."""
    found = [
        (at, flag)
        for flag in _MESSAGE_FLAGS
        for after in (" ", "=", '"', "'")  # -m "x", --message=x, -m"x"
        if (at := command.find(flag + after)) >= 0
    ]
    if not found:
        return -1
    at, flag = min(found)
    return at + len(flag)


def _commit_message(command: str) -> str:
    """The first line of a ``git commit -m`` message (also the heredoc form Claude writes)."""
    rest = command[_message_at(command) :].lstrip(" =")
    for line in rest.split("\n"):
        text = line.strip()
        if "<<" in text:  # "$(cat <<'EOF'": the message starts on the next line
            continue
        text = text.strip("'\"")
        if text and text not in ("EOF", ")") and not text.startswith("$("):
            return _one_line(text, 100)
    return ""
