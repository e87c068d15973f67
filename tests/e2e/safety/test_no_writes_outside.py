"""Ingest and indexing stay inside the project: nothing written into a repository unasked, and
no symlink followed out of a project's docs.

Transcripts are a real Claude Code session from ../shared/data (the part up to and just after
its compaction), with its ``cwd`` pointed at a second repository on this machine. Everything
runs through the real CLI entry point and the hook command ``memlode init`` installs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from memlode.cli.claude_cmds import HOOK_CODE

SESSIONS = Path(__file__).resolve().parents[4] / "shared" / "data" / "transcripts" / "spotter"
SESSION = SESSIONS / "sessions" / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
# The session's compaction summary is line 715; a few lines after it keep the session going.
SESSION_LINES = 760
RECORDED_CWD = "/home/USER/projects/spotter-worktrees/spotter-fum"  # and its assets/ folder
# Words of the compaction summary (and of nothing before it in the session).
SUMMARY_QUERY = "Enrich TranscriptRenderer with metadata relative paths thinking threading keys"
SUMMARY_PHRASE = "Fixed Credo nesting issue"

needs_session = pytest.mark.skipif(not SESSION.is_file(), reason=f"{SESSION} is absent")


def memlode(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memlode", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def make_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    return path


def tree(root: Path) -> dict[str, tuple[str, int, int]]:
    """Every entry under ``root``: relative path -> (content hash or kind, mtime_ns, mode)."""
    out: dict[str, tuple[str, int, int]] = {}
    for path in [root, *sorted(root.rglob("*"))]:
        info = path.lstat()
        if path.is_symlink():
            what = "link:" + os.readlink(path)
        elif path.is_dir():
            what = "dir"
        else:
            what = hashlib.sha256(path.read_bytes()).hexdigest()
        out[str(path.relative_to(root))] = (what, info.st_mtime_ns, info.st_mode)
    return out


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    """(the project the user works in, another repository the transcript names)."""
    current = make_repo(tmp_path / "work" / "current", {"README.md": "# current\n"})
    other = make_repo(
        tmp_path / "elsewhere" / "other",
        {
            "README.md": "# other\n",
            "MEMORY.md": "# Other repository's memory\n\nKeep this file as it is.\n",
            "src/app.ex": "defmodule App do\nend\n",
        },
    )
    return current, other


def session_naming(other: Path, dest: Path) -> Path:
    """The real session, up to just after its compaction, as if it ran in ``other``."""
    with SESSION.open(encoding="utf-8") as fh:
        lines = [next(fh) for _ in range(SESSION_LINES)]
    text = "".join(lines).replace(RECORDED_CWD, str(other))
    assert '"isCompactSummary":true' in text.replace(" ", "")
    dest.write_text(text, encoding="utf-8")
    return dest


def ingest(transcript: Path, cwd: Path, *, force: bool = False) -> dict[str, Any]:
    flags = ["--force"] if force else []
    done = memlode("ingest", "transcript", str(transcript), "--json", *flags, cwd=cwd)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["files"][0]["summaries"] == 1, report
    return dict(report["files"][0])


def summary_hits(namespace: str, cwd: Path) -> list[dict[str, Any]]:
    done = memlode("search", SUMMARY_QUERY, "-n", namespace, "-k", "5", "--json", cwd=cwd)
    assert done.returncode == 0, done.stderr
    hits = json.loads(done.stdout)
    return [h for h in hits if SUMMARY_PHRASE in h["content"] or "Session summary" in h["content"]]


# ---- transcripts -----------------------------------------------------------------------------


@needs_session
def test_ingest_writes_into_no_repository_and_keeps_the_summary(
    repos: tuple[Path, Path], tmp_path: Path
) -> None:
    current, other = repos
    transcript = session_naming(other, tmp_path / "session.jsonl")
    before = {current: tree(current), other: tree(other)}

    report = ingest(transcript, cwd=current)  # the user works in `current`
    # And from the transcript's own project, read again from the start: still nothing written.
    again = ingest(transcript, cwd=other, force=True)
    assert again["namespace"] == report["namespace"]

    assert tree(current) == before[current]
    assert tree(other) == before[other]
    hits = summary_hits(report["namespace"], cwd=current)
    assert hits, "the compaction summary is findable in memlode's own store"
    assert all(h["source"] == "transcript" for h in hits)
    # Stored once: as transcript summary chunks, not also as chunks of a MEMORY.md.
    docs = memlode("list", "-n", "*", "--source", "doc", "--json", cwd=current)
    assert docs.returncode == 0, docs.stderr
    assert SUMMARY_PHRASE not in docs.stdout


@needs_session
def test_the_stop_hook_ingest_writes_into_no_repository(
    repos: tuple[Path, Path], tmp_path: Path, memlode_home: Path
) -> None:
    """The path Claude Code takes: Stop starts a detached ``memlode ingest`` in the project."""
    current, other = repos
    transcript = session_naming(other, tmp_path / "session.jsonl")
    before = {current: tree(current), other: tree(other)}
    payload = {
        "session_id": "8463c716-a2ea-4c14-9efa-87158ebd9f20",
        "transcript_path": str(transcript),
        "cwd": str(current),
        "hook_event_name": "Stop",
        "stop_hook_active": False,
    }
    done = subprocess.run(
        [sys.executable, "-c", HOOK_CODE, "stop"],
        input=json.dumps(payload).encode(),
        cwd=current,
        env=dict(os.environ),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == b""
    database = memlode_home / "memlode.db"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _ingested(database, transcript):
        time.sleep(0.2)
    assert _ingested(database, transcript), "the detached ingest did not finish"
    time.sleep(0.5)  # the ingest's last step after its commit would be the MEMORY.md append
    assert tree(current) == before[current]
    assert tree(other) == before[other]


def _ingested(database: Path, transcript: Path) -> bool:
    if not database.exists():
        return False
    try:
        with sqlite3.connect(database) as conn:
            row = conn.execute(
                "SELECT 1 FROM transcript_files WHERE path = ?", (str(transcript.resolve()),)
            ).fetchone()
    except sqlite3.OperationalError:
        return False
    return row is not None


@needs_session
@pytest.mark.parametrize("switch", ["environment", "config"])
def test_the_switch_writes_only_into_the_project_the_ingest_runs_in(
    repos: tuple[Path, Path], tmp_path: Path, memlode_home: Path, switch: str
) -> None:
    current, other = repos
    transcript = session_naming(other, tmp_path / "session.jsonl")
    env: dict[str, str] = {}
    if switch == "environment":
        env["MEMLODE_WRITE_COMPACTIONS"] = "1"
    else:
        memlode_home.mkdir(parents=True, exist_ok=True)
        (memlode_home / "config.toml").write_text("[memory_files]\nwrite_compactions = true\n")
    before = {current: tree(current), other: tree(other)}
    shown = memlode("config", "show", "--json", cwd=current, env=env)
    assert json.loads(shown.stdout)["write_compactions"] is True
    assert json.loads(memlode("config", "show", "--json", cwd=current).stdout)[
        "write_compactions"
    ] is (switch == "config")  # off unless asked for

    # Working in `current`: the transcript names `other`, which is not this project.
    done = memlode("-v", "ingest", "transcript", str(transcript), cwd=current, env=env)
    assert done.returncode == 0, done.stderr
    assert "not written to MEMORY.md" in done.stderr
    assert tree(current) == before[current]
    assert tree(other) == before[other]

    # Working in `other` itself, with the switch on: its MEMORY.md gets the summary, once.
    done = memlode("ingest", "transcript", str(transcript), "--force", cwd=other, env=env)
    assert done.returncode == 0, done.stderr
    memory = (other / "MEMORY.md").read_text(encoding="utf-8")
    assert memory.startswith("# Other repository's memory\n\nKeep this file as it is.\n")
    assert "## Compaction summary, " in memory and SUMMARY_PHRASE in memory
    done = memlode("ingest", "transcript", str(transcript), "--force", cwd=other, env=env)
    assert done.returncode == 0, done.stderr
    assert (other / "MEMORY.md").read_text(encoding="utf-8") == memory
    assert tree(current) == before[current]


def test_a_bad_switch_value_is_a_clear_error(repos: tuple[Path, Path]) -> None:
    current, _ = repos
    done = memlode("list", cwd=current, env={"MEMLODE_WRITE_COMPACTIONS": "sometimes"})
    assert done.returncode != 0
    assert done.stderr.startswith("memlode: error: ") and "write_compactions" in done.stderr
    assert "Traceback" not in done.stderr


# ---- symlinks out of a project -----------------------------------------------------------------


def _doc_contents(cwd: Path) -> str:
    done = memlode("list", "-n", "*", "--source", "doc", "--json", "--limit", "1000", cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside every project, with notes nobody asked memlode to index."""
    folder = tmp_path / "private-notes"
    folder.mkdir()
    (folder / "secret.md").write_text("# Secret\n\nThe vault combination is zebra-quartz-1187.\n")
    (folder / "MEMORY.md").write_text("# Not this project's\n\nOutside memory lichen-9931.\n")
    return folder


