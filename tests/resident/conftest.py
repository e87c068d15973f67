"""Fixtures for the resident tests: real resident processes on real stores, always stopped.

Every resident a test starts (by ``memlode resident``, by a SessionStart hook, ...) is found
afterwards through the lock files under the test's folder and stopped (SIGTERM, then SIGKILL),
so that no test leaves a process behind.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.resident.support import MEMORIES, stop_holder

from memlode.config import Settings
from memlode.engine import Engine


@pytest.fixture(autouse=True)
def residents_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Residents may start here (the suite's default is off); all are stopped at the end."""
    monkeypatch.setenv("MEMLODE_RESIDENT_AUTOSTART", "1")
    monkeypatch.setenv("MEMLODE_RESIDENT_IDLE", "120")  # a leak would end by itself
    yield
    for lock in tmp_path.rglob("run/*.lock"):
        stop_holder(lock)


@pytest.fixture
def filled(workdir: Path) -> Iterator[Engine]:
    """The test's store (namespace of ``workdir``) with ``MEMORIES``, every row embedded."""
    engine = Engine(Settings.load({}), cwd=workdir)
    try:
        for content, kind in MEMORIES:
            engine.store(content, kind)
        engine.embed_pending()
        yield engine
    finally:
        engine.close()
