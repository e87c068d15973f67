"""The watcher: an edit is re-indexed without anyone asking (event-driven, no sleeps)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.docs import memory_search
from memlode.engine.watch import watch_docs

# Generous: the watcher normally reacts within the debounce (50 ms here) plus a poll tick.
TIMEOUT = 20.0


class Running:
    def __init__(self, project: Path) -> None:
        self.reports: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(project,), daemon=True)

    def _run(self, project: Path) -> None:
        try:
            with Engine(Settings.load(), cwd=project) as engine:
                watch_docs(
                    engine,
                    cwd=project,
                    stop_event=self.stop,
                    debounce_ms=50,
                    on_index=self.reports.put,
                )
        except BaseException as exc:
            self.error = exc
            self.reports.put({"error": repr(exc)})

    def wait_for(self, predicate: Any) -> dict[str, Any]:
        """The first report that satisfies ``predicate`` (fails after TIMEOUT)."""
        while True:
            report = self.reports.get(timeout=TIMEOUT)
            assert "error" not in report, report
            if predicate(report):
                return report


@pytest.fixture
def watcher(project: Path) -> Iterator[Running]:
    running = Running(project)
    running.thread.start()
    running.wait_for(lambda r: r.get("initial"))
    yield running
    running.stop.set()
    running.thread.join(TIMEOUT)
    assert not running.thread.is_alive(), "the watcher stops when asked"
    assert running.error is None


def search(project: Path, query: str) -> list[dict[str, Any]]:
    with Engine(Settings.load(), cwd=project) as engine:
        return list(memory_search(engine, query, cwd=project)["results"])


def test_initial_index_then_an_edit_is_picked_up(project: Path, watcher: Running) -> None:
    assert search(project, "Authentication SQLite")[0]["ref"] == "MEMORY.md"
    with (project / "MEMORY.md").open("a") as fh:
        fh.write("\nThe staging cluster is called zephyrhawk.\n")
    report = watcher.wait_for(lambda r: r.get("indexed"))
    assert str(project / "MEMORY.md") in report["paths"]
    hits = search(project, "zephyrhawk staging")
    assert hits and hits[0]["ref"] == "MEMORY.md"


def test_new_and_deleted_notes_are_picked_up(project: Path, watcher: Running) -> None:
    (project / "memory" / "fresh.md").write_text("Quokka migration finished.\n")
    watcher.wait_for(lambda r: r.get("indexed"))
    assert search(project, "quokka migration")[0]["ref"] == "memory/fresh.md"
    (project / "memory" / "caching.md").unlink()
    watcher.wait_for(lambda r: r.get("removed"))
    assert "memory/caching.md" not in [h["ref"] for h in search(project, "redis eviction")]


def test_a_memory_folder_created_later_is_watched(tmp_path: Path, workdir: Path) -> None:
    running = Running(workdir)
    running.thread.start()
    try:
        running.wait_for(lambda r: r.get("initial"))
        (workdir / "memory").mkdir()
        (workdir / "memory" / "later.md").write_text("Narwhal release train.\n")
        running.wait_for(lambda r: r.get("indexed"))
        assert search(workdir, "narwhal release")[0]["ref"] == "memory/later.md"
    finally:
        running.stop.set()
        running.thread.join(TIMEOUT)
    assert not running.thread.is_alive()
