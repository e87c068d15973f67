"""Driving the installed Claude Code hooks the way Claude Code does, for the replay evaluation.

``InstalledHooks`` reads the settings file that ``memlode init`` wrote and runs its command
strings through a shell with the event's JSON payload on stdin, honouring each entry's matcher
and timeout, and timing every run. ``replay_transcript`` walks a real Claude Code transcript
line by line: each line is appended to a growing copy of the file (the transcript the hooks
are handed) and each hook fires where Claude Code fires it:

- SessionStart (``startup``) before the first line, and (``compact``) after a compaction;
- UserPromptSubmit for each real prompt, before its line is written;
- PostToolUse after a successful tool result's line (``tool_response`` is the line's
  ``toolUseResult``), PostToolUseFailure after an ``is_error`` one (``error`` is its text);
- Stop where a turn ends (a ``stop_hook_summary`` or ``turn_duration`` line, or the next real
  prompt after assistant output), PreCompact before a ``compact_boundary`` and PostCompact
  after the summary line that follows it;
- SubagentStop before the result of a Task/Agent call (``last_assistant_message`` is the
  subagent's report, ``agent_type`` its ``subagent_type``);
- SessionEnd after the last line.

Every recorded instant of a line (``"timestamp"``, ``"backupTime"``: any field whose value is an
ISO-8601 UTC time) is moved by one offset, so that the session ends as its replay starts. In real
use Claude Code writes a line as its hooks fire, so the memories a transcript ingest dates by its
lines and those the hooks date by the clock are of the same time; a replay that kept the
recorded dates (months old) beside the hooks' (now) would hand the recency signal a difference
no user's store has.

Lines of subagents (``isSidechain``) are written but fire nothing. The rules for a real prompt
are INTEGRATION.md's (section 2). Written independently of memlode's own transcript parser so
that the evaluation does not share its mistakes.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

__all__ = ["HookCall", "InstalledHooks", "ReplayStats", "replay_transcript", "tool_text"]

# Tools that run a subagent: SubagentStop fires as the subagent finishes.
SUBAGENT_TOOLS = ("Task", "Agent")
_NOT_PROMPTS = (
    "<command-name>",
    "<local-command-stdout>",
    "<task-notification>",
    "[Request interrupted",
)


@dataclass
class HookCall:
    event: str
    ms: float
    stdout: str
    returncode: int

    def injected(self) -> str:
        """The text Claude Code would add to the model's context from this run (or "")."""
        out = self.stdout.strip()
        if not out or self.returncode != 0:
            return ""
        if out.startswith("{"):
            try:
                data = json.loads(out)
            except ValueError:
                return out
            specific = data.get("hookSpecificOutput") if isinstance(data, dict) else None
            if isinstance(specific, dict):
                return str(specific.get("additionalContext") or "")
            return ""
        return out


@dataclass
class _Handler:
    matcher: str
    command: str
    timeout: float


class InstalledHooks:
    """The hook handlers a Claude Code settings file registers, run as Claude Code runs them."""

    def __init__(self, settings_file: Path, env: dict[str, str], cwd: Path) -> None:
        data = json.loads(settings_file.read_text(encoding="utf-8"))
        self.env = env
        self.cwd = cwd
        self.handlers: dict[str, list[_Handler]] = {}
        for event, groups in (data.get("hooks") or {}).items():
            for group in groups:
                for handler in group.get("hooks", []):
                    if handler.get("type") == "command":
                        self.handlers.setdefault(event, []).append(
                            _Handler(
                                str(group.get("matcher") or ""),
                                str(handler["command"]),
                                float(handler.get("timeout") or 600),
                            )
                        )
        self.calls: list[HookCall] = []

    def registered(self, event: str) -> bool:
        return bool(self.handlers.get(event))

    def fire(self, event: str, payload: dict[str, Any], match: str = "") -> list[HookCall]:
        """Run every handler of ``event`` whose matcher accepts ``match`` (a tool name or a
        SessionStart/PreCompact source); returns their calls."""
        calls = []
        body = json.dumps({**payload, "hook_event_name": event}).encode()
        for handler in self.handlers.get(event, []):
            if handler.matcher not in ("", "*") and not re.fullmatch(handler.matcher, match):
                continue
            started = time.perf_counter()
            try:
                proc = subprocess.run(
                    handler.command,
                    shell=True,
                    input=body,
                    capture_output=True,
                    env=self.env,
                    cwd=self.cwd,
                    timeout=handler.timeout,
                )
                out, code = proc.stdout.decode("utf-8", "replace"), proc.returncode
            except subprocess.TimeoutExpired:
                out, code = "", -1
            call = HookCall(event, (time.perf_counter() - started) * 1000, out, code)
            self.calls.append(call)
            calls.append(call)
        return calls