def test_a_docs_symlink_out_of_the_project_is_not_followed(
    repos: tuple[Path, Path], outside: Path
) -> None:
    current, _ = repos
    (current / ".memlode").mkdir()
    (current / ".memlode" / "docs").symlink_to(outside, target_is_directory=True)
    done = memlode("docs", "index", cwd=current)
    assert done.returncode == 0, done.stderr
    assert "not indexing" in done.stderr and str(outside) in done.stderr
    assert "zebra-quartz" not in _doc_contents(current)


def test_a_symlinked_memlode_folder_is_not_followed(
    repos: tuple[Path, Path], outside: Path
) -> None:
    current, _ = repos
    (outside / "docs").mkdir()
    (outside / "docs" / "guide.md").write_text("# Guide\n\nThe deploy key is walrus-amber-4410.\n")
    (current / ".memlode").symlink_to(outside, target_is_directory=True)
    done = memlode("docs", "index", cwd=current)
    assert done.returncode == 0, done.stderr
    assert "not indexing" in done.stderr
    assert "walrus-amber" not in _doc_contents(current)


def test_symlinked_files_and_folders_out_of_the_project_are_skipped_and_logged(
    repos: tuple[Path, Path], outside: Path
) -> None:
    current, _ = repos
    docs = current / ".memlode" / "docs"
    docs.mkdir(parents=True)
    (docs / "own.md").write_text("# Own\n\nOur own deploy notes mention heron-5521.\n")
    (docs / "linked.md").symlink_to(outside / "secret.md")
    (docs / "linked-folder").symlink_to(outside, target_is_directory=True)
    (current / "MEMORY.md").symlink_to(outside / "MEMORY.md")
    (current / "memory").symlink_to(outside, target_is_directory=True)
    done = memlode("docs", "index", cwd=current)
    assert done.returncode == 0, done.stderr
    contents = _doc_contents(current)
    assert "heron-5521" in contents  # the project's own doc is indexed
    assert "zebra-quartz" not in contents and "lichen-9931" not in contents
    for skipped in ("linked.md", "linked-folder", "MEMORY.md", "memory"):
        assert any(
            "not indexing" in line and skipped in line for line in done.stderr.splitlines()
        ), (skipped, done.stderr)


def test_docs_indexed_before_a_symlink_swap_are_dropped(
    repos: tuple[Path, Path], outside: Path
) -> None:
    """A docs folder replaced by a symlink out: its old chunks go, the outside is not read."""
    current, _ = repos
    docs = current / ".memlode" / "docs"
    docs.mkdir(parents=True)
    (docs / "plan.md").write_text("# Plan\n\nThe rollout plan mentions osprey-7702.\n")
    assert memlode("docs", "index", cwd=current).returncode == 0
    assert "osprey-7702" in _doc_contents(current)
    shutil.rmtree(docs)
    docs.symlink_to(outside, target_is_directory=True)
    done = memlode("docs", "index", cwd=current)
    assert done.returncode == 0, done.stderr
    contents = _doc_contents(current)
    assert "osprey-7702" not in contents and "zebra-quartz" not in contents
