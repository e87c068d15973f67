"""The store is owner-only: the home 0700, everything memlode writes in it 0600.

Every command runs as a real subprocess under a permissive umask (022, the usual default, so a
file created without care would be 0644): the CLI through its entry point, the hooks through
the command ``memlode init`` installs. Files memlode writes into the user's project keep the
user's umask.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from memlode.cli.claude_cmds import HOOK_CODE

UMASK = 0o022
PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def _load_factory() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "sources" / "transcript_factory.py"
    spec = importlib.util.spec_from_file_location("transcript_factory_perm", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, **extra}


def memlode(*args: str, cwd: Path, input: str | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        cwd=cwd,
        env=_env(),
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
        umask=UMASK,
    )
    assert done.returncode == 0, (args, done.stderr)
    return done


def hook(event: str, payload: dict[str, Any] | str, cwd: Path) -> None:
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    done = subprocess.run(
        [sys.executable, "-c", HOOK_CODE, event],
        cwd=cwd,
        env=_env(),
        input=raw.encode(),
        capture_output=True,
        timeout=120,
        umask=UMASK,
    )
    assert done.returncode == 0 and not done.stderr, done.stderr


def loose_entries(home: Path) -> list[str]:
    """Everything under ``home`` (itself included) that others could read, with its mode."""
    found: list[str] = []
    for path in [home, *sorted(home.rglob("*"))]:
        info = path.lstat()
        mode = stat.S_IMODE(info.st_mode)
        if stat.S_ISDIR(info.st_mode):
            loose = mode != PRIVATE_DIR
        elif stat.S_ISREG(info.st_mode):
            loose = mode != PRIVATE_FILE
        else:  # a socket, a link
            loose = bool(mode & 0o077)
        if loose:
            found.append(f"{path} {mode:04o}")
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    return proj


def test_everything_a_working_session_writes_in_a_fresh_home_is_owner_only(
    memlode_home: Path, project: Path, tmp_path: Path
) -> None:
    assert not memlode_home.exists()
    base = {"session_id": "perm-1", "cwd": str(project)}
    hook("session-start", {**base, "hook_event_name": "SessionStart", "source": "startup"}, project)
    memlode("store", "We deploy with blue-green releases", "-t", "decision", cwd=project)
    hook(
        "prompt",
        {**base, "hook_event_name": "UserPromptSubmit", "prompt": "how do we deploy releases?"},
        project,
    )
    hook(
        "post-tool",
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "make deploy"},
            "tool_response": {"stdout": "deployed", "stderr": "", "interrupted": False},
        },
        project,
    )
    hook("stop", "{not json", project)  # a bad payload: one line in hooks.log
    factory = _load_factory()
    transcript = tmp_path / "session.jsonl"
    writer = factory.TranscriptWriter(transcript, session_id="perm-1", cwd=str(project))
    writer.prompt("set up the release pipeline")
    writer.reply("The pipeline deploys blue-green.")
    writer.compact("Release pipeline set up; canary step still to do.")
    writer.prompt("add the canary step")
    writer.reply("Added the canary step.")
    memlode("ingest", "transcript", str(transcript), cwd=project)
    memlode("embed", cwd=project)
    assert memlode("search", "release pipeline", "--json", cwd=project).stdout.strip() != "[]"
    memlode("memory", "store", "ops", "Pager duty rotates weekly", "--global", cwd=project)
    memlode("mcp", "--print-token", cwd=project)

    names = {p.name for p in memlode_home.rglob("*")}
    assert {"memlode.db", "hooks.log", "http-token", "cache", "global"} <= names, names
    assert "ops.md" in names, names  # the global note
    assert any(n.startswith("vectors-") for n in names), names  # the vector mirror
    assert (memlode_home / "hooks.log").read_text(encoding="utf-8").strip()
    assert loose_entries(memlode_home) == []


def test_loose_modes_left_by_an_older_version_are_tightened_on_next_open(
    memlode_home: Path, project: Path
) -> None:
    memlode("store", "first memory", cwd=project)
    database = memlode_home / "memlode.db"
    # A writer that stays connected keeps the WAL and SHM files in place (as a server would).
    holder = sqlite3.connect(database)
    try:
        holder.execute("PRAGMA journal_mode=WAL")
        holder.execute("CREATE TABLE IF NOT EXISTS perm_probe (x)")
        holder.execute("INSERT INTO perm_probe VALUES (1)")
        holder.commit()
        side = [Path(f"{database}-wal"), Path(f"{database}-shm")]
        assert all(p.exists() for p in side)
        (memlode_home / "hooks.log").write_text("old line\n")
        (memlode_home / "hooks.log.1").write_text("older line\n")
        (memlode_home / "config.toml").write_text('log_level = "WARNING"\n')
        (memlode_home / "cache").mkdir()
        (memlode_home / "cache" / "vectors-old.json").write_text("{}")
        (memlode_home / "global" / "memory").mkdir(parents=True)
        (memlode_home / "global" / "MEMORY.md").write_text("# global\n")
        (memlode_home / "global" / "memory" / "note.md").write_text("a note\n")
        foreign = memlode_home / "not-memlodes.txt"  # someone else's file in the home
        foreign.write_text("leave me be\n")
        for path in [memlode_home, *memlode_home.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        assert len(loose_entries(memlode_home)) > 10

        memlode("list", cwd=project)

        left = loose_entries(memlode_home)
        assert left == [f"{foreign} 0644"]
        assert all(p.exists() for p in side)
        # The holder's connection still works: nothing opened (and closed) the files under it.
        holder.execute("INSERT INTO perm_probe VALUES (2)")
        holder.commit()
        assert holder.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        holder.close()
    assert "first memory" in memlode("list", cwd=project).stdout


def test_a_database_outside_the_home_is_owner_only_too(project: Path, tmp_path: Path) -> None:
    database = tmp_path / "elsewhere" / "team" / "store.db"
    memlode("--db", str(database), "store", "kept outside the home", cwd=project)
    assert stat.S_IMODE(database.stat().st_mode) == PRIVATE_FILE
    assert stat.S_IMODE(database.parent.stat().st_mode) == PRIVATE_DIR  # the folder made for it


def test_the_hook_log_is_owner_only_from_its_first_line(memlode_home: Path, project: Path) -> None:
    hook("post-tool", b"\xff\xfe not json".decode("latin-1"), project)
    log = memlode_home / "hooks.log"
    assert log.read_text(encoding="utf-8", errors="replace").strip()
    assert loose_entries(memlode_home) == []


def test_files_written_into_the_project_keep_the_users_umask(project: Path) -> None:
    """Owner-only is for memlode's home; the user's project files follow the user's umask."""
    memlode("init", "--scope", "project", cwd=project)
    memlode("memory", "store", "deploys", "Releases go out on Tuesdays", cwd=project)
    for path in (
        project / ".claude" / "settings.json",
        project / ".mcp.json",
        project / "memory" / "deploys.md",
    ):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, path
