"""Building and running the MCP server (official ``mcp`` SDK, 2.x: ``MCPServer``).

``build_server`` wires a ``ToolContext`` (settings, one lazily opened engine), every registered
tool module and, as the server's lifespan, the background embedder. ``serve_stdio`` and
``serve_http`` run it. Over stdio, stdout carries protocol messages only: the SDK points fd 1 at
stderr while it serves, and anything that may print while the server is being built is
redirected to stderr here. Over HTTP every request needs the bearer token kept in the home, and
Host/Origin headers must name the address served (``memlode.mcp.http_auth``).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode import __version__
from memlode.config import Settings
from memlode.errors import StorageError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from memlode.engine.embed_worker import BackgroundEmbedder
    from memlode.mcp.context import ToolContext
    from memlode.mcp.docs_watcher import DocsWatcher
    from memlode.mcp.resident import ResidentVectors

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MemlodeServer",
    "build_server",
    "serve_http",
    "serve_stdio",
]

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
_LOOPBACK = ("127.0.0.1", "localhost", "::1")
HTTP_PATH = "/mcp"
# Seconds after start before the engine, its embedder, the background embedder and the hosted
# resident are started in the background: clients send initialize and tools/list at once, and
# those should not compete with a model load or the engine's imports.
WARM_UP_DELAY = 0.5

# Bound with the warm-up when the tools are listed from the home: the tool an assistant's
# session calls first (INSTRUCTIONS), so that its first call does not build it.
FIRST_TOOL = "recall_memory"

# memlode.engine.embed_worker.DEFAULT_BATCH_SIZE (not imported before the server starts: it
# imports the engine); shown by the embedder's status until it starts.
_EMBED_BATCH_SIZE = 32

INSTRUCTIONS = """\
memlode is this project's long-term memory: decisions and their reasons, patterns, preferences,
insights, kept across sessions. Before deciding something, call recall_memory (or
get_decision_chain for a file or topic) to see what was already decided. When a decision is made,
a convention is agreed, or something non-obvious is learned, store it with store_memory (one
self-contained memory each, with the right memory_type and a few tags), and link related memories
with associate_memories. The default namespace is the current project: {project}."""


@dataclass
class MemlodeServer:
    """The SDK server plus what it runs on; ``close`` releases the engine."""

    server: MCPServer[Any]
    context: ToolContext
    embedder: _LaterEmbedder | None
    tool_modules: list[str]

    def close(self) -> None:
        if self.embedder is not None:
            self.embedder.stop()
        self.context.close()


def build_server(
    settings: Settings,
    *,
    cwd: Path | None = None,
    embed_in_background: bool = True,
    modules: list[str] | None = None,
    watch_docs: bool = False,
) -> MemlodeServer:
    """The configured server (nothing is opened until the first tool call or the lifespan).

    With every module (``modules`` None) and the lists of an earlier start in the home, the
    tools are not built here: the lists are answered from there and each tool is bound on its
    first call (``memlode.mcp.listing``).
    """
    # Anything printed while the SDK and the tool modules import must not reach stdout.
    with contextlib.redirect_stdout(sys.stderr):
        from memlode.mcp.context import ToolContext
        from memlode.mcp.listing import ListedServer, Listing
        from memlode.mcp.resident import ResidentVectors

        ctx = ToolContext(settings, cwd=cwd)
        # Every engine below comes from ctx.open_engine: one embedder (one model) per process.
        # The background embedder is made when the server starts its workers (its module
        # imports the engine, which the first tools/list does not need).
        embedder = _LaterEmbedder(settings, ctx) if embed_in_background else None
        if embedder is not None:
            ctx.set_write_listener(embedder.wake)
            ctx.extras["background_embedder"] = embedder.status
        listing = Listing.for_context(ctx)
        listed = modules is None and listing.load()
        # The store's resident (hooks' recall, memlode search): hosted here unless another
        # process serves it, or autostart is off (memlode.mcp.resident).
        workers = _Workers(ctx, embedder, ResidentVectors(settings, ctx.cwd, ctx.open_engine))
        ctx.hosts_resident = lambda: workers.resident.hosting
        if watch_docs:
            from memlode.mcp.docs_watcher import DocsWatcher

            workers.watcher = DocsWatcher(
                settings,
                ctx.cwd,
                embedder.wake if embedder is not None else None,
                open_engine=ctx.open_engine,
            )
        server = ListedServer(
            "memlode",
            title="memlode",
            description="Persistent, local-first memory for AI coding assistants",
            instructions=INSTRUCTIONS.format(project=ctx.namespace_label),
            version=__version__,
            lifespan=workers.lifespan,
            log_level=_sdk_log_level(),
        )
        server.listing = listing
        listing.attach(server)
        if listed:
            done = list(listing.modules)
            workers.bind_first = lambda: listing.bind_tool(FIRST_TOOL)
        else:
            from memlode.mcp.registry import register_all

            done = register_all(server, ctx, modules)
            listing.mark_all_bound()
            if modules is None:
                workers.save_lists = lambda: listing.save(server, done)
    return MemlodeServer(server, ctx, embedder, done)


class _LaterEmbedder:
    """The server's ``BackgroundEmbedder``, made when it starts (``start``): until then writes
    are remembered (its first round embeds them anyway) and its status says "not started"."""

    def __init__(self, settings: Settings, ctx: ToolContext) -> None:
        self.settings = settings
        self.ctx = ctx
        self.worker: BackgroundEmbedder | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        from memlode.engine.embed_worker import BackgroundEmbedder

        with self._lock:
            if self.worker is None:
                self.worker = BackgroundEmbedder(
                    self.settings, cwd=self.ctx.cwd, open_engine=self.ctx.open_engine
                )
            self.worker.start()

    def wake(self) -> None:
        if self.worker is not None:
            self.worker.wake()

    def stop(self) -> None:
        with self._lock:
            if self.worker is not None:
                self.worker.stop()

    def status(self) -> dict[str, Any]:
        if self.worker is not None:
            return self.worker.status()
        return {
            "state": "not started",
            "embedded_since_start": 0,
            "rounds": 0,
            "last_error": None,
            "seconds_since_last_round": None,
            "batch_size": _EMBED_BATCH_SIZE,
        }


@dataclass
class _Workers:
    """What runs beside the tools for the server's lifetime (its lifespan)."""

    ctx: ToolContext
    embedder: _LaterEmbedder | None
    resident: ResidentVectors
    watcher: DocsWatcher | None = None
    save_lists: Callable[[], Awaitable[None]] | None = None
    bind_first: Callable[[], None] | None = None  # the tools a session calls first
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stopped: bool = False

    def _start_later(self) -> None:
        """Start the embedder, the watcher and the resident, then open the engine: after the
        client's opening requests (initialize, tools/list) have been answered, so none of it
        (the engine's imports, numpy, the resident's) delays them."""
        with self._lock:
            if self._stopped:
                return
            if self.embedder is not None:
                self.embedder.start()
            if self.watcher is not None:
                self.watcher.start()
            try:
                self.resident.start()
            except OSError as exc:  # no socket: the hooks use BM25 alone
                log.info("resident vector socket not started: %s", exc)
        if self.bind_first is not None:
            self.bind_first()
        self.ctx.warm_up()

    @contextlib.asynccontextmanager
    async def lifespan(self, _: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
        later = threading.Timer(WARM_UP_DELAY, self._start_later)
        later.daemon = True
        later.start()
        if self.save_lists is not None:
            await self.save_lists()
        try:
            yield {}
        finally:
            later.cancel()
            with self._lock:
                self._stopped = True
            self.resident.stop()
            if self.watcher is not None:
                self.watcher.stop()
            if self.embedder is not None:
                self.embedder.stop()
            self.ctx.close()


def _sdk_log_level() -> Any:
    """The SDK configures logging only when nothing else did; match the root logger's level."""
    return logging.getLevelName(logging.getLogger().getEffectiveLevel())


def serve_stdio(
    settings: Settings, *, embed_in_background: bool = True, watch_docs: bool = False
) -> None:
    """Serve over stdin/stdout until the client closes the pipe."""
    import anyio

    built = build_server(settings, embed_in_background=embed_in_background, watch_docs=watch_docs)
    try:
        anyio.run(built.server.run_stdio_async)
    finally:
        built.close()


def serve_http(
    settings: Settings,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    embed_in_background: bool = True,
    watch_docs: bool = False,
) -> None:
    """Serve streamable HTTP on ``http://host:port/mcp`` until interrupted.

    Only requests with ``Authorization: Bearer <token>`` (the token in ``$MEMLODE_HOME``,
    generated on first use) reach the server; the rest get 401.
    """
    import anyio
    import uvicorn

    from memlode.mcp.http_auth import BearerTokenAuth, transport_security
    from memlode.owner_only import http_token

    try:
        token = http_token(settings.home)
    except OSError as exc:
        raise StorageError(f"cannot set up the HTTP server's token: {exc}") from None
    built = build_server(settings, embed_in_background=embed_in_background, watch_docs=watch_docs)
    app = built.server.streamable_http_app(
        streamable_http_path=HTTP_PATH, host=host, transport_security=transport_security(host)
    )
    # log_config=None: uvicorn keeps to our stderr logging (its default sends access lines to
    # stdout); access lines are off, requests are the client's business.
    config = uvicorn.Config(
        BearerTokenAuth(app, token),
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        log_level=logging.getLogger().getEffectiveLevel(),
        lifespan="on",
    )
    if host not in _LOOPBACK:
        log.warning(
            "serving on %s: the bearer token is all that keeps others on the network from your "
            "memories, and it travels in clear text over plain HTTP; prefer 127.0.0.1",
            host,
        )
    print(
        f"memlode: MCP server on http://{host}:{port}{HTTP_PATH} (clients send "
        "'Authorization: Bearer <token>'; `memlode mcp --print-token` shows it)",
        file=sys.stderr,
        flush=True,
    )
    try:
        anyio.run(uvicorn.Server(config).serve)
    finally:
        built.close()
