"""No memlode process opens the database, its WAL or its shared-memory file except through SQLite.

On POSIX, closing any descriptor of a file drops every lock the process holds on it, so one
stray ``open(db)`` in a process with connections lets another process checkpoint and reset the
WAL under them: acknowledged writes vanish and the store can be corrupted. SQLite's own opens
happen in C and never reach Python; any open from Python code raises the ``open`` audit event.
A ``sitecustomize`` on ``PYTHONPATH`` installs an audit hook in every memlode process these tests
start (CLI commands, hooks, the detached transcript ingest, the MCP server) and records every
Python-level open of the store's files; the record must stay empty.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from memlode.cli.claude_cmds import HOOK_CODE

SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
TRANSCRIPT = SHARED_DATA / "transcripts" / "spotter" / "tool_heavy.jsonl"

SITECUSTOMIZE = r"""
import os, sys

_DB = os.environ.get("AUDIT_DB_FILE")
_OUT = os.environ.get("AUDIT_OUT")
_NAMES = {_DB + s for s in ("", "-wal", "-shm", "-journal")} if _DB else set()

def _hook(event, args):
    if event != "open" or not _NAMES:
        return
    path = args[0]
    if isinstance(path, int):
        return
    try:
        name = os.path.realpath(os.fsdecode(path))
    except Exception:
        return
    if name in _NAMES:
        with _real_open(_OUT, "a") as fh:
            fh.write(f"{os.getpid()} {' '.join(sys.argv)[:200]} opened {name}\n")

import io
_real_open = io.open
sys.addaudithook(_hook)
"""


@pytest.fixture
def audited(tmp_path: Path, memlode_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every Python process started from here on records opens of the store's files."""
    site = tmp_path / "audit-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    out = tmp_path / "foreign-opens.txt"
    out.touch()
    memlode_home.mkdir(parents=True, exist_ok=True)
    db = memlode_home / "memlode.db"
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.setenv("AUDIT_DB_FILE", os.path.realpath(db))
    monkeypatch.setenv("AUDIT_OUT", str(out))
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "hash")  # vectors are written too
    return out


def _run(
    args: list[str], cwd: Path, stdin: bytes | None = None, ok: tuple[int, ...] = (0,)
) -> None:
    proc = subprocess.run(args, input=stdin, cwd=cwd, capture_output=True, timeout=120)
    assert proc.returncode in ok, proc.stderr.decode(errors="replace")


def _memlode(*args: str, cwd: Path, ok: tuple[int, ...] = (0,)) -> None:
    _run([sys.executable, "-m", "memlode", *args], cwd, ok=ok)


def _hook(event: str, payload: dict[str, object], cwd: Path) -> None:
    _run([sys.executable, "-c", HOOK_CODE, event], cwd, json.dumps(payload).encode())


def test_the_audit_hook_sees_a_plain_open(audited: Path, memlode_home: Path, workdir: Path):
    """The control: a process that does open the store's file is recorded."""
    _memlode("store", "a note", cwd=workdir)
    db = memlode_home / "memlode.db"
    _run([sys.executable, "-c", f"open({str(db)!r}, 'rb').read(16)"], workdir)
    assert "opened" in audited.read_text()


def test_cli_and_hooks_never_open_the_store_files(
    audited: Path, memlode_home: Path, workdir: Path, tmp_path: Path
):
    if not TRANSCRIPT.is_file():
        pytest.skip(f"{TRANSCRIPT} is missing (../shared/data)")
    (workdir / "app.py").write_text("def greet(name):\n    return f'hi {name}'\n")
    (workdir / "MEMORY.md").write_text("# Memory\n\nThe store uses WAL mode.\n")
    exported = tmp_path / "export.jsonl"
    _memlode("store", "WAL needs busy_timeout first", "--tags", "sqlite", cwd=workdir)
    _memlode("list", cwd=workdir)
    _memlode("search", "busy timeout", cwd=workdir)
    _memlode("stats", cwd=workdir)
    _memlode("namespaces", cwd=workdir)
    _memlode("sessions", cwd=workdir)
    _memlode("export", str(exported), cwd=workdir)
    _memlode("import", str(exported), cwd=workdir)
    _memlode("embed", cwd=workdir)
    _memlode("index", str(workdir), cwd=workdir)
    _memlode("symbols", "greet", cwd=workdir)
    _memlode("docs", "index", cwd=workdir)
    _memlode("doctor", cwd=workdir, ok=(0, 1))  # 1: hooks not installed here
    _memlode("ingest", "transcript", str(TRANSCRIPT), cwd=workdir)

    base = {"session_id": "audit-session", "cwd": str(workdir)}
    _hook("session-start", {**base, "source": "startup"}, workdir)
    _hook("prompt", {**base, "prompt": "why is busy_timeout set first?"}, workdir)
    _hook(
        "post-tool",
        {
            **base,
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q"},
            "tool_response": {"stdout": "3 passed", "stderr": "", "interrupted": False},
        },
        workdir,
    )
    transcript = tmp_path / "session.jsonl"
    transcript.write_bytes(TRANSCRIPT.read_bytes())
    _hook("stop", {**base, "transcript_path": str(transcript), "stop_hook_active": False}, workdir)
    _wait_for_detached_ingest(transcript)
    assert audited.read_text() == ""


def _wait_for_detached_ingest(transcript: Path, timeout: float = 60.0) -> None:
    needle = str(transcript).encode()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        running = False
        for pid in os.listdir("/proc"):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes() if pid.isdigit() else b""
            except OSError:
                continue
            running = running or (b"ingest" in cmdline and needle in cmdline)
        if not running:
            return
        time.sleep(0.1)


@pytest.mark.anyio
async def test_mcp_server_never_opens_the_store_files(audited: Path, workdir: Path):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memlode", "mcp"],
        env=dict(os.environ),
        cwd=str(workdir),
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        for i in range(3):
            result = await session.call_tool("store_memory", {"content": f"server note {i}"})
            assert not result.is_error
            recall = await session.call_tool("recall_memory", {"query": "server note"})
            assert not recall.is_error
        stats = await session.call_tool("memlode_stats", {})
        assert not stats.is_error
    assert audited.read_text() == ""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
