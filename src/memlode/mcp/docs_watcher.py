"""Watching memory files while the MCP server runs (``memlode mcp --watch``).

The watcher runs ``memlode.engine.watch.watch_docs`` in a daemon thread with an engine of its own
(SQLite connections are not shared across threads) and wakes the background embedder after
each re-index so new chunks get vectors.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.config import Settings

if TYPE_CHECKING:
    from memlode.engine import EngineOpener

__all__ = ["DocsWatcher"]

log = logging.getLogger(__name__)


class DocsWatcher:
    def __init__(
        self,
        settings: Settings,
        cwd: Path,
        on_change: Callable[[], None] | None = None,
        open_engine: EngineOpener | None = None,
    ) -> None:
        self.settings = settings
        self.cwd = cwd
        self.on_change = on_change
        self.open_engine = open_engine  # the server's (shared embedder); else a plain Engine
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.reports = 0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="memlode-docs-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _indexed(self, report: dict[str, Any]) -> None:
        self.reports += 1
        log.info("memory files re-indexed: %s", report)
        if self.on_change is not None:
            self.on_change()

    def _run(self) -> None:
        from memlode.engine import Engine
        from memlode.engine.watch import watch_docs

        try:
            opened = self.open_engine() if self.open_engine else Engine(self.settings, cwd=self.cwd)
            with opened as engine:
                watch_docs(engine, cwd=self.cwd, stop_event=self._stop, on_index=self._indexed)
        except Exception:  # the server keeps serving without the watcher
            log.exception("the memory-file watcher stopped")
