"""A store the real hooks write, for the consolidation tests: a session that reads one file
again and again and re-runs one test command (``observe``), and the store a killed run must
come to (``finished_copy``)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests.conftest import run_hook_ok


def observe(
    project: Path,
    session: str,
    starts: tuple[int, ...] = (1, 40, 80),
    *,
    same_runs: bool = False,
) -> None:
    """A session that reads one file at ``starts`` and runs one test command three times;
    ``same_runs``: the runs print what they printed in any session before (so that the hooks
    store them once), else their timing follows the last read."""
    base = {"session_id": session, "cwd": str(project), "hook_event_name": "PostToolUse"}
    path = str(project / "src" / "billing.py")
    for start in starts:
        read = {
            **base,
            "tool_name": "Read",
            "tool_input": {"file_path": path, "offset": start, "limit": 30},
            "tool_response": {
                "type": "text",
                "file": {
                    "filePath": path,
                    "content": "def charge(order):\n    return order.total\n",
                    "numLines": 30,
                    "startLine": start,
                    "totalLines": 120,
                },
            },
        }
        run_hook_ok("post-tool", read, project)
    timing = 1 if same_runs else start
    for n in range(3):
        run = {
            **base,
            "tool_name": "Bash",
            "tool_input": {"command": "pytest tests/test_billing.py -q"},
            "tool_response": {"stdout": f"{n + 4} passed in {timing}.{n}s", "stderr": ""},
        }
        run_hook_ok("post-tool", run, project)


def finished_copy(db: Path, copy: Path, args: Sequence[str], *, cwd: Path) -> Path:
    """``copy``: the store ``db`` (SQLite's backup) with ``python -m memlode ARGS`` run on it to
    the end, uninterrupted: what a store whose run was killed must come to once a run finishes."""
    with sqlite3.connect(db) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        cwd=cwd,
        env={**os.environ, "MEMLODE_DB": str(copy)},
        capture_output=True,
        check=True,
        timeout=120,
    )
    return copy
