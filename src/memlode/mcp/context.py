"""What every tool module gets: the settings, one engine behind a lock, and the error mapping.

The SDK runs synchronous tools on worker threads, possibly several at once. One SQLite
connection must not run two transactions at the same time, so tool calls take turns on the
engine through a lock; the background embedder has its own connection and never waits for it.
The engine is opened on first use, so the server answers ``initialize`` and ``tools/list``
without touching the database.

Every engine of the server process (the tools', the background embedder's, the resident
vector socket's, the memory-file watcher's) comes from ``open_engine``, which gives it the
server's one embedder: the local model is loaded once per process, not once per thread (each
copy is ~90 MB and a second or two of CPU to load). Embedders are safe to share between threads
(``CachedEmbedder`` locks its cache; the local model locks its loading).

Errors: a ``MemlodeError`` (bad input, unknown id, storage failure) becomes a ``ToolError``
whose text says what to change; the SDK turns it into an ``isError`` result the model reads.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError

from memlode.config import Settings
from memlode.errors import (
    InvalidInput,
    MemlodeError,
    MissingDependency,
    NotFound,
    StorageError,
    is_unreachable,
)
from memlode.project import detect_namespace
from memlode.storage.sql import is_server_error

if TYPE_CHECKING:
    from memlode.embed import Embedder
    from memlode.engine import Engine
    from memlode.types import SearchHit

__all__ = ["ToolContext", "tool_error"]

log = logging.getLogger(__name__)

T = TypeVar("T")

WARM_UP_QUERY = "memlode server warm up"


def tool_error(exc: BaseException) -> ToolError:
    """The ``ToolError`` a model can act on for an exception raised by the engine."""
    if isinstance(exc, NotFound):
        return ToolError(
            f"{exc}. Check the id: recall_memory or get_decision_chain list ids, "
            "list_namespaces lists namespaces."
        )
    if isinstance(exc, MissingDependency):
        return ToolError(str(exc))
    if isinstance(exc, InvalidInput):
        return ToolError(f"invalid argument: {exc}")
    if isinstance(exc, StorageError | sqlite3.Error):
        return ToolError(
            f"storage failure: {exc}. The call was not applied; retry it, and if it keeps "
            "failing ask the user to run `memlode stats` (the database may be locked, "
            "read-only or damaged)."
        )
    if isinstance(exc, MemlodeError):
        return ToolError(str(exc))
    return ToolError(f"{type(exc).__name__}: {exc}; the call was not applied")


class ToolContext:
    """Shared state of one server: settings, the current project, a lazily opened engine."""

    def __init__(
        self,
        settings: Settings,
        *,
        cwd: Path | None = None,
        on_write: Callable[[], None] | None = None,
    ) -> None:
        self.settings = settings
        self.cwd = cwd or Path.cwd()
        # Same rule as Engine: an explicit namespace wins, else the project of the working dir.
        self.namespace = (
            settings.namespace if settings.namespace is not None else detect_namespace(self.cwd)
        )
        self._on_write = on_write
        self._lock = threading.Lock()
        self._engine: Engine | None = None
        self._closed = False
        self._embedder_lock = threading.Lock()
        self._embedder: Embedder | None = None
        self._embedder_made = False
        self.extras: dict[str, Callable[[], object]] = {}  # status reporters (e.g. the embedder)
        # True while this server hosts the store's resident (memlode.mcp.resident): then the
        # warm engine is this process's own and nothing is asked of another one
        self.hosts_resident: Callable[[], bool] = lambda: False

    @property
    def namespace_label(self) -> str:
        return self.namespace or "(no project)"

    def set_write_listener(self, listener: Callable[[], None] | None) -> None:
        self._on_write = listener

    @contextmanager
    def engine(self) -> Iterator[Engine]:
        """The engine, held exclusively for the block."""
        with self._lock:
            if self._closed:
                raise StorageError("the server is shutting down; no more calls are served")
            if self._engine is None:
                self._engine = self.open_engine()
            try:
                yield (engine := self._engine)
            except Exception as exc:
                # a PostgreSQL server restarted or away: the next call opens a new engine (the
                # old one's connection is broken for good)
                if self.settings.db_url is not None and is_unreachable(exc):
                    self._engine = None
                    with suppress(Exception):
                        engine.close()
                raise

    def open_engine(self) -> Engine:
        """A new engine on the server's store (the caller closes it) that embeds with the
        server's shared embedder. Without one (provider ``none``, or it cannot be made) the
        engine keeps its own lazy embedder, which records the same error for the tools."""
        from memlode.engine import Engine

        engine = Engine(self.settings, cwd=self.cwd)
        embedder = self.shared_embedder()
        if embedder is not None:
            engine.embeddings.use_embedder(embedder)
        return engine

    def shared_embedder(self) -> Embedder | None:
        """The process's one embedder, made on first use (cheap: the model loads on first
        ``embed``); None when embeddings are off or unavailable."""
        with self._embedder_lock:
            if not self._embedder_made:
                self._embedder_made = True
                from memlode.embed import make_embedder

                try:
                    self._embedder = make_embedder(self.settings, self.settings.home / "models")
                except MemlodeError as exc:
                    log.info("no shared embedder; each engine reports why: %s", exc)
            return self._embedder

    def search_elsewhere(
        self,
        query: str,
        k: int,
        *,
        namespace: str | None,
        memory_types: Sequence[str] | None,
        tags: Sequence[str] | None,
        sources: Sequence[str],
    ) -> tuple[list[SearchHit], str] | None:
        """``Engine.search`` answered by the store's resident when another process serves it
        (one the SessionStart hook started, another server): its model and indexes are warm,
        so a first recall does not open an engine and load a model here. None (then search
        here) when this server hosts the resident, none runs, or it cannot answer in time."""
        if self.hosts_resident():
            return None
        from memlode.resident_client.client import search_scoped

        return search_scoped(
            self.settings,
            query,
            k,
            scope=namespace,
            memory_types=memory_types,
            tags=tags,
            sources=sources,
            namespace=self.namespace,
            catch_up=True,
        )

    def run(self, fn: Callable[[Engine], T], *, writes: bool = False) -> T:
        """``fn(engine)`` with engine errors turned into tool errors the model can act on."""
        try:
            with self.engine() as engine:
                result = fn(engine)
        except ToolError:
            raise
        except (MemlodeError, sqlite3.Error) as exc:
            raise tool_error(exc) from exc
        except Exception as exc:
            if is_server_error(exc):  # the PostgreSQL server's (a lost connection, a lock)
                raise tool_error(StorageError(str(exc).strip() or type(exc).__name__)) from exc
            # A bug, not bad input: keep the traceback in the log, tell the model what happened
            # (a local server; the text helps the user report it) and that retrying won't help.
            log.exception("MCP tool call failed unexpectedly")
            raise ToolError(
                f"internal error in memlode ({type(exc).__name__}: {exc}); the call was not "
                "applied and retrying will not help; tell the user"
            ) from exc
        if writes and self._on_write is not None:
            self._on_write()
        return result

    def read_resource(self, fn: Callable[[Engine], T]) -> T:
        """Like ``run`` for resources: unknown ids are "not found", the rest resource errors."""
        try:
            with self.engine() as engine:
                return fn(engine)
        except NotFound as exc:
            raise ResourceNotFoundError(str(exc)) from exc
        except (MemlodeError, sqlite3.Error) as exc:
            raise ResourceError(str(tool_error(exc))) from exc

    def warm_up(self) -> None:
        """Open the engine and search once now - the embedder's model, the vector and text
        indexes, the search modules' imports - so the first recall does not wait for them.

        Runs on a background thread; a tool call that arrives meanwhile waits on the lock, as it
        would have waited for the same loading anyway. A search writes nothing. Failures are
        left for the tools to report.
        """
        try:
            with self.engine() as engine:
                for _ in range(2):  # the second search starts the in-memory text index's build
                    engine.search(WARM_UP_QUERY, 1)
                text_index = engine.text_index
            text_index.wait()  # outside the lock: a tool call need not wait for the build
        except Exception as exc:
            log.info("warm-up failed (the tools will report it): %s", exc)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._engine is not None:
                self._engine.close()
                self._engine = None