@dataclass
class ReplayStats:
    lines: int = 0
    prompts: int = 0
    tool_results: int = 0
    failures: int = 0
    stops: int = 0
    compactions: int = 0
    events: dict[str, int] = field(default_factory=dict)
    shifted_days: float = 0.0  # how far the session's recorded times were moved forward


def tool_text(content: Any) -> str:
    """A tool_result's content as text (a string or a list of text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", "")) for b in content if isinstance(b, dict) and "text" in b
        )
    return ""


def _prompt_text(record: dict[str, Any]) -> str | None:
    """The prompt of a real user line, else None (INTEGRATION.md section 2, rule 4)."""
    if record.get("isMeta") or record.get("isCompactSummary"):
        return None
    content = (record.get("message") or {}).get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return None
        text = "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    else:
        return None
    stripped = text.lstrip()
    if not stripped or stripped.startswith(_NOT_PROMPTS):
        return None
    return text


def _rewrites(old_cwd: str, project: str) -> list[tuple[str, str]]:
    """The recorded working directory as it stands in a JSON line (backslashes escaped: a
    Windows session's ``D:\\repo``), with a separator after it first (``D:\\repo\\src``
    becomes ``<project>/src``), then alone; replaced by the replay's project folder."""
    old = json.dumps(old_cwd)[1:-1]
    new = json.dumps(project)[1:-1]
    pairs = [(old + sep, new + "/") for sep in ("\\\\", "/")]
    return [*pairs, (old, new)]


# A field's value that is an instant: "timestamp":"2026-01-15T17:00:05.082Z" (a quote inside a
# string is escaped, so text that quotes a transcript is not matched).
_INSTANT = re.compile(r'("[A-Za-z_]+":\s*")(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z"')


def _instant(match: re.Match[str]) -> datetime:
    return datetime.fromisoformat(match[2] + (match[3] or "")).replace(tzinfo=UTC)


def _shift_to_now(source: Path) -> timedelta:
    """The offset that moves the source's last recorded instant to now."""
    last: datetime | None = None
    with source.open(encoding="utf-8") as fh:
        for raw in fh:
            for match in _INSTANT.finditer(raw):
                when = _instant(match)
                last = when if last is None or when > last else last
    return datetime.now(UTC) - last if last is not None else timedelta(0)


def _shifted(line: str, shift: timedelta) -> str:
    def moved(match: re.Match[str]) -> str:
        when = _instant(match) + shift
        fraction = f".{when.microsecond // 1000:03d}" if match[3] else ""
        return f'{match[1]}{when.strftime("%Y-%m-%dT%H:%M:%S")}{fraction}Z"'

    return _INSTANT.sub(moved, line) if shift else line


def _records(
    source: Path, rewrite: tuple[str, str] | None, shift: timedelta = timedelta(0)
) -> Iterator[tuple[str, dict[str, Any] | None]]:
    pairs = _rewrites(*rewrite) if rewrite else []
    with source.open(encoding="utf-8") as fh:
        for raw in fh:
            line = _shifted(raw if raw.endswith("\n") else raw + "\n", shift)
            for old, new in pairs:
                line = line.replace(old, new)
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            yield line, record if isinstance(record, dict) else None


def original_cwd(source: Path) -> str | None:
    """The working directory the session recorded (the first line that has one)."""
    for _line, record in _records(source, None):
        if record and isinstance(record.get("cwd"), str):
            return str(record["cwd"])
    return None


def replay_transcript(
    source: Path, target: Path, hooks: InstalledHooks, project: Path, session_id: str | None = None
) -> ReplayStats:
    """Replay ``source`` into the growing file ``target`` through ``hooks`` (see the module)."""
    old_cwd = original_cwd(source)
    rewrite = (old_cwd, str(project)) if old_cwd else None
    target.parent.mkdir(parents=True, exist_ok=True)
    shift = _shift_to_now(source)
    with target.open("a", encoding="utf-8") as out:
        replay = _Replay(hooks, target, project, session_id, out)
        replay.stats.shifted_days = round(shift / timedelta(days=1), 1)
        for line, record in _records(source, rewrite, shift):
            replay.line(line, record)
        replay.finish()
    return replay.stats


