"""The resident's side of the hook spool of a PostgreSQL store: apply each spooled hook event
once, in order, and hand the hooks that wait what they print.

The hooks of a PostgreSQL store append their events to the store's spool
(``memlode.resident_client.spool``, ``memlode.hooks.handoff``). ``HookQueue`` applies the lines
through the hooks' own handlers (the ``hook-runner`` interface, ``memlode.hooks.handoff.apply``)
on a connection of its own to the store, one line at a time under one lock:

- ``answer`` (the ``hook`` request): a hook that waits (SessionStart, UserPromptSubmit) has the
  spool applied up to its line and gets its output; one that does not wait only wakes the
  queue's thread;
- the thread applies whatever is new whenever it is woken and every ``POLL_SECONDS`` (lines
  spooled while no resident ran are replayed when it starts);
- after each line the offset is recorded (``spool.write_offset``), so a line is applied once,
  also across restarts; the spool is emptied once every line is applied.

A line whose handler fails on its data is logged and skipped (it would fail again); when the
server cannot be reached the queue stops at that line, reconnects and retries it after
``RETRY_SECONDS``, so that an outage loses nothing.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from memlode.config import Settings
from memlode.resident_client import spool
from memlode.resident_client.paths import spool_path

__all__ = ["POLL_SECONDS", "HookQueue"]

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25  # the spool is looked at this often even when no hook says so
RETRY_SECONDS = 2.0  # after the server could not be reached
KEEP_ANSWERS_SECONDS = 60.0  # an applied line's output waits this long for its hook
# psycopg's errors of the connection, not of the data: retried, never skipped
CONNECTION_ERRORS = frozenset({"OperationalError", "InterfaceError"})

Ranker = Callable[[str, str, str, int], "list[Any] | None"]
Frequencies = Callable[[list[str]], "tuple[int, dict[str, int]] | None"]


class HookQueue:
    """Apply one store's spooled hook events (see the module)."""

    def __init__(
        self, settings: Settings, database: str, ranker: Ranker, frequencies: Frequencies
    ) -> None:
        self.settings = settings
        self.path = spool_path(str(settings.home), database)
        self.ranker = ranker
        self.frequencies = frequencies
        self.applied = 0  # lines applied by this process
        self.skipped = 0  # lines whose handler failed on their data
        self._apply_lock = threading.Lock()
        self._answers: dict[str, tuple[float, str | None]] = {}  # id -> (when, output)
        self._answered = threading.Condition()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._retry_at = 0.0
        self._store: Any = None
        self._runner: Any = None
        self._thread: threading.Thread | None = None

    def start(self) -> HookQueue:
        self._thread = threading.Thread(target=self._loop, name="memlode-hook-queue", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(10.0)
        with self._apply_lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def status(self) -> dict[str, Any]:
        return {"applied": self.applied, "skipped": self.skipped, "spool": self.path}

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The ``hook`` request: apply up to the hook's line when it waits (its output), else
        wake the thread."""
        ident = str(request["id"])
        if request.get("wait") is not True:
            self._wake.set()
            return {"ok": True, "output": None}
        self.drain(until=ident)
        with self._answered:
            found = self._answers.pop(ident, None)
        return {"ok": True, "output": found[1] if found is not None else None}

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(POLL_SECONDS)
            self._wake.clear()
            if self._stop.is_set():
                return
            try:
                self.drain()
            except Exception:  # a bug must not end the queue
                log.exception("hook queue: applying the spool failed")

    def drain(self, until: str | None = None) -> None:
        """Apply the spool's new lines in order: all of them, or up to the line ``until``."""
        with self._apply_lock:
            if time.monotonic() < self._retry_at:
                return
            offset = spool.read_offset(self.path)
            while not self._stop.is_set():
                lines = spool.read_from(self.path, offset)
                if not lines:
                    break
                for end, text in lines:
                    if self._stop.is_set():
                        return
                    entry = _parse(text)
                    ident = str(entry.get("id", "")) if entry is not None else ""
                    fresh = entry is not None and ident not in self._answers
                    if fresh and entry is not None and not self._apply(entry, ident):
                        return  # the server is away: this line again later
                    offset = end
                    spool.write_offset(self.path, offset)
                    if until is not None and ident == until:
                        return
            spool.empty_if_done(self.path, offset)
            self._forget_old()

    def _apply(self, entry: dict[str, Any], ident: str) -> bool:
        """Apply one line; False when the server could not be reached (not applied)."""
        from memlode.storage.sql import is_server_error

        wait_ms = entry.get("wait_ms")
        began = entry.get("t")
        waited = (
            isinstance(wait_ms, int | float)
            and isinstance(began, int | float)
            and (time.time() - began) * 1000 < wait_ms
        )
        try:
            output = self._run(entry, waited)
        except Exception as exc:
            if is_server_error(exc) and type(exc).__name__ in CONNECTION_ERRORS:
                log.warning("hook queue: the server is away (%s); retrying", exc)
                self._reconnect()
                return False
            self.skipped += 1
            log.warning("hook queue: event %s skipped: %r", entry.get("event"), exc)
            output = None
        self.applied += 1
        with self._answered:
            self._answers[ident] = (time.monotonic(), output)
            self._answered.notify_all()
        return True

    def _run(self, entry: dict[str, Any], waited: bool) -> str | None:
        if self._runner is None:
            from memlode import interfaces

            self._runner = interfaces.load("hook-runner")  # memlode.hooks.handoff.apply
        if self._store is None:
            from memlode.storage import open_store

            self._store = open_store(self.settings.store, created_by=self.settings.author)
        output: str | None = self._runner(
            self._store,
            entry,
            ranker=self.ranker if waited else None,
            waited=waited,
            frequencies=self.frequencies,
        )
        return output

    def _reconnect(self) -> None:
        self._retry_at = time.monotonic() + RETRY_SECONDS
        store, self._store = self._store, None
        if store is not None:
            try:
                store.close()
            except Exception as exc:  # a broken connection may fail to close
                log.debug("hook queue: closing the old connection: %s", exc)

    def _forget_old(self) -> None:
        cutoff = time.monotonic() - KEEP_ANSWERS_SECONDS
        with self._answered:
            for ident in [k for k, (when, _) in self._answers.items() if when < cutoff]:
                del self._answers[ident]


def _parse(text: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(text.decode("utf-8", "replace"))
    except ValueError:
        log.warning("hook queue: a spool line is not JSON; skipped")
        return None
    return value if isinstance(value, dict) else None
