"""Fixtures for the hook tests: a project folder, a hook runner (a real subprocess per event,
as Claude Code runs it), the example payloads of ../shared/INTEGRATION.md, and an engine on the
project's namespace to read back what the hooks stored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memlode.config import Settings
from memlode.engine import Engine
from memlode.hook_events import HOOK_CODE

# The hook as registered, printing the modules it imported instead of ending at os._exit.
_MODULES_CODE = "import sys; " + HOOK_CODE.replace(
    "main(exit_process=True)", "main(); print(*sorted(sys.modules))"
)


def hook_modules(project: Path, event: str, payload: dict[str, Any]) -> set[str]:
    """Run the ``event`` hook on ``payload`` in ``project``; the modules it imported."""
    proc = subprocess.run(
        [sys.executable, "-c", _MODULES_CODE, event],
        input=json.dumps(payload).encode(),
        capture_output=True,
        cwd=project,
        env=dict(os.environ),
        timeout=120,
    )
    assert proc.returncode == 0 and not proc.stderr, proc.stderr[-2000:]
    return set(proc.stdout.decode().split())


@dataclass
class HookResult:
    returncode: int
    stdout: str
    stderr: str

    def context(self) -> dict[str, Any]:
        data = json.loads(self.stdout)
        assert isinstance(data, dict)
        return data


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "src").mkdir()
    return proj


HookRunner = Callable[..., HookResult]


@pytest.fixture
def hook(project: Path) -> HookRunner:
    def run(
        event: str,
        payload: dict[str, Any] | bytes | str,
        *,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> HookResult:
        if isinstance(payload, dict):
            data = json.dumps(payload).encode()
        elif isinstance(payload, str):
            data = payload.encode()
        else:
            data = payload
        proc = subprocess.run(
            [sys.executable, "-m", "memlode.hooks", event],
            input=data,
            capture_output=True,
            cwd=cwd or project,
            env={**os.environ, **(env or {})},
            timeout=120,
        )
        return HookResult(
            proc.returncode,
            proc.stdout.decode("utf-8", "replace"),
            proc.stderr.decode("utf-8", "replace"),
        )

    return run


@pytest.fixture
def payloads(project: Path) -> dict[str, dict[str, Any]]:
    """The example payloads of INTEGRATION.md section 1.2, pointed at the test project."""
    base = {
        "session_id": "8c1f-test",
        "transcript_path": str(project / "8c1f.jsonl"),
        "cwd": str(project),
    }
    auth = str(project / "auth.py")
    return {
        "session-start": {
            **base,
            "hook_event_name": "SessionStart",
            "source": "startup",
            "model": "claude-sonnet-4-6",
        },
        "prompt": {
            **base,
            "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "Why does login 401?",
        },
        "post-tool": {
            **base,
            "permission_mode": "default",
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_use_id": "toolu_01A",
            "tool_input": {
                "file_path": auth,
                "old_string": "exp=60",
                "new_string": "exp=3600",
                "replace_all": False,
            },
            "tool_response": {
                "filePath": auth,
                "oldString": "exp=60",
                "newString": "exp=3600",
                "originalFile": "<whole file>",
                "structuredPatch": [
                    {
                        "oldStart": 9,
                        "oldLines": 1,
                        "newStart": 9,
                        "newLines": 1,
                        "lines": ["-exp=60", "+exp=3600"],
                    }
                ],
                "userModified": False,
                "replaceAll": False,
            },
        },
        "stop": {
            **base,
            "permission_mode": "default",
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": "Fixed: token expiry…",
        },
        "pre-compact": {
            **base,
            "hook_event_name": "PreCompact",
            "trigger": "auto",
            "custom_instructions": "",
        },
        "session-end": {**base, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"},
    }


@pytest.fixture
def read_payload(project: Path) -> Callable[..., dict[str, Any]]:
    def make(
        path: str, content: str = "def login():\n    return 1\n", **extra: Any
    ) -> dict[str, Any]:
        return {
            "session_id": extra.pop("session_id", "8c1f-test"),
            "cwd": str(project),
            "hook_event_name": "PostToolUse",
            "tool_name": "Read",
            "tool_input": {"file_path": path},
            "tool_response": {
                "type": "text",
                "file": {
                    "filePath": path,
                    "content": content,
                    "numLines": content.count("\n"),
                    "startLine": 1,
                    "totalLines": content.count("\n"),
                },
            },
            **extra,
        }

    return make


@pytest.fixture
def proj_engine(project: Path) -> Iterator[Engine]:
    """An engine on the project's namespace (the key of 'proj'), as the hooks detect it."""
    from memlode.project import detect_namespace

    eng = Engine(Settings.load({"namespace": detect_namespace(project), "embed_provider": "none"}))
    try:
        yield eng
    finally:
        eng.close()
