"""Background embedding: the long-lived server fills in vectors for rows stored without one.

Hooks and quick CLI calls store text only; whatever long-lived process runs next embeds it. The
worker is a daemon thread with its own ``Engine`` (its own SQLite connection: connections are not
shared across threads). It works in small batches, each a short transaction, so tool calls on
the server's connection are never held up for long, and sleeps between rounds. A store or update
through the server wakes it at once. When no memory waits, it embeds pending code symbols
(``memlode.engine.code.vectors``), a batch at a time from one plan kept between rounds: what
``memlode index`` leaves to the store's resident.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.config import Settings
from memlode.errors import MissingDependency

if TYPE_CHECKING:
    from memlode.engine import Engine, EngineOpener

__all__ = ["BackgroundEmbedder"]

log = logging.getLogger(__name__)

# Batch size: large enough to amortise a model call, small enough that one round (and its write
# transaction) takes well under a second with the local model.
DEFAULT_BATCH_SIZE = 32
# How long to sleep when nothing is pending; a write through the server wakes the worker early,
# so this only bounds the delay for rows written by other processes (hooks, the CLI).
DEFAULT_IDLE_SECONDS = 15.0
# Let the server answer its first requests (initialize, tools/list) before loading a model.
DEFAULT_START_DELAY = 1.0
# Pause between two full rounds while a backlog is worked off: other threads get the CPU and the
# database between rounds (a waiting writer's busy handler retries within milliseconds; the
# write lock is taken only for the round's last transaction). The resident's rounds are 4 rows,
# ~0.1 s with the local model: a pause of 50 ms made a large backlog (the symbols `memlode index`
# leaves) take half as long again.
_YIELD_SECONDS = 0.01
# Back-off after a failure (locked database, embedder down), doubling up to the maximum.
_FAILURE_BACKOFF = 5.0
_MAX_BACKOFF = 300.0


class BackgroundEmbedder:
    """Runs ``engine.embed_pending`` in batches on its own thread until stopped."""

    def __init__(
        self,
        settings: Settings,
        *,
        cwd: Path | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        idle_seconds: float = DEFAULT_IDLE_SECONDS,
        start_delay: float = DEFAULT_START_DELAY,
        open_engine: EngineOpener | None = None,
        defer: Callable[[], float] | None = None,
    ) -> None:
        self.settings = settings
        # Seconds to hold off before the next round (a resident process answering hooks gives
        # them the CPU first: memlode.resident.server); None or 0: go on.
        self.defer = defer
        self.cwd = cwd
        self.open_engine = open_engine  # the server's (shared embedder); else a plain Engine
        self.batch_size = batch_size
        self.idle_seconds = idle_seconds
        self.start_delay = start_delay
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._state = "not started"
        self._embedded = 0
        self._rounds = 0
        self._last_error: str | None = None
        self._last_round_at: float | None = None
        self._last_work_at: float | None = None  # the last round that embedded anything

    # ---- control ----------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="memlode-embedder", daemon=True)
        self._set_state("starting")
        self._thread.start()

    def wake(self) -> None:
        """Ask for a round now (new rows were written)."""
        self._wake.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to finish and wait for it (once); a daemon thread cannot block exit."""
        if self._stop.is_set():
            return
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("background embedder still busy after %.0f s; leaving it", timeout)

    def last_work_at(self) -> float | None:
        """``time.monotonic()`` of the last round that embedded anything (None before one): a
        resident is not idle while its backlog is being worked off."""
        with self._lock:
            return self._last_work_at

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {
                "state": self._state,
                "embedded_since_start": self._embedded,
                "rounds": self._rounds,
                "last_error": self._last_error,
                "seconds_since_last_round": (
                    round(time.monotonic() - self._last_round_at, 1)
                    if self._last_round_at is not None
                    else None
                ),
                "batch_size": self.batch_size,
            }

    # ---- the thread -------------------------------------------------------------------------

    def _set_state(self, state: str, error: str | None = None) -> None:
        with self._lock:
            self._state = state
            if error is not None:
                self._last_error = error

    def _run(self) -> None:
        if self._stop.wait(self.start_delay):
            self._set_state("stopped")
            return
        try:
            if self.open_engine is not None:
                engine = self.open_engine()
            else:
                from memlode.engine import Engine

                engine = Engine(self.settings, cwd=self.cwd)
        except Exception as exc:  # the tools report storage problems; here we only stop
            log.warning("background embedder cannot open the store: %s", exc)
            self._set_state("failed", str(exc))
            return
        try:
            self._loop(engine)
        finally:
            engine.close()
            if self._state not in ("unavailable", "failed"):
                self._set_state("stopped")

    def _loop(self, engine: Engine) -> None:
        # imported here: constructing the worker stays cheap (``memlode mcp`` builds one before
        # it answers its first ``tools/list``; this pulls in the engine)
        from memlode.engine.code import SymbolBacklog

        symbols = SymbolBacklog()  # planned once per change of the code, not once per round
        backoff = _FAILURE_BACKOFF
        while not self._stop.is_set():
            wait = self.defer() if self.defer is not None else 0.0
            if wait > 0:
                self._set_state("deferring")
                if self._stop.wait(wait):
                    return
                continue
            self._wake.clear()
            self._set_state("embedding")
            try:
                done = engine.embed_pending(limit=self.batch_size, batch_size=self.batch_size)
                if done < self.batch_size:
                    # code symbols last: what the hooks stored is recalled first
                    done += symbols.embed(engine, self.batch_size - done)
            except MissingDependency as exc:
                log.warning("background embedding is off: %s", exc)
                self._set_state("unavailable", str(exc))
                return
            except Exception as exc:
                log.warning("background embedding failed (retrying in %.0f s): %s", backoff, exc)
                self._set_state("waiting after error", f"{type(exc).__name__}: {exc}")
                self._wake.clear()  # a failure is not fixed by more writes; wait it out
                if self._stop.wait(backoff):
                    return
                backoff = min(backoff * 2, _MAX_BACKOFF)
                continue
            backoff = _FAILURE_BACKOFF
            if done == 0 and engine.embeddings.error is not None:
                # No embedder (model missing, provider down): recall runs on text search alone.
                self._set_state("unavailable", engine.embeddings.error)
                return
            with self._lock:
                self._embedded += done
                self._rounds += 1
                self._last_round_at = time.monotonic()
                if done:
                    self._last_work_at = self._last_round_at
                self._last_error = None
            if done >= self.batch_size:
                # More may be pending: go on, but yield so tool calls get the database.
                if self._stop.wait(_YIELD_SECONDS):
                    return
                continue
            self._set_state("idle")
            self._wake.wait(self.idle_seconds)
