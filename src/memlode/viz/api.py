"""The dashboard's JSON endpoints: each one parses its query, makes one engine call and answers
JSON; engine errors become 400 (bad input), 404 (not found) or 500 with their one-line message.

One engine serves every request, one call at a time (a lock: its SQLite connection is shared by
Starlette's worker threads). The search box calls ``Engine.search`` exactly as
``memlode search`` does (``catch_up`` first, then the same namespace, type, tag and source
parameters), so both rank alike; the time filter, which the CLI's search lacks, only drops hits
outside the range and keeps the order.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from memlode import __version__, validate
from memlode.engine import dashboard
from memlode.errors import InvalidInput, MemlodeError, NotFound
from memlode.hook_settings import TIMINGS_FILE
from memlode.types import MemoryType, NodeKind

if TYPE_CHECKING:
    from memlode.engine import Engine

__all__ = ["Api"]

Handler = Callable[[Request], Any]
CHECK_EVERY_S = 60.0  # the storage check's answer is kept this long


def _text(request: Request, name: str) -> str | None:
    value = request.query_params.get(name, "").strip()
    return value or None


def _list(request: Request, name: str) -> list[str]:
    return [part.strip() for part in (request.query_params.get(name) or "").split(",") if part]


def _when(request: Request, name: str) -> str | None:
    """A time bound in the stored format (validated as the CLI's --since/--until are)."""
    value = _text(request, name)
    return validate.timestamp(value, name) if value is not None else None


def _int(request: Request, name: str, default: int) -> int:
    value = request.query_params.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise InvalidInput(f"{name} must be a whole number") from None


async def _json_body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw:
        return {}
    try:
        body = json.loads(raw)
    except ValueError:
        raise InvalidInput("the request body is not JSON") from None
    if not isinstance(body, dict):
        raise InvalidInput("the request body must be a JSON object")
    return body


def _json(body: bytes) -> Response:
    return Response(body, media_type="application/json", headers={"cache-control": "no-store"})


def _in_range(created: str, since: str | None, until: str | None) -> bool:
    return (since is None or created >= since) and (until is None or created < until)


class Api:
    """The endpoints over one engine."""

    def __init__(self, engine: Engine, *, allow_edit: bool) -> None:
        self.engine = engine
        self.allow_edit = allow_edit
        self.lock = threading.Lock()
        # what -> (store version, mark, JSON): the graph's layout, the code overview and the
        # projection are recomputed only when what they read changed (``mark``), and the
        # mark is read again only when the store changed at all (``_version``)
        self._cache: dict[tuple[Any, ...], tuple[tuple[int, int], Any, Any]] = {}
        self._checked: tuple[float, dict[str, Any]] | None = None
        self._log_stamp: tuple[float | None, ...] | None = None
        self._writes = 0  # this engine's own commits, which SQLite's data version does not count

    def _version(self) -> tuple[int, int]:
        return (dashboard.data_version(self.engine), self._writes)

    def _remember(
        self, key: tuple[Any, ...], mark: Callable[[], Any], compute: Callable[[], Any]
    ) -> Any:
        """``compute()``, or what it gave last time if ``mark()`` has not changed since (and
        ``mark`` is not even read while the store's version stays)."""
        version = self._version()
        hit = self._cache.get(key)
        if hit is not None and hit[0] == version:
            return hit[2]
        now = mark()
        value = hit[2] if hit is not None and hit[1] == now else compute()
        self._cache[key] = (version, now, value)
        return value

    def _cached(
        self, key: tuple[Any, ...], mark: Callable[[], Any], compute: Callable[[], Any]
    ) -> Response:
        """``_remember`` for an answer kept as encoded JSON."""
        body = self._remember(
            key, mark, lambda: json.dumps(compute(), ensure_ascii=False, default=str).encode()
        )
        return _json(body)

    def _memory_mark(self, namespace: str | None) -> tuple[Any, ...]:
        mark = dashboard.change_mark(self.engine, namespace)
        return (mark["count"], mark["latest"], self.engine.pending_embeddings())

    def warm_up(self) -> None:
        """Load the embedder and run one search, so that the page's first search does not pay
        for a model load (run on a thread when the server starts; holds the lock as any call)."""
        # best effort: a failure here (or the server closing the engine meanwhile) only means
        # the first search loads the model itself
        with self.lock, contextlib.suppress(Exception):
            if self.engine.embeddings.embedder is not None:
                self.engine.search("memlode", 1)

    def routes(self) -> list[Route]:
        get, post = ["GET"], ["POST"]
        return [
            Route("/api/meta", self._wrap(self.meta), methods=get),
            Route("/api/search", self._wrap(self.search), methods=get),
            Route("/api/memories", self._wrap(self.memories), methods=get),
            Route("/api/memories/{id}", self._wrap(self.memory), methods=get),
            Route("/api/memories/{id}", self._wrap(self.edit), methods=post),
            Route("/api/memories/{id}/delete", self._wrap(self.delete), methods=post),
            Route("/api/graph", self._wrap(self.graph), methods=get),
            Route("/api/graph/neighbors", self._wrap(self.neighbors), methods=get),
            Route("/api/embeddings", self._wrap(self.embeddings), methods=get),
            Route("/api/sessions", self._wrap(self.sessions), methods=get),
            Route("/api/code", self._wrap(self.code), methods=get),
            Route("/api/health", self._wrap(self.health), methods=get),
            Route("/api/health/check", self._wrap(self.check), methods=get),
            Route("/api/changes", self._wrap(self.changes), methods=get),
        ]

    def locked(self, handler: Handler, request: Request) -> Any:
        """``handler(request)`` holding the engine's lock."""
        with self.lock:
            return handler(request)

    def _wrap(self, handler: Handler) -> Callable[[Request], Awaitable[Response]]:

        async def endpoint(request: Request) -> Response:
            try:
                if request.method == "POST":
                    request.state.body = await _json_body(request)
                result = await run_in_threadpool(self.locked, handler, request)
            except NotFound as exc:
                return JSONResponse({"error": str(exc)}, 404)
            except InvalidInput as exc:
                return JSONResponse({"error": str(exc)}, 400)
            except PermissionError as exc:
                return JSONResponse({"error": str(exc)}, 403)
            except MemlodeError as exc:
                return JSONResponse({"error": str(exc)}, 500)
            if isinstance(result, Response):
                return result
            return _json(json.dumps(result, ensure_ascii=False, default=str).encode())

        return endpoint

    # ---- reads ------------------------------------------------------------------------------

    def meta(self, request: Request) -> dict[str, Any]:
        return self._remember(  # type: ignore[no-any-return]
            ("meta",), lambda: self._memory_mark(None), self._meta
        )

    def _meta(self) -> dict[str, Any]:
        stats = self.engine.stats()
        return {
            "version": __version__,
            "allow_edit": self.allow_edit,
            "namespace": self.engine.namespace,
            "namespaces": self.engine.namespaces(),
            "types": [t.value for t in MemoryType],
            "kinds": [k.value for k in NodeKind],
            "sources": sorted(stats["by_source"]),
            "search_mode": dashboard.search_mode(self.engine, stats),
        }

    def search(self, request: Request) -> list[dict[str, Any]]:
        query = request.query_params.get("q", "")
        since, until = _when(request, "since"), _when(request, "until")
        if self.engine.catch_up():  # as `memlode search` does without a resident
            self._writes += 1
        hits = self.engine.search(
            query,
            _int(request, "k", 10),
            namespace=_text(request, "namespace"),
            memory_types=_text(request, "type"),
            tags=_text(request, "tags"),
            sources=_list(request, "source"),
        )
        # each hit says what replaced it, if anything did (``Engine.search``): the page marks it
        return [
            hit.to_dict(explain=True)
            for hit in hits
            if _in_range(hit.memory.created_at, since, until)
        ]

    def memories(self, request: Request) -> dict[str, Any]:
        return dashboard.browse(
            self.engine,
            namespace=_text(request, "namespace"),
            memory_types=_text(request, "type"),
            tags=_text(request, "tags"),
            sources=_list(request, "source"),
            since=_text(request, "since"),
            until=_text(request, "until"),
            sort=request.query_params.get("sort") or "newest",
            limit=_int(request, "limit", 50),
            offset=_int(request, "offset", 0),
        )

    def memory(self, request: Request) -> dict[str, Any]:
        return dashboard.memory_detail(self.engine, request.path_params["id"])

    def graph(self, request: Request) -> Response:
        namespace = _text(request, "namespace")
        kinds = _list(request, "kinds")
        limit = _int(request, "limit", dashboard.GRAPH_LIMIT)
        return self._cached(
            ("graph", namespace, ",".join(kinds), limit),
            lambda: dashboard.graph_fingerprint(self.engine, namespace),
            lambda: dashboard.graph_view(
                self.engine, namespace=namespace, kinds=kinds, limit=limit
            ),
        )

    def neighbors(self, request: Request) -> list[dict[str, Any]]:
        node_id = _text(request, "id")
        if node_id is None:
            raise InvalidInput("id is required")
        return dashboard.node_neighbors(self.engine, node_id)

    def embeddings(self, request: Request) -> Response:
        namespace = _text(request, "namespace")
        limit = _int(request, "limit", dashboard.PROJECTION_LIMIT)
        return self._cached(
            ("embeddings", namespace, limit),
            lambda: self._memory_mark(namespace),
            lambda: dashboard.projection(self.engine, namespace=namespace, limit=limit),
        )

    def sessions(self, request: Request) -> Response:
        namespace, limit = _text(request, "namespace"), _int(request, "limit", 50)
        return self._cached(  # recomputed on any change of the store
            ("sessions", namespace, limit),
            self._version,
            lambda: dashboard.session_timeline(self.engine, namespace=namespace, limit=limit),
        )

    def code(self, request: Request) -> Response:
        namespace = _text(request, "namespace")
        return self._cached(
            ("code", namespace),
            # the heat comes from the hooks' edits (memories): both marks
            lambda: (
                dashboard.graph_fingerprint(self.engine, namespace),
                self._memory_mark(None),
            ),
            lambda: dashboard.code_overview(self.engine, namespace=namespace),
        )

    def health(self, request: Request) -> Response:
        # the counts move with the store; the hooks' error and timing logs are files beside it
        home = self.engine.settings.home
        stamp = tuple(
            log.stat().st_mtime if log.exists() else None
            for log in (home / "hooks.log", home / TIMINGS_FILE)
        )
        if stamp != self._log_stamp:
            self._cache.pop(("health",), None)
            self._log_stamp = stamp
        body: bytes = self._remember(  # recomputed on any change of the store (weights, runs)
            ("health",),
            self._version,
            lambda: json.dumps(
                dashboard.health_report(self.engine), ensure_ascii=False, default=str
            ).encode(),
        )
        spooled = _hook_spool(self.engine.settings)  # files, not the store: never cached
        body = body[:-1] + b',"hook_spool":' + json.dumps(spooled).encode() + b"}"
        return _json(body)

    def check(self, request: Request) -> dict[str, Any]:
        """``Engine.health``, with SQLite's quick_check (it reads the whole file): run at most
        once a minute, and the Health page asks for it after it is drawn."""
        now = time.time()
        if self._checked is None or now - self._checked[0] > CHECK_EVERY_S:
            self._checked = (now, self.engine.health())
        return {**self._checked[1], "checked_at": self._checked[0]}

    def changes(self, request: Request) -> dict[str, Any]:
        return dashboard.change_mark(self.engine, _text(request, "namespace"))

    # ---- writes (--allow-edit) --------------------------------------------------------------

    def _check_edit(self) -> None:
        if not self.allow_edit:
            raise PermissionError("read-only: restart with `memlode viz --allow-edit` to edit")

    def edit(self, request: Request) -> dict[str, Any]:
        self._check_edit()
        body: dict[str, Any] = getattr(request.state, "body", {})
        changes = {k: body[k] for k in ("importance", "tags") if k in body}
        if not changes:
            raise InvalidInput("nothing to change: send importance and/or tags")
        self._writes += 1
        return self.engine.update(request.path_params["id"], **changes).to_dict()

    def delete(self, request: Request) -> dict[str, Any]:
        self._check_edit()
        memory_id = request.path_params["id"]
        self._writes += 1
        self.engine.delete(memory_id)
        return {"deleted": memory_id}


def _hook_spool(settings: Any) -> dict[str, Any] | None:
    """A PostgreSQL store's hook spool (``memlode.resident_client.spool.status``: lines waiting,
    bytes, the oldest's age, the last apply's failure), read fresh each time (a few file
    reads); None on a SQLite store (hooks write it themselves)."""
    from memlode.resident_client import spool

    report = spool.of_settings(settings)
    return None if report is None else {**report, "summary": spool.describe(report)}