class _Replay:
    """One replay in progress: the lines written so far and the hook events they fired."""

    def __init__(
        self,
        hooks: InstalledHooks,
        target: Path,
        project: Path,
        session_id: str | None,
        out: TextIO,
    ) -> None:
        self.stats = ReplayStats()
        self.hooks = hooks
        self.target = target
        self.project = project
        self.session = session_id
        self.out = out
        self.tools: dict[str, tuple[str, dict[str, Any]]] = {}
        self.last_text = ""
        self.open_turn = False
        self.trigger = "auto"
        self.started = False

    def fire(self, event: str, extra: dict[str, Any], match: str = "") -> None:
        self.stats.events[event] = self.stats.events.get(event, 0) + 1
        payload = {
            "session_id": self.session or "replay-session",
            "transcript_path": str(self.target),
            "cwd": str(self.project),
            "permission_mode": "default",
        }
        self.hooks.fire(event, {**payload, **extra}, match)

    def stop(self) -> None:
        if self.open_turn:
            self.open_turn = False
            self.stats.stops += 1
            self.fire("Stop", {"stop_hook_active": False, "last_assistant_message": self.last_text})

    def write(self, line: str) -> None:
        self.out.write(line)
        self.out.flush()
        self.stats.lines += 1

    def line(self, line: str, record: dict[str, Any] | None) -> None:
        if record is None or record.get("isSidechain"):
            self.write(line)
            return
        if self.session is None and isinstance(record.get("sessionId"), str):
            self.session = record["sessionId"]
        # SessionStart carries the session's id, as in Claude Code: real transcripts open with
        # records that have none (file-history snapshots), so it waits for the first that does.
        if not self.started and (self.session is not None or record.get("type") == "user"):
            self.started = True
            self.fire("SessionStart", {"source": "startup"}, "startup")
        kind = record.get("type")
        if kind == "user":
            self._user(line, record)
        elif kind == "assistant":
            self._assistant(line, record)
        elif kind == "system" and record.get("subtype") == "compact_boundary":
            self.trigger = str((record.get("compactMetadata") or {}).get("trigger") or "auto")
            self.fire(
                "PreCompact", {"trigger": self.trigger, "custom_instructions": ""}, self.trigger
            )
            self.write(line)
            self.stats.compactions += 1
            self.fire("SessionStart", {"source": "compact"}, "compact")
        elif kind == "system" and record.get("subtype") in ("stop_hook_summary", "turn_duration"):
            self.write(line)
            self.stop()
        else:
            self.write(line)

    def _user(self, line: str, record: dict[str, Any]) -> None:
        prompt = _prompt_text(record)
        if prompt is not None:
            self.stop()
            self.stats.prompts += 1
            self.fire("UserPromptSubmit", {"prompt": prompt})
            self.write(line)
            return
        self.write(line)
        if record.get("isCompactSummary"):  # the compaction is done
            summary = tool_text((record.get("message") or {}).get("content"))
            extra = {"trigger": self.trigger, "compact_summary": summary}
            self.fire("PostCompact", extra, self.trigger)
            return
        _tool_results(record, self.tools, self.stats, self.fire)

    def _assistant(self, line: str, record: dict[str, Any]) -> None:
        self.write(line)
        self.open_turn = True
        for block in (record.get("message") or {}).get("content") or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                self.tools[str(block.get("id"))] = (
                    str(block.get("name")),
                    block.get("input") or {},
                )
            elif block.get("type") == "text" and str(block.get("text", "")).strip():
                self.last_text = str(block["text"])

    def finish(self) -> None:
        self.stop()
        if self.started:
            self.fire("SessionEnd", {"reason": "prompt_input_exit"})


def _tool_results(
    record: dict[str, Any],
    tools: dict[str, tuple[str, dict[str, Any]]],
    stats: ReplayStats,
    fire: Any,
) -> None:
    content = (record.get("message") or {}).get("content")
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        name, tool_input = tools.get(str(block.get("tool_use_id")), ("", {}))
        if not name:
            continue
        common = {
            "tool_name": name,
            "tool_input": tool_input,
            "tool_use_id": block.get("tool_use_id"),
        }
        if block.get("is_error"):
            stats.failures += 1
            error = tool_text(block.get("content"))
            fire("PostToolUseFailure", {**common, "error": error, "is_interrupt": False}, name)
        else:
            stats.tool_results += 1
            if name in SUBAGENT_TOOLS:  # the subagent stopped, then its report came back
                report = tool_text(block.get("content"))
                kind = str(tool_input.get("subagent_type") or "general-purpose")
                fire(
                    "SubagentStop",
                    {
                        "stop_hook_active": False,
                        "agent_type": kind,
                        "last_assistant_message": report,
                    },
                )
            response = record.get("toolUseResult")
            if not isinstance(response, (dict, list, str)):
                response = tool_text(block.get("content"))
            fire("PostToolUse", {**common, "tool_response": response}, name)
