"""Inputs of the kill trials (bench/bench_kill.py): a copy of memlode's own source as a project
to index, the change that makes a re-index incremental, and generated Claude Code transcripts
(newer builds' shape: prompts, tool calls, replies), the same on every run.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path
from typing import Any

__all__ = ["NAMESPACE", "copy_code", "mutate_code", "write_transcripts"]

REPO = Path(__file__).resolve().parents[1]
NAMESPACE = "kill"


# ---- transcripts ---------------------------------------------------------------------------

_WORDS = (
    "cache index migration schema retry token parser handler worker queue session config "
    "vector search ranking graph edge node symbol import export backup restore transcript "
    "hook server client request response timeout lock commit rollback checkpoint journal "
    "decision because instead prefer avoid always never fixed broke slow fast memory disk"
).split()


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."


class _Session:
    """One generated transcript, its lines chained by parentUuid like Claude Code's."""

    def __init__(self, rng: random.Random, number: int) -> None:
        self.rng = rng
        self.id = f"{number:08d}-0000-4000-8000-{rng.getrandbits(48):012x}"
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.clock = 1_700_000_000 + number * 86_400

    def add(self, record: dict[str, Any]) -> None:
        self.clock += 7
        uid = f"{self.rng.getrandbits(128):032x}"
        self.lines.append(
            {
                "parentUuid": self.parent,
                "isSidechain": False,
                "userType": "external",
                "cwd": "/home/dev/projects/kill-app",
                "sessionId": self.id,
                "version": "2.1.40",
                "gitBranch": "main",
                "uuid": uid,
                "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(self.clock)),
                **record,
            }
        )
        self.parent = uid

    def turn(self, number: int) -> None:
        rng = self.rng
        self.add({"type": "user", "message": {"role": "user", "content": _sentence(rng, 25)}})
        tool_id = f"toolu_{number:04d}"
        msg = f"msg_{self.id[:8]}_{number:04d}"
        command = {"command": f"pytest -k {rng.choice(_WORDS)}"}
        self.add(
            _assistant(msg, {"type": "tool_use", "id": tool_id, "name": "Bash", "input": command})
        )
        output = _sentence(rng, 40)
        result = {"type": "tool_result", "tool_use_id": tool_id, "content": output}
        self.add(
            {
                "type": "user",
                "message": {"role": "user", "content": [result]},
                "toolUseResult": {"stdout": output, "stderr": ""},
            }
        )
        text = " ".join(_sentence(rng, 18) for _ in range(12))
        self.add(_assistant(msg + "b", {"type": "text", "text": text}, "end_turn"))


def write_transcripts(
    folder: Path, *, sessions: int = 8, turns: int = 24, seed: int = 5
) -> list[Path]:
    """Claude Code transcripts (newer builds' shape): prompts, tool calls, replies."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(sessions):
        session = _Session(rng, number)
        for t in range(turns):
            session.turn(t)
        path = folder / f"{session.id}.jsonl"
        path.write_text("".join(json.dumps(line) + "\n" for line in session.lines), "utf-8")
        paths.append(path)
    return paths


def _assistant(msg_id: str, block: dict[str, Any], stop: str | None = None) -> dict[str, Any]:
    return {
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


def copy_code(dest: Path, folders: tuple[str, ...] = ()) -> Path:
    """A copy of memlode's own source (only ``folders`` of it when given) as a project."""
    source = REPO / "src" / "memlode"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    if folders:
        dest.mkdir(parents=True)
        for name in folders:
            shutil.copytree(source / name, dest / name, ignore=ignore)
    else:
        shutil.copytree(source, dest, ignore=ignore)
    (dest / "pyproject.toml").write_text(f"[project]\nname = '{NAMESPACE}'\n", encoding="utf-8")
    return dest


def mutate_code(project: Path, seed: int = 11) -> None:
    """Change 12 Python files (a new function calling an old one) and delete 3."""
    rng = random.Random(seed)
    files = sorted(p for p in project.rglob("*.py") if p.name != "__init__.py")
    picked = rng.sample(files, 15)
    for i, path in enumerate(picked[:12]):
        path.write_text(
            path.read_text(encoding="utf-8")
            + f"\n\ndef added_by_kill_trial_{i}(value):\n"
            + f"    return added_by_kill_trial_{i}(value)\n",
            encoding="utf-8",
        )
    for path in picked[12:]:
        path.unlink()
