"""The resident never opens the database, its WAL or its SHM from Python (only SQLite does):
its lock is a file of its own. An audit hook in every process records such opens."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.resident.support import hook, memlode, wait_ready, wait_until

from memlode.engine import Engine

AUDIT = r"""
import io, os, sys
_DB = os.environ.get("AUDIT_DB_FILE")
_OUT = os.environ.get("AUDIT_OUT")
_NAMES = {_DB + s for s in ("", "-wal", "-shm", "-journal")} if _DB else set()
_real_open = io.open

def _hook(event, args):
    if event != "open" or not _NAMES or isinstance(args[0], int):
        return
    try:
        name = os.path.realpath(os.fsdecode(args[0]))
    except Exception:
        return
    if name in _NAMES:
        with _real_open(_OUT, "a") as fh:
            fh.write(f"{os.getpid()} {' '.join(sys.argv)[:200]} opened {name}\n")

sys.addaudithook(_hook)
"""


def test_the_resident_and_its_clients_never_open_the_store(
    workdir: Path,
    memlode_home: Path,
    filled: Engine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = tmp_path / "audit-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(AUDIT)
    out = tmp_path / "opens.txt"
    out.touch()
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv("AUDIT_DB_FILE", os.path.realpath(filled.db.path))
    monkeypatch.setenv("AUDIT_OUT", str(out))

    start = {"session_id": "s", "cwd": str(workdir), "hook_event_name": "SessionStart"}
    assert hook("session-start", start, cwd=workdir).returncode == 0
    info = wait_ready(memlode_home)
    prompt = {
        "session_id": "s",
        "cwd": str(workdir),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "postgres connection pooling with pgbouncer",
    }
    assert "pgbouncer" in hook("prompt", prompt, cwd=workdir).stdout
    assert memlode("search", "redis session cache", cwd=workdir).returncode == 0
    status = memlode("resident", "status", "--json", cwd=workdir)
    assert json.loads(status.stdout)["answered"] >= 2
    assert memlode("resident", "stop", cwd=workdir).returncode == 0
    assert wait_until(lambda: not os.path.exists(info["socket"]), 10)
    assert out.read_text() == ""
