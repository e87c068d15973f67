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
- exactly once: a line's handler runs inside one write transaction that also records the
  line's id (``storage.hook_events.claim``); a line whose id is recorded already is not run
  again. After each line the offset is recorded (``spool.write_offset``), so that lines are
  not even read twice; a resident killed between its commit and its offset finds the id.
  The spool is emptied once every line is applied.

A line whose handler fails on its data is logged and skipped (it would fail again; its id is
recorded all the same). When the server cannot be reached (``errors.is_unreachable``: through
memlode's wrapping of the driver's errors) the queue stops at that line, drops its connection
and retries it: by its thread after a backoff that doubles from ``RETRY_FIRST_SECONDS`` up to
``RETRY_MAX_SECONDS``, and at the next hook's word if ``RETRY_FIRST_SECONDS`` have passed. An
outage loses nothing and skips nothing. The last failure, and the recovery, are recorded beside
the spool (``spool.write_state``) for ``memlode doctor`` and the dashboard.
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
# After the server could not be reached: the first retry in 1 s (a restart takes a few), then
# doubling, at most every 30 s (a laptop offline for hours costs one connection try per 30 s).
RETRY_FIRST_SECONDS = 1.0
RETRY_MAX_SECONDS = 30.0
KEEP_ANSWERS_SECONDS = 60.0  # an applied line's output waits this long for its hook

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
        self.replayed = 0  # lines read again whose id was applied already (not run again)
        self._apply_lock = threading.Lock()
        self._answers: dict[str, tuple[float, str | None]] = {}  # id -> (when, output)
        self._answered = threading.Condition()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._retry_at = 0.0  # the thread's next try after a failure
        self._failed_at = 0.0  # the last failure (monotonic); 0: the last apply went through
        self._delay = 0.0  # the current backoff
        self._pruned = False
        self._state_checked = False  # a failure recorded by an earlier resident cleared
        self._hook_woke = False  # a hook's word came since the thread last looked
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
        return {
            "applied": self.applied,
            "skipped": self.skipped,
            "replayed": self.replayed,
            "spool": self.path,
        }

    def failing(self) -> bool:
        """Does the last try to apply stand failed (the server away)?"""
        return self._failed_at > 0

    def busy_at(self) -> float:
        """Now (monotonic) while lines wait for a server that is away, else 0: the resident
        does not idle out before they are applied (no hook may come to start another)."""
        return time.monotonic() if self._failed_at > 0 else 0.0

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The ``hook`` request: apply up to the hook's line when it waits (its output), else
        wake the thread."""
        ident = str(request["id"])
        if request.get("wait") is not True:
            self._hook_woke = True
            self._wake.set()
            return {"ok": True, "output": None}
        self.drain(until=ident, by_hook=True)
        with self._answered:
            found = self._answers.pop(ident, None)
        return {"ok": True, "output": found[1] if found is not None else None}

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(POLL_SECONDS)
            self._wake.clear()
            by_hook, self._hook_woke = self._hook_woke, False
            if self._stop.is_set():
                return
            try:
                self.drain(by_hook=by_hook)
            except Exception:  # a bug must not end the queue
                log.exception("hook queue: applying the spool failed")

    def drain(self, until: str | None = None, *, by_hook: bool = False) -> None:
        """Apply the spool's new lines in order: all of them, or up to the line ``until``.
        After a failure: not before the backoff's time, or ``RETRY_FIRST_SECONDS`` after it
        when a hook asks (``by_hook``)."""
        with self._apply_lock:
            now = time.monotonic()
            if now < self._retry_at and not (
                by_hook and now >= self._failed_at + RETRY_FIRST_SECONDS
            ):
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
        from memlode.errors import is_unreachable

        wait_ms = entry.get("wait_ms")
        began = entry.get("t")
        waited = (
            isinstance(wait_ms, int | float)
            and isinstance(began, int | float)
            and (time.time() - began) * 1000 < wait_ms
        )
        try:
            ran, output = self._run(entry, ident, waited)
        except Exception as exc:  # the way to the store (the handler's errors are caught in _run)
            if not is_unreachable(exc):  # not the driver's: a bug, still never a lost line
                log.exception("hook queue: applying a line failed; retrying")
            self._failed(exc)
            return False
        if self._failed_at or not self._state_checked:
            self._recovered()
        if ran:
            self.applied += 1
        else:
            self.replayed += 1
        with self._answered:
            self._answers[ident] = (time.monotonic(), output)
            self._answered.notify_all()
        return True

    def _run(self, entry: dict[str, Any], ident: str, waited: bool) -> tuple[bool, str | None]:
        """The handler and the line's id in one write transaction (the handler's own
        transactions join it): both are stored or neither. A line whose id is stored already
        runs no handler. The handler's failure on its data rolls back its rows only (a
        savepoint) and is logged: the line counts as applied, skipped. A failure of the
        connection propagates (nothing of the line is stored). (whether the handler ran, what
        its hook prints)"""
        from memlode.errors import is_unreachable
        from memlode.storage import hook_events

        if self._runner is None:
            from memlode import interfaces

            self._runner = interfaces.load("hook-runner")  # memlode.hooks.handoff.apply
        if self._store is None:
            from memlode.storage import open_store

            self._store = open_store(self.settings.store, created_by=self.settings.author)
        store = self._store
        if not self._pruned:
            with store.write() as conn:
                hook_events.prune(conn)
            self._pruned = True
        event = str(entry.get("event", ""))
        output: str | None = None
        with store.write() as conn:
            if not ident or not hook_events.claim(conn, ident, event):
                if ident:
                    log.info("hook queue: event %s %s was applied already", event, ident)
                return False, None
            try:
                with store.write():  # a savepoint: the handler's rows, not the claim
                    output = self._runner(
                        store,
                        entry,
                        ranker=self.ranker if waited else None,
                        waited=waited,
                        frequencies=self.frequencies,
                    )
            except Exception as exc:
                if is_unreachable(exc):
                    raise
                self.skipped += 1
                log.warning("hook queue: event %s skipped: %r", event, exc)
                output = None
        return True, output

    def _failed(self, exc: BaseException) -> None:
        now = time.monotonic()
        self._delay = min(RETRY_MAX_SECONDS, max(RETRY_FIRST_SECONDS, self._delay * 2))
        self._retry_at = now + self._delay
        first = not self._failed_at
        self._failed_at = now
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if first:
            log.warning("hook queue: the server is away (%s); retrying", reason)
        else:
            log.info("hook queue: still away (%s); next try in %.0f s", reason, self._delay)
        state = spool.read_state(self.path)
        since = state.get("since") if first is False and state.get("failed") else None
        spool.write_state(
            self.path,
            {
                "failed": True,
                "error": reason,
                "since": since if isinstance(since, int | float) else time.time(),
                "retry_at": time.time() + self._delay,
            },
        )
        store, self._store = self._store, None
        if store is not None:
            try:
                store.close()
            except Exception as error:  # a broken connection may fail to close
                log.debug("hook queue: closing the old connection: %s", error)

    def _recovered(self) -> None:
        self._state_checked = True
        if not self._failed_at and not spool.read_state(self.path).get("failed"):
            return
        log.warning("hook queue: the server is back; applying the spool")
        self._failed_at = 0.0
        self._delay = 0.0
        self._retry_at = 0.0
        spool.write_state(self.path, {"failed": False, "error": None, "since": time.time()})

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
