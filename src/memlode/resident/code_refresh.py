"""The resident's code refresher: files the assistant edits are re-indexed moments later.

The PostToolUse hook marks each file an Edit, Write or MultiEdit changed (``storage.code_dirty``,
in the transaction of its observation: no extra cost to the hook). This thread polls the marks
(one query of a table that is nearly always empty), waits until a burst of edits has settled
(``DEBOUNCE_SECONDS`` after the newest mark), and re-indexes the marked files that lie in an
indexed project (``engine.code.fresh``). It then rebuilds the graph state of the namespaces
that changed (centrality and the session map the SessionStart hook prints), once per burst:
while newer marks wait, they are re-indexed first.

It runs on its own thread with its own engine (its own SQLite connection), so hook recall and
background embedding never wait for it, nor it for them. After a round that changed code it
calls ``on_change`` (the resident wakes its background embedder: the re-indexed symbols'
vectors are pending now, ``engine.code.vectors``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.types import parse_ts, utcnow

if TYPE_CHECKING:
    from memlode.config import Settings
    from memlode.engine import Engine

__all__ = ["DEBOUNCE_SECONDS", "POLL_SECONDS", "CodeRefresher"]

log = logging.getLogger(__name__)

# An assistant's edits come in bursts (a MultiEdit, then an Edit of the next hunk a second
# later); 300 ms after the last one is the debounce of `memlode watch` (engine/watch.py) too.
DEBOUNCE_SECONDS = 0.3
# How often the marks are looked at: a query of an (almost always) empty table costs tens of
# microseconds, and 0.1 s keeps the wait after a burst close to the debounce.
POLL_SECONDS = 0.1
# After a failed round (a store busy past its timeout, a full disk), wait this long.
ERROR_BACKOFF_SECONDS = 5.0


class CodeRefresher:
    """Re-index marked files on a thread until stopped; see the module doc."""

    def __init__(
        self,
        settings: Settings,
        *,
        cwd: Path | None = None,
        on_change: Callable[[], None] | None = None,
        debounce: float = DEBOUNCE_SECONDS,
        poll: float = POLL_SECONDS,
    ) -> None:
        self.settings = settings
        self.cwd = cwd
        self.on_change = on_change
        self.debounce = debounce
        self.poll = poll
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._rounds = 0
        self._files = 0
        self._last_error: str | None = None
        self._last_seconds: float | None = None

    def start(self) -> CodeRefresher:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="memlode-code-refresh", daemon=True
            )
            self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {
                "rounds": self._rounds,
                "files": self._files,
                "last_seconds": self._last_seconds,
                "last_error": self._last_error,
            }

    def _run(self) -> None:
        from memlode.engine import Engine

        try:  # its own engine: a re-index never holds the requests' one (and needs no model)
            engine = Engine(self.settings, cwd=self.cwd)
        except Exception as exc:
            log.warning("code refresher: cannot open the store: %s", exc)
            return
        stale: set[str] = set()  # namespaces re-indexed whose graph state waits for a quiet spell
        try:
            while not self._stop.wait(self.poll):
                try:
                    stale = self._round(engine, stale)
                except Exception as exc:
                    log.warning("code refresher: re-indexing edited files failed: %s", exc)
                    with self._lock:
                        self._last_error = str(exc)
                    self._stop.wait(ERROR_BACKOFF_SECONDS)
        finally:
            engine.close()

    def _round(self, engine: Engine, stale: set[str]) -> set[str]:
        """One look at the marks; the namespaces whose graph state is still to rebuild."""
        from memlode.engine.code import pending_marks, refresh_graphs, reindex_marked

        marks = pending_marks(engine)
        if not marks:
            if stale:
                refresh_graphs(engine, sorted(stale))
            return set()
        newest = max(parse_ts(m[1]) for m in marks)
        if (utcnow() - newest).total_seconds() < self.debounce:
            return stale  # the burst goes on
        started = time.perf_counter()
        report = reindex_marked(engine, marks, refresh_graph=False)
        seconds = time.perf_counter() - started
        changed = sum(len(r["changed_files"]) for r in report["roots"])
        with self._lock:
            self._rounds += 1
            self._files += changed
            self._last_seconds = round(seconds, 4)
            self._last_error = None
        if changed:
            log.info("code refresher: re-indexed %d edited files in %.3f s", changed, seconds)
        if report["namespaces"] and self.on_change is not None:
            self.on_change()
        return stale | set(report["namespaces"])
