"""Long work shows a bar on a terminal and nothing in a pipe or with --json."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import run_memlode, run_with_terminal_stderr


def test_embed_draws_a_bar_on_a_terminal_only(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMLODE_EMBED_PROVIDER", "hash")  # this folder's tests turn it off
    for i in range(3):
        assert run_memlode("store", f"fact number {i} about caching", cwd=workdir).returncode == 0
    code, out, terminal = run_with_terminal_stderr("embed", cwd=workdir)
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
    code, out, terminal = run_with_terminal_stderr("embed", "--json", cwd=workdir)
    assert code == 0 and '"embedded": 1' in out
    assert "embedding" not in terminal


def test_import_draws_a_bar_on_a_terminal_only(workdir: Path, tmp_path: Path) -> None:
    for i in range(3):
        assert run_memlode("store", f"fact number {i} about queues", cwd=workdir).returncode == 0
    export = tmp_path / "out.jsonl"
    assert run_memlode("export", str(export), cwd=workdir).returncode == 0
    env = {"MEMLODE_HOME": str(tmp_path / "other-home")}
    code, out, terminal = run_with_terminal_stderr("import", str(export), cwd=workdir, env=env)
    assert code == 0, terminal
    assert "importing" in terminal and "3/3" in terminal  # three memories, no edges or sessions
    assert "imported 3 memories" in out
    env = {"MEMLODE_HOME": str(tmp_path / "third-home")}
    code, out, terminal = run_with_terminal_stderr(
        "import", str(export), "--json", cwd=workdir, env=env
    )
    assert code == 0 and '"memories_added": 3' in out
    assert "importing" not in terminal
    piped = run_memlode("import", str(export), cwd=workdir, env=env)
    assert piped.returncode == 0 and piped.stderr == ""
