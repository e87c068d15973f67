"""Fixtures for memory files and docs: a project with memory files, and an engine opened in it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memlode.config import Settings
from memlode.engine import Engine


@pytest.fixture
def project(workdir: Path) -> Path:
    """The ``workdir`` project (namespace 'proj') with a MEMORY.md and one note."""
    (workdir / "MEMORY.md").write_text(
        "# Project memory\n\n## Decisions\n\nAuthentication tokens live in SQLite with WAL.\n"
    )
    (workdir / "memory").mkdir()
    (workdir / "memory" / "caching.md").write_text(
        "# Caching\n\nRedis eviction uses the allkeys-lru policy for session caching.\n"
    )
    return workdir


@pytest.fixture
def proj_engine(project: Path) -> Iterator[Engine]:
    """An engine opened in the project, as the CLI would open it (namespace 'proj')."""
    eng = Engine(Settings.load(), cwd=project)
    try:
        yield eng
    finally:
        eng.close()


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory that belongs to no project (docs-only mode)."""
    folder = tmp_path / "loose"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder
