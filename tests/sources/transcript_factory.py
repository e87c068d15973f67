"""Write Claude Code transcripts line by line, shaped like the real ones (newer builds).

Not a test module: test files load it with ``load_factory()`` (pytest's importlib mode puts no
test folder on sys.path).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REAL_TRANSCRIPTS = Path(__file__).resolve().parents[3] / "shared" / "data" / "transcripts"


def real_fixtures() -> list[Path]:
    """The small real transcripts the parser tests count (``<group>/<file>.jsonl``); a group
    with a SOURCES.md of its own holds long sessions kept for the replay evaluations."""
    return sorted(
        p for p in REAL_TRANSCRIPTS.glob("*/*.jsonl") if not (p.parent / "SOURCES.md").exists()
    )


class TranscriptWriter:
    """Appends records to a .jsonl file, chaining parentUuid like Claude Code does."""

    def __init__(
        self,
        path: Path,
        *,
        session_id: str = "sess-0001-aaaa",
        cwd: str = "/home/dev/projects/demo-app",
        branch: str = "main",
        sidechain: bool = False,
        agent_id: str | None = None,
    ) -> None:
        self.path = path
        self.session_id = session_id
        self.cwd = cwd
        self.branch = branch
        self.sidechain = sidechain
        self.agent_id = agent_id
        self.last: str | None = None
        self.clock = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
        self._n = 0

    def _ts(self) -> str:
        self.clock += timedelta(seconds=7)
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.000Z")

    def write_raw(self, text: str) -> None:
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(text)

    def record(self, rec: dict[str, Any], *, parent: str | bool | None = True) -> str:
        self._n += 1
        line_id = str(uuid.uuid4())
        base: dict[str, Any] = {
            "parentUuid": self.last if parent is True else (parent or None),
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.40",
            "gitBranch": self.branch,
            "uuid": line_id,
            "timestamp": self._ts(),
        }
        if self.agent_id:
            base["agentId"] = self.agent_id
        base.update(rec)
        self.write_raw(json.dumps(base) + "\n")
        self.last = line_id
        return line_id

    def prompt(self, text: str, *, parent: str | bool | None = True) -> str:
        return self.record(
            {"type": "user", "message": {"role": "user", "content": text}}, parent=parent
        )

    def _assistant(self, block: dict[str, Any], msg_id: str, stop: str | None) -> str:
        return self.record(
            {
                "type": "assistant",
                "requestId": "req_" + msg_id,
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-opus-4-5",
                    "content": [block],
                    "stop_reason": stop,
                    "usage": {"input_tokens": 10, "output_tokens": 10},
                },
            }
        )

    def reply(self, text: str, *, msg_id: str | None = None, stop: str | None = "end_turn") -> str:
        return self._assistant({"type": "text", "text": text}, msg_id or self._msg(), stop)

    def tool(
        self,
        name: str,
        tool_input: dict[str, Any],
        result: str,
        *,
        msg_id: str | None = None,
        is_error: bool = False,
        structured: Any = None,
    ) -> str:
        tool_id = f"toolu_{self._n:04d}{name}"
        use = self._assistant(
            {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input},
            msg_id or self._msg(),
            None,
        )
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id, "content": result}
        if is_error:
            block["is_error"] = True
        self.record(
            {
                "type": "user",
                "message": {"role": "user", "content": [block]},
                "toolUseResult": structured if structured is not None else {"stdout": result},
                "sourceToolAssistantUUID": use,
            }
        )
        return use

    def turn_duration(self) -> str:
        return self.record({"type": "system", "subtype": "turn_duration", "durationMs": 1200})

    def compact(self, summary: str) -> str:
        boundary = self.record(
            {
                "type": "system",
                "subtype": "compact_boundary",
                "logicalParentUuid": self.last,
                "compactMetadata": {"trigger": "auto", "preTokens": 150000},
                "content": "Conversation compacted",
            },
            parent=None,
        )
        self.record(
            {
                "type": "user",
                "isCompactSummary": True,
                "message": {"role": "user", "content": summary},
            }
        )
        return boundary

    def _msg(self) -> str:
        return f"msg_{self._n:04d}_{uuid.uuid4().hex[:6]}"
