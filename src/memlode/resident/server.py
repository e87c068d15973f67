"""The resident's server: the lock, the socket, the warm engine, idle exit, background embedding.

One ``ResidentServer`` serves one store. It runs in two hosts:

- ``memlode resident --foreground`` (started detached by the SessionStart hook, by ``memlode
  index`` for the symbol vectors it leaves, or by ``memlode resident``): it opens its own
  engine, embeds pending rows and symbols on a background thread
  (``memlode.engine.embed_worker.BackgroundEmbedder``, the MCP server's worker), re-indexes the
  files the hooks saw edited on another (``memlode.resident.code_refresh``), and exits after
  ``idle_seconds`` without a request or a round of embedding, when asked to stop, when its
  database file is removed or replaced (a deleted test folder, a file copied over it): a new
  one serves the new file, or when ``config.toml`` changes (a new embedder or weights): a new
  one reads it.
- on a PostgreSQL store, the hooks' events: they spool them, and it applies them with the
  hooks' own handlers (``memlode.resident.hook_queue``), in both hosts; there is no code index
  to refresh on a server.
- ``memlode mcp`` hosts it on a thread, with an engine of its own (so that a long tool call
  never holds up a hook) made by the server's opener (the server's one embedder and vector
  index); the server's own worker embeds. It does not idle out, and waits in standby while
  another process holds the store's lock, taking over when that one exits.

Order of a start: take the lock (or leave: another resident serves the store), remove a socket
file left by a crashed predecessor (holding the lock proves it is stale), bind the socket
owner-only (umask 077, then chmod 0600, in a 0700 folder; on Linux a peer of another user is
refused by its credentials as well), write the owner line into the lock file, answer ``ping``
at once, and warm the engine (the model, the vector index, the in-memory text index) on a
thread; requests that need the engine wait for it.

Connections are handled on short threads, at most ``MAX_CONNECTIONS`` at once; the engine is
held by one request at a time (one SQLite connection). Between requests the server refreshes
the text and vector indexes every ``KEEP_WARM_SECONDS``, so a prompt after a burst of hook
writes does not pay for catching up.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode import __version__
from memlode.config import Settings
from memlode.errors import MemlodeError, is_unreachable
from memlode.resident.code_refresh import CodeRefresher
from memlode.resident.files import identity, read_line, same_user, stamp
from memlode.resident.hook_queue import HookQueue
from memlode.resident.protocol import QUERY_OPS, Answerer, EngineSession
from memlode.resident_client.client import embedding_settings
from memlode.resident_client.lock import ResidentLock
from memlode.resident_client.paths import (
    database_path,
    lock_path,
    private_dir_ok,
    run_dir,
    socket_path,
)

if TYPE_CHECKING:
    from memlode.embed import Embedder
    from memlode.engine import Engine
    from memlode.engine.embed_worker import BackgroundEmbedder

__all__ = ["EMBED_BATCH", "QUIET_AFTER_REQUEST", "ResidentServer"]

log = logging.getLogger(__name__)

ACCEPT_TICK = 0.25  # seconds between checks of the stop flag while no client connects
READ_TIMEOUT = 2.0  # a client has this long to send its request line
MAX_CONNECTIONS = 16
DB_CHECK_SECONDS = 2.0  # how often the database file is checked for removal or replacement
KEEP_WARM_SECONDS = 20.0
# Consolidation (memlode.engine.consolidation) is checked for being due this long after start,
# then every CONSOLIDATE_CHECK_SECONDS; it runs on its own thread and engine (its writes are short
# transactions), so requests and the hooks never wait for it.
CONSOLIDATE_FIRST_CHECK = 5.0
CONSOLIDATE_CHECK_SECONDS = 600.0
# Whether a session ended since the last reflect run is asked every reflect_check_seconds
# (a count over the sessions table); when one did, the reflect cycle runs on the same thread,
# whatever the interval, so that the next session's briefing has what the last one left open.
STANDBY_RETRY_SECONDS = 10.0  # memlode mcp: how often it tries to take over a store's lock
# Background embedding gives way to requests: rounds of a few rows (a request that arrives
# during one waits for it; with the local model a row is ~20-45 ms of CPU on the project's
# 2-core machine, whatever the batch size: bench_resident.py), none while a request runs, and
# none for QUIET_AFTER_REQUEST seconds after one (a prompt is followed by tool calls that store
# rows, and a burst of prompts is served before the backlog).
EMBED_BATCH = 4
QUIET_AFTER_REQUEST = 2.0
WARM_UP_QUERY = "memlode resident warm up"


class ResidentServer:
    """Serve one store's resident socket until stopped, idle, or the store goes away."""

    def __init__(
        self,
        settings: Settings,
        *,
        idle_seconds: float = 0.0,
        host: str = "resident",
        engine_session: EngineSession | None = None,
        open_engine: Callable[[], Engine] | None = None,
        on_request: Callable[[], None] | None = None,
        embed_in_background: bool = True,
        status_extra: Callable[[], dict[str, Any]] | None = None,
    ) -> None:
        self.settings = settings
        self.home = str(settings.home)
        # the store's identity: its resolved file, or its URL without the password
        self.database = database_path(self.home, str(settings.store))
        self.on_server = settings.db_url is not None
        self.idle_seconds = max(0.0, idle_seconds)
        self.host = host
        self.lock = ResidentLock(lock_path(self.home, self.database))
        self.socket_path = socket_path(self.home, self.database)
        self.started_at = time.time()
        self.exit_reason = ""
        self.ready = threading.Event()
        self._stop = threading.Event()
        self._last_request = time.monotonic()
        self._last_query = 0.0
        self._in_flight = 0
        self._flight_lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._socket_id: tuple[int, int] | None = None
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._engine: Engine | None = None
        self._engine_lock = threading.Lock()
        self._embedder_lock = threading.Lock()
        self._shared: Embedder | None = None
        self._shared_made = False
        self._worker: BackgroundEmbedder | None = None
        self._code: CodeRefresher | None = None
        self._hooks: HookQueue | None = None  # a PostgreSQL store's spooled hook events
        self._thread: threading.Thread | None = None
        self._consolidating: threading.Thread | None = None
        self._on_request = on_request
        self._opener = open_engine if open_engine is not None else self._open_engine
        self._embed_in_background = embed_in_background
        session = engine_session if engine_session is not None else self._own_engine
        self.answerer = Answerer(
            settings,
            self.database,
            session,
            info=self.info,
            on_request=self._note_request,
            on_stop=self._stop_request if host == "resident" else None,
            status_extra=status_extra or self._status_extra,
            on_hook=self._hook_event if self.on_server else None,
        )
        self._engine_session = session
        self._db_identity = None if self.on_server else identity(Path(self.database))
        self._config_stamp = stamp(settings.config_file)

    # ---- facts ------------------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        return {
            "db": self.database,
            "pid": os.getpid(),
            "host": self.host,
            "socket": self.socket_path,
            "version": __version__,
            "started_at": self.started_at,
            "ready": self.ready.is_set(),
            "answered": self.answerer.served,
            "idle_exit_seconds": self.idle_seconds,
            "idle_for_seconds": round(time.monotonic() - self._last_request, 1),
            "embedding": embedding_settings(self.settings),  # whose vectors it makes
        }

    def _status_extra(self) -> dict[str, Any]:
        return {
            "background_embedder": self._worker.status() if self._worker else None,
            "code_refresher": self._code.status() if self._code else None,
            "hook_queue": self._hooks.status() if self._hooks else None,
        }

    # ---- the engine -------------------------------------------------------------------------

    @contextlib.contextmanager
    def _own_engine(self) -> Iterator[Engine]:
        with self._engine_lock:
            if self._engine is None:
                self._engine = self._opener()
            try:
                yield (engine := self._engine)
            except Exception as exc:  # a server restart: a new engine next (the old one broken)
                if self.on_server and is_unreachable(exc):
                    self._engine = None
                    with contextlib.suppress(Exception):
                        engine.close()
                raise

    def _open_engine(self) -> Engine:
        """An engine on the store that embeds with the process's one embedder (one model)."""
        from memlode.engine import Engine

        engine = Engine(self.settings, cwd=Path(self.home))
        embedder = self._shared_embedder()
        if embedder is not None:
            engine.embeddings.use_embedder(embedder)
        return engine

    def _shared_embedder(self) -> Embedder | None:
        with self._embedder_lock:
            if not self._shared_made:
                self._shared_made = True
                from memlode.embed import make_embedder

                try:
                    self._shared = make_embedder(self.settings, self.settings.home / "models")
                except MemlodeError as exc:
                    log.info("no embedder; recall runs on text alone: %s", exc)
            return self._shared

    def _note_request(self, op: str) -> None:
        self._last_request = time.monotonic()
        if op in QUERY_OPS:
            self._last_query = self._last_request
        if self._worker is not None:
            self._worker.wake()  # the hook that asks has probably just stored rows
        if self._on_request is not None:
            self._on_request()

    def _hook_event(self, request: dict[str, Any]) -> dict[str, Any]:
        if self._hooks is None:  # not serving yet: the line waits in the spool
            return {"ok": True, "output": None}
        return self._hooks.answer(request)

    def _stop_request(self) -> bool:
        self.exit_reason = self.exit_reason or "asked to stop"
        self._stop.set()
        return True

    # ---- running ----------------------------------------------------------------------------

    def acquire(self) -> bool:
        """Take the store's lock; False when another process serves the store."""
        from memlode.owner_only import make_private_dir

        make_private_dir(run_dir(self.home))
        return self.lock.acquire()

    def run(self) -> str:
        """Serve until stopped (the lock must be held); the reason it stopped."""
        if not self.lock.locked:
            raise RuntimeError("run() without the store's lock")
        try:
            self._bind()
            self.lock.write_owner(self.info())
            log.info("resident for %s listening on %s", self.database, self.socket_path)
            if self._embed_in_background:
                self._start_worker()
            wake = self._worker.wake if self._worker is not None else None  # symbols to embed
            if self.on_server:  # hooks spool their events: apply them (the code index is local)
                answerer = self.answerer
                self._hooks = HookQueue(
                    self.settings,
                    self.database,
                    answerer.recall_hits,
                    answerer.document_frequencies,
                ).start()
            else:
                self._code = CodeRefresher(
                    self.settings, cwd=Path(self.home), on_change=wake
                ).start()
            warm = threading.Thread(target=self._warm_up, name="memlode-warm-up", daemon=True)
            warm.start()
            self._serve()
        finally:
            self.close()
        return self.exit_reason or "stopped"

    def start_in_background(self, *, standby: bool = True) -> None:
        """Serve on a thread (the MCP server's host): take the lock, or wait for it."""
        self._thread = threading.Thread(
            target=self._background, args=(standby,), name="memlode-resident", daemon=True
        )
        self._thread.start()

    def _background(self, standby: bool) -> None:
        try:
            while not self.acquire():
                if not standby:
                    log.info("another process serves %s; not hosting its resident", self.database)
                    return
                if self._stop.wait(STANDBY_RETRY_SECONDS):
                    return
            if not self._stop.is_set():
                self.run()
        except Exception:
            log.exception("the resident socket stopped")

    def stop(self, timeout: float = 5.0) -> None:
        """Ask to stop and wait for the serving thread (when it runs on one)."""
        self.exit_reason = self.exit_reason or "stopped"
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _bind(self) -> None:
        folder = os.path.dirname(self.socket_path)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not private_dir_ok(folder):
            raise OSError(f"{folder} is not a private folder of this user's; not listening there")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.socket_path)  # we hold the lock: whatever is there is stale
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o077)
        try:
            listener.bind(self.socket_path)
        finally:
            os.umask(old_umask)
        os.chmod(self.socket_path, 0o600)
        info = os.stat(self.socket_path)
        self._socket_id = (info.st_dev, info.st_ino)
        listener.listen(64)
        listener.settimeout(ACCEPT_TICK)
        self._listener = listener

    def _start_worker(self) -> None:
        from memlode.engine.embed_worker import BackgroundEmbedder

        self._worker = BackgroundEmbedder(
            self.settings,
            cwd=Path(self.home),
            batch_size=EMBED_BATCH,
            open_engine=self._open_engine,
            defer=self._embed_later,
        )
        self._worker.start()

    def _embed_later(self) -> float:
        """Seconds the background embedder should wait: requests come first."""
        if self._in_flight:
            return ACCEPT_TICK
        return max(0.0, QUIET_AFTER_REQUEST - (time.monotonic() - self._last_query))

    def _warm_up(self) -> None:
        """Load the model and the indexes now, so that the first hook does not wait for them."""
        try:
            with self._engine_session() as engine:
                for _ in range(2):  # the second search starts the in-memory text index's build
                    engine.search(WARM_UP_QUERY, 1)
                text_index = engine.text_index
            text_index.wait()
        except Exception as exc:
            log.warning("warm-up failed (requests will report it): %s", exc)
        self.ready.set()

    def _serve(self) -> None:
        assert self._listener is not None
        last_check = last_warm = time.monotonic()
        next_consolidation = last_check + CONSOLIDATE_FIRST_CHECK
        reflect_every = max(1.0, self.settings.reflect_check_seconds)
        next_reflection = next_consolidation + reflect_every
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                conn = None
            except OSError as exc:
                log.warning("resident socket failed: %s", exc)
                self.exit_reason = f"socket failed: {exc}"
                return
            if conn is not None:
                self._slots.acquire()
                threading.Thread(
                    target=self._handle, args=(conn,), name="memlode-request", daemon=True
                ).start()
                continue
            now = time.monotonic()
            if self.idle_seconds and now - self._last_busy() >= self.idle_seconds:
                self.exit_reason = f"idle for {self.idle_seconds:g} s"
                return
            if now - last_check >= DB_CHECK_SECONDS:
                last_check = now
                reason = self._store_gone()
                if reason:
                    self.exit_reason = reason
                    return
            if now - last_warm >= KEEP_WARM_SECONDS and now - self._last_request >= ACCEPT_TICK:
                last_warm = now
                self._keep_warm()
            if now >= next_consolidation:
                next_consolidation = now + CONSOLIDATE_CHECK_SECONDS
                self._consolidate_when_due()
            elif now >= next_reflection:
                next_reflection = now + reflect_every
                self._consolidate_when_due(reflect_only=True)

    def _last_busy(self) -> float:
        """The last request, embedding round or spool retry: a backlog delays the idle exit."""
        worked = self._worker.last_work_at() if self._worker is not None else None
        spooled = self._hooks.busy_at() if self._hooks is not None else 0.0
        return max(self._last_request, worked or 0.0, spooled)

    def _handle(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(READ_TIMEOUT)
            if not same_user(conn):
                return
            raw = read_line(conn)
            if not raw.strip():
                return
            with self._flight_lock:
                self._in_flight += 1
            try:
                reply = self.answerer.answer_line(raw)
            finally:
                with self._flight_lock:
                    self._in_flight -= 1
                self._last_request = time.monotonic()
            conn.sendall(reply)
        except OSError as exc:  # the client gave up (a hook past its deadline)
            log.debug("resident: client went away: %s", exc)
        finally:
            conn.close()
            self._slots.release()

    def _store_gone(self) -> str:
        current = None if self.on_server else identity(Path(self.database))
        if current is None and not self.on_server:
            return "the database file was removed"
        if self._db_identity is not None and current != self._db_identity:
            return "the database file was replaced"
        if self._socket_id is not None and identity(Path(self.socket_path)) != self._socket_id:
            return "the socket file was removed or replaced"
        if self.host == "resident" and stamp(self.settings.config_file) != self._config_stamp:
            return "config.toml changed"  # the next start reads it (embedder, weights, ...)
        return ""

    def _consolidate_when_due(self, *, reflect_only: bool = False) -> None:
        every = self.settings.consolidate_every_hours
        if every <= 0 or (self._consolidating is not None and self._consolidating.is_alive()):
            return  # 0: no automatic consolidation, reflection included
        self._consolidating = threading.Thread(
            target=self._consolidate,
            args=(reflect_only,),
            name="memlode-consolidate",
            daemon=True,
        )
        self._consolidating.start()

    def _consolidate(self, reflect_only: bool) -> None:
        from memlode.engine.consolidation import REFLECT, consolidate, reflection_due, run_due

        try:
            with self._opener() as engine:
                # each scheduled cycle whose own interval has passed (engine: schedule)
                runs = [] if reflect_only else run_due(engine)
                if runs:
                    log.info("resident: consolidated (%d cycle runs)", len(runs))
                if REFLECT not in {r.cycle for r in runs} and reflection_due(engine):
                    runs = consolidate(engine, cycles=(REFLECT,), namespace="*")
                    log.info("resident: reflected on ended sessions (%d runs)", len(runs))
        except Exception as exc:
            log.warning("resident: consolidation failed: %s", exc)

    def _keep_warm(self) -> None:
        """Fold other processes' writes into the indexes while nobody waits."""
        if not self._engine_lock.acquire(blocking=False):
            return
        try:
            engine = self._engine
            if engine is None:
                return
            engine.text_index.scorer(engine.conn)
            _ = engine.embeddings.index  # refreshed from the store on access
        except Exception as exc:
            log.info("resident: refreshing the indexes failed: %s", exc)
        finally:
            self._engine_lock.release()

    def close(self) -> None:
        """Stop serving: the socket (if still ours), the worker, the engine, then the lock."""
        if self._listener is not None:
            self._listener.close()
            self._listener = None
            if self._socket_id is not None and identity(Path(self.socket_path)) == self._socket_id:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.socket_path)
        if self._worker is not None:
            self._worker.stop()
        if self._code is not None:
            self._code.stop()
        if self._hooks is not None:
            self._hooks.stop()
        with self._engine_lock:
            if self._engine is not None:
                self._engine.close()
                self._engine = None
        self.lock.release()
        log.info("resident for %s stopped: %s", self.database, self.exit_reason or "stopped")
