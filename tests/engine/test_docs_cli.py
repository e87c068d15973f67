"""`memlode docs`, `memlode memory` and `memlode watch` through the real entry point."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memlode.project import detect_namespace

Cli = Callable[..., Any]


def one_line_error(result: Any) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return str(lines[0])


def test_docs_index_json_then_skip(cli: Cli, project: Path) -> None:
    first = cli("docs", "index", "--json", cwd=project)
    assert first.returncode == 0, first.stderr
    data = first.json()
    assert (data["indexed"], data["docs_only"]) == (2, False)
    assert data["namespaces"] == [detect_namespace(project), "global"]
    again = cli("docs", "index", cwd=project)
    assert again.returncode == 0
    assert "2 files: 0 indexed, 2 unchanged" in again.stdout


def test_docs_index_outside_a_project_says_docs_only(
    cli: Cli, outside: Path, memlode_home: Path
) -> None:
    (memlode_home / "global").mkdir(parents=True)
    (memlode_home / "global" / "MEMORY.md").write_text("Global fact: the VPN is wireguard.\n")
    result = cli("docs", "index", cwd=outside)
    assert result.returncode == 0, result.stderr
    assert "docs-only mode" in result.stdout and "1 indexed" in result.stdout
    found = cli("memory", "search", "wireguard vpn", "--json", cwd=outside).json()
    assert found["docs_only"] is True
    assert found["results"][0]["ref"] == "global/MEMORY.md"


def test_memory_get_store_search(cli: Cli, project: Path) -> None:
    got = cli("memory", "get", "MEMORY.md", cwd=project)
    assert got.returncode == 0 and got.stdout.startswith("# Project memory")
    note = "Pager rotation is weekly.\n"
    stored = cli("memory", "store", "runbook", "-", input=note, cwd=project)
    assert stored.returncode == 0, stored.stderr
    assert "memory/runbook.md" in stored.stdout
    assert (project / "memory" / "runbook.md").read_text() == "Pager rotation is weekly.\n"
    found = cli("memory", "search", "pager rotation", "--k", "3", "--json", cwd=project).json()
    assert found["results"][0]["ref"] == "memory/runbook.md"
    text = cli("memory", "search", "pager rotation", cwd=project)
    assert text.stdout.startswith("memory/runbook.md:1-1")
    replaced = cli("memory", "store", "runbook", "Only this.", "--replace", "--json", cwd=project)
    assert replaced.json()["mode"] == "write"
    assert cli("memory", "get", "memory/runbook.md", cwd=project).stdout == "Only this.\n"


@pytest.mark.parametrize(
    "args",
    [
        ("memory", "get", "../MEMORY.md"),
        ("memory", "get", "%2e%2e/MEMORY.md"),
        ("memory", "store", "../evil", "text"),
        ("memory", "search", "x", "--k", "0"),
        ("docs", "add", "no-such-folder"),
    ],
)
def test_bad_input_is_one_line_and_non_zero(cli: Cli, project: Path, args: tuple[str, ...]) -> None:
    line = one_line_error(cli(*args, cwd=project))
    assert line.startswith("memlode: error: ")


def test_missing_things_exit_not_found(cli: Cli, project: Path) -> None:
    result = cli("memory", "get", "SOUL.md", cwd=project)
    assert result.returncode == 3
    assert one_line_error(result).startswith("memlode: error: no memory file SOUL.md")
    assert cli("docs", "remove", str(project), cwd=project).returncode == 3


def test_usage_errors_are_click_errors(cli: Cli, project: Path) -> None:
    result = cli("memory", "get", cwd=project)
    assert result.returncode == 2 and "Missing argument" in result.stderr
    assert cli("watch", "--debounce", "-5", cwd=project).returncode == 2


def test_docs_add_list_remove(cli: Cli, project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "handbook"
    (folder / "ops").mkdir(parents=True)
    (folder / "ops" / "oncall.md").write_text("# On-call\n\nEscalate after 15 minutes.\n")
    added = cli("docs", "add", str(folder), "--json", cwd=project)
    assert added.returncode == 0, added.stderr
    assert added.json()["index"]["indexed"] == 1
    listed = cli("docs", "list", "--json", cwd=project).json()
    folders = [r for r in listed["roots"] if r["scope"] == "folder"]
    assert folders == [
        {
            "path": str(folder.resolve()),
            "namespace": detect_namespace(project),
            "scope": "folder",
            "memory_only": False,
            "exists": True,
            "files": 1,
            "chunks": 1,
            "last": folders[0]["last"],
        }
    ]
    text = cli("docs", "list", cwd=project).stdout
    assert "folder" in text and str(folder.resolve()) in text
    removed = cli("docs", "remove", str(folder), cwd=project)
    assert removed.returncode == 0 and "1 files, 1 chunks dropped" in removed.stdout
    found = cli("memory", "search", "escalate", "--json", cwd=project).json()
    assert all(r["scope"] != "folder" for r in found["results"])


# Starts the rest of its command line with SIGINT ignored, as a shell script's `cmd &` does.
_SIGINT_IGNORED = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN);"
    " os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


@pytest.mark.parametrize(
    ("started", "stop"),
    [("plain", signal.SIGINT), ("sigint-ignored", signal.SIGINT), ("plain", signal.SIGTERM)],
)
def test_watch_stops_cleanly_on_ctrl_c(project: Path, started: str, stop: signal.Signals) -> None:
    """Ctrl-C stops it, and so does SIGTERM, also when it was started with SIGINT ignored
    (which Python keeps: only SIGKILL stopped it then)."""
    wrapper = [] if started == "plain" else ["-c", _SIGINT_IGNORED]
    proc = subprocess.Popen(
        [sys.executable, *wrapper, "-m", "memlode", "watch", "--debounce", "50"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        while "watching for changes" not in lines.get(timeout=60):
            pass
        (project / "memory" / "caching.md").write_text("Now memcached, not redis.\n")
        while "changed: caching.md" not in lines.get(timeout=60):
            pass
        proc.send_signal(stop)
        assert proc.wait(timeout=30) == 0
        assert proc.stderr is not None
        err = proc.stderr.read()
        assert "stopped watching" in err and "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=10)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
