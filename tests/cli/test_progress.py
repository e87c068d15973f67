"""Long work shows a bar on a terminal and nothing in a pipe or with --json."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import run_memlode


def _with_terminal_stderr(*args: str, cwd: Path) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pseudo-terminal (stdout stays a pipe)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memlode", *args],
        stdout=subprocess.PIPE,
        stderr=follower,
        cwd=cwd,
        text=True,
        env=dict(os.environ),
    )
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closes when the process ends
            break
        if not chunk:
            break
        chunks.append(chunk)
    out, _ = proc.communicate(timeout=120)
    os.close(leader)
    return proc.returncode, out, b"".join(chunks).decode("utf-8", "replace")


def test_embed_draws_a_bar_on_a_terminal_only(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "hash")  # this folder's tests turn it off
    for i in range(3):
        assert run_memlode("store", f"fact number {i} about caching", cwd=workdir).returncode == 0
    code, out, terminal = _with_terminal_stderr("embed", cwd=workdir)
    assert code == 0, terminal
    assert "embedding memories" in terminal and "3/3" in terminal
    assert "embedded 3 memories" in out
    # in a pipe: the summary only
    for i in range(3, 5):
        run_memlode("store", f"fact number {i} about caching", cwd=workdir)
    piped = run_memlode("embed", cwd=workdir)
    assert piped.returncode == 0 and piped.stderr == ""
    # --json on a terminal: no bar either
    run_memlode("store", "one more fact about caching", cwd=workdir)
    code, out, terminal = _with_terminal_stderr("embed", "--json", cwd=workdir)
    assert code == 0 and '"embedded": 1' in out
    assert "embedding" not in terminal
