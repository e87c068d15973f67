"""`memlode watch --code`: code changed on disk (not through the assistant) is re-indexed as it
changes, keeping to .gitignore; the docs watching goes on beside it."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import run_memlode

from memlode.config import Settings
from memlode.engine import Engine
from memlode.engine.code import watch_code

# Generous: a change is normally re-indexed within the debounce plus a tick.
TIMEOUT = 30.0

CORE = "def parse_order(text):\n    return text\n\n\ndef main():\n    return parse_order('x')\n"


@pytest.fixture
def indexed(workdir: Path) -> Path:
    (workdir / "shop").mkdir()
    (workdir / "shop/__init__.py").write_text("")
    (workdir / "shop/orders.py").write_text(CORE)
    (workdir / ".gitignore").write_text("out/\n")
    done = run_memlode("index", cwd=workdir)
    assert done.returncode == 0, done.stderr
    return workdir


def _named(workdir: Path, name: str) -> list[dict[str, Any]]:
    done = run_memlode("symbols", name, "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    return [h for h in json.loads(done.stdout) if h["name"] == name]


class Watching:
    """``watch_code`` on a thread with its own engine; its reports in a queue."""

    def __init__(self, project: Path) -> None:
        self.reports: queue.Queue[dict[str, Any]] = queue.Queue()
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(project,), daemon=True)

    def _run(self, project: Path) -> None:
        try:
            with Engine(Settings.load(), cwd=project) as engine:
                watch_code(engine, stop_event=self.stop, debounce_ms=50, on_index=self.reports.put)
        except BaseException as exc:
            self.error = exc
            self.reports.put({"error": repr(exc)})

    def wait_for(self, predicate: Any) -> dict[str, Any]:
        while True:
            report = self.reports.get(timeout=TIMEOUT)
            assert "error" not in report, report
            if predicate(report):
                return report


@pytest.fixture
def watching(indexed: Path) -> Iterator[Watching]:
    running = Watching(indexed)
    running.thread.start()
    running.wait_for(lambda r: r.get("initial"))
    yield running
    running.stop.set()
    running.thread.join(TIMEOUT)
    assert not running.thread.is_alive(), "the watcher stops when asked"
    assert running.error is None


def _changed(report: dict[str, Any]) -> list[str]:
    return [f for root in report.get("roots", []) for f in root["changed_files"]]


def test_an_edit_on_disk_is_reindexed(indexed: Path, watching: Watching) -> None:
    (indexed / "shop/orders.py").write_text(CORE.replace("parse_order", "read_order"))
    report = watching.wait_for(lambda r: "shop/orders.py" in _changed(r))
    assert report["graph"]  # centrality and the session map rebuilt after the batch
    assert _named(indexed, "read_order") and not _named(indexed, "parse_order")


def test_ignored_and_skipped_files_are_not_indexed(indexed: Path, watching: Watching) -> None:
    (indexed / "out").mkdir()
    (indexed / "out/gen.py").write_text("def generated_thing():\n    pass\n")
    (indexed / "node_modules").mkdir()
    (indexed / "node_modules/dep.py").write_text("def vendored_thing():\n    pass\n")
    # a later change of an indexed file: its report comes after the earlier events'
    (indexed / "shop/extra.py").write_text("def extra_thing():\n    pass\n")
    watching.wait_for(lambda r: "shop/extra.py" in _changed(r))
    assert _named(indexed, "extra_thing")
    assert not _named(indexed, "generated_thing") and not _named(indexed, "vendored_thing")


def test_the_cli_watches_code_beside_the_docs(indexed: Path, tmp_path: Path) -> None:
    args = ["watch", "--code", "--no-initial", "--debounce", "50"]
    with (
        (tmp_path / "watch.err").open("w") as err,
        subprocess.Popen(
            [sys.executable, "-m", "memlode", *args],
            cwd=indexed,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        ) as proc,
    ):
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=_read_lines, args=(proc, lines), daemon=True).start()
        try:
            seen = _until(lines, ["watching code in", "watching for changes"])
            (indexed / "shop/orders.py").write_text(CORE.replace("parse_order", "load_order"))
            seen += _until(lines, ["code re-indexed: shop/orders.py"])
            assert _named(indexed, "load_order") and not _named(indexed, "parse_order")
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                proc.kill()  # a failure, not a suite that hangs in Popen's exit
                raise
    assert proc.returncode == 0, (tmp_path / "watch.err").read_text()


def _read_lines(proc: subprocess.Popen[str], lines: queue.Queue[str]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.put(line)


def _until(lines: queue.Queue[str], starts: list[str]) -> list[str]:
    """Lines read until one starting with each of ``starts`` came (fails after TIMEOUT)."""
    seen: list[str] = []
    deadline = time.monotonic() + TIMEOUT
    while not all(any(x.startswith(s) for x in seen) for s in starts):
        seen.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
    return seen
