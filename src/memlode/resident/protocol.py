"""What the resident answers: one JSON object per request line, one per answer line.

Every request but ``ping`` names the database it is about (``db``); a request for another
database is refused (``{"error": ..., "code": "other-db"}``), so a client of one store never
gets another store's memories even if paths were mixed up.

    {"op": "ping"}
        -> {"ok": true, "db": "<resolved path>", "pid": 123, "host": "resident"|"mcp", ...}
    {"op": "status", "db": ...}
        -> ping's fields plus pending embeddings and the background embedder's state
    {"op": "recall", "db": ..., "query": "...", "namespace": "<project key>",
     "session_id": "...", "k": 8}
        -> {"hits": [{"id", "content", "memory_type", "source", "tags", "created_at",
                      "session_id", "importance", "score", "signals": {...}}]}
    {"op": "search", "db": ..., "query": "...", "k": 10, "namespace": "<project key>",
     "scope": null | "*" | "<name>", "memory_types": ..., "tags": ..., "sources": [...],
     "settings": {...}, "catch_up": false}
        -> {"hits": [<SearchHit.to_dict(explain=True) with the unrounded score and signals>],
            "scope": "<the namespace read>" | "*"}
    {"op": "vector_search", "db": ..., "query": "...", "namespace": "...", "k": 8}
        -> {"hits": [{"id", "score"}]}   (cosine; the old MCP socket's request, kept)
    {"op": "stop", "db": ...} -> {"ok": true}   (a resident hosted by ``memlode mcp`` refuses)
    {"op": "replacing", "db": ..., "id": "<a memory just stored>"}
        -> {"replaces": [ids], "may_replace": [ids]}   (``Engine.replacing``: what the rules
           linked it to, and the earlier statements on its subject that nothing links, once
           it is embedded: ``memlode store`` names them)
    {"op": "hook", "db": ..., "id": "<spooled line's id>", "wait": true|false}
        -> {"ok": true, "output": "<what the hook prints>" | null}   (PostgreSQL stores:
           the spooled hook events applied up to that line, ``memlode.resident.hook_queue``)

``recall`` is the UserPromptSubmit hook's question. Its ranking is ``Engine.search`` - the call
``memlode search`` makes - with the asking hook's project as the engine's namespace (so the
engine reads what it reads by default for that project), and the rows of the asking session
left out by the engine's filter (``exclude_session``: they are already in the assistant's
context), as ``-t`` or ``--source`` leave rows out of ``memlode search``. It does not embed
pending rows first (the background embedder does, woken by every request): a hook cannot wait
for a model. ``signals`` are the explain figures (each signal's share of the
score) plus ``cosine``, the raw cosine of the query and the memory (0.0 without a vector).

``search`` is ``memlode search`` itself: the same engine call with the same arguments, and the
CLI prints the answer as it prints its own hits; the MCP server's ``recall_memory`` asks it too
when another process serves the store, with ``catch_up`` (embed a few rows stored without a
vector first, as the tool does in-process). ``namespace`` is what the CLI's own engine
would take as the current project (``Settings.namespace`` or the project of its working
directory) and ``scope`` is its ``--namespace`` option. ``settings`` are the settings that decide
a ranking (``ranking_settings``); when they differ from the resident's (another embedder in the
CLI's environment), the resident says so and the CLI searches in-process.

Errors: ``{"error": "<message>", "code": "invalid" | "other-db" | "settings" | "bad-request" |
"unknown-op" | "internal" | "refused"}``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memlode.config import Settings
from memlode.errors import InvalidInput, MemlodeError
from memlode.resident_client.client import ranking_settings

if TYPE_CHECKING:
    from memlode.engine import Engine, SearchHit

__all__ = [
    "MAX_RECALL_K",
    "MAX_REQUEST_BYTES",
    "QUERY_OPS",
    "Answerer",
    "EngineSession",
    "ranking_settings",
    "same_database",
]

log = logging.getLogger(__name__)

EngineSession = Callable[[], AbstractContextManager["Engine"]]

MAX_REQUEST_BYTES = 64 * 1024
MAX_QUERY_CHARS = 4000  # memlode.hooks.prompt.MAX_PROMPT_CHARS: a prompt is stored cut there
MAX_RECALL_K = 50

QUERY_OPS = frozenset({"recall", "search", "vector_search", "hook"})
RECALL_FIELDS = ("id", "content", "memory_type", "source", "tags", "created_at", "session_id")


def same_database(a: str | Path, b: str | Path) -> bool:
    """Do ``a`` and ``b`` name one store (one file, or one server URL but for its password)?"""
    from memlode.resident_client.paths import database_path

    try:
        return database_path("", str(a)) == database_path("", str(b))
    except (OSError, ValueError):
        return False


class _Refusal(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Answerer:
    """Turns a request line into an answer; the engine is borrowed per request."""

    def __init__(
        self,
        settings: Settings,
        database: str | Path,
        engine_session: EngineSession,
        *,
        info: Callable[[], dict[str, Any]],
        on_request: Callable[[str], None] | None = None,
        on_stop: Callable[[], bool] | None = None,
        status_extra: Callable[[], dict[str, Any]] | None = None,
        on_hook: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.settings = settings
        self.on_hook = on_hook
        self.database = database
        self.engine_session = engine_session
        self.info = info
        self.on_request = on_request
        self.on_stop = on_stop
        self.status_extra = status_extra
        self._ranking = ranking_settings(settings)
        self.served = 0  # recall, search and vector_search requests answered

    def answer_line(self, raw: bytes) -> bytes:
        """One request line in, one answer line out (never raises)."""
        try:
            reply = self.answer(raw)
        except Exception as exc:  # a bug must not take the resident down
            log.exception("resident: request failed")
            reply = {"error": f"{type(exc).__name__}: {exc}", "code": "internal"}
        return json.dumps(reply, ensure_ascii=False, default=str).encode("utf-8") + b"\n"

    def answer(self, raw: bytes) -> dict[str, Any]:
        try:
            request = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return {"error": "the request is not one line of JSON", "code": "bad-request"}
        if not isinstance(request, dict):
            return {"error": "the request is not a JSON object", "code": "bad-request"}
        op = request.get("op")
        op = op if isinstance(op, str) else repr(op)
        if op == "ping":
            return {"ok": True, **self.info()}
        handler = {
            "status": self._status,
            "recall": self._recall,
            "search": self._search,
            "vector_search": self._vector_search,
            "stop": self._stop,
            "hook": self._hook,
            "replacing": self._replacing,
        }.get(op)
        if handler is None:
            return {"error": f"unknown op {op}", "code": "unknown-op", "hits": []}
        try:
            self._check_database(request)
            if self.on_request is not None:
                self.on_request(op)
            reply = handler(request)
            if op in QUERY_OPS:
                self.served += 1
            return reply
        except _Refusal as exc:
            return {"error": str(exc), "code": exc.code, "hits": []}
        except (InvalidInput, MemlodeError) as exc:
            return {"error": str(exc), "code": "invalid", "hits": []}

    def _check_database(self, request: dict[str, Any]) -> None:
        db = request.get("db")
        if not isinstance(db, str) or not db:
            raise _Refusal("bad-request", "the request names no database (db)")
        if not same_database(db, self.database):
            raise _Refusal(
                "other-db", f"this resident serves {self.database}, not {db}; ask that store's"
            )

    # ---- ops --------------------------------------------------------------------------------

    def _status(self, request: dict[str, Any]) -> dict[str, Any]:
        del request
        with self.engine_session() as engine:
            out: dict[str, Any] = {
                "ok": True,
                **self.info(),
                "pending_embeddings": engine.pending_embeddings(),
                "embed_model": engine.embeddings.model_name(),
            }
        if self.status_extra is not None:
            out.update(self.status_extra())
        return out

    def _stop(self, request: dict[str, Any]) -> dict[str, Any]:
        del request
        if self.on_stop is None or not self.on_stop():
            raise _Refusal("refused", "this resident is hosted by `memlode mcp`; it stops with it")
        return {"ok": True, **self.info()}

    def _hook(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.on_hook is None:
            raise _Refusal("refused", "this resident applies no hook events (a SQLite store)")
        if not isinstance(request.get("id"), str):
            raise _Refusal("bad-request", "id must be a string")
        return self.on_hook(request)

    def _replacing(self, request: dict[str, Any]) -> dict[str, Any]:
        memory_id = _text(request.get("id"), "id")
        if not memory_id:
            raise _Refusal("bad-request", "id must name a memory")
        with self.engine_session() as engine:
            linked, maybe = engine.replacing(memory_id)
        return {"replaces": [m.id for m in linked], "may_replace": [m.id for m in maybe]}

    def _recall(self, request: dict[str, Any]) -> dict[str, Any]:
        query = _query(request)
        k = _whole(request.get("k", 8), "k", 1, MAX_RECALL_K)
        namespace = _text(request.get("namespace"), "namespace")
        session_id = request.get("session_id")
        skip = session_id if isinstance(session_id, str) and session_id else None
        return {"hits": self.recall_hits(query, namespace, skip or "", k)}

    def recall_hits(self, query: str, namespace: str, session_id: str, k: int) -> list[Any]:
        """The ``recall`` op's hits (also the ranking of the hook events the resident applies
        itself: ``memlode.hooks.run.HookRun.ranker``)."""
        query = query[:MAX_QUERY_CHARS]
        with self.engine_session() as engine, _project(engine, namespace):
            kept = engine.search(query, k, exclude_session=session_id or None)
            cosines = _cosines(engine, query, [h.memory.id for h in kept])
        return [_recall_hit(h, cosines.get(h.memory.id, 0.0)) for h in kept]

    def document_frequencies(self, terms: list[str]) -> tuple[int, dict[str, int]] | None:
        """(rows, {term: rows holding it}) from the engine's text index, for the prompt gate
        of the hook events the resident applies (``memlode.hooks.run.HookRun.frequencies``)."""
        with self.engine_session() as engine:
            return engine.text_index.document_frequencies(engine.conn, terms)

    def _search(self, request: dict[str, Any]) -> dict[str, Any]:
        query = _query(request)
        k = request.get("k", 10)
        if isinstance(k, bool) or not isinstance(k, int):
            raise _Refusal("bad-request", "k must be a whole number")
        wanted = request.get("settings")
        if wanted is not None and wanted != self._ranking:
            raise _Refusal("settings", "the client's ranking settings differ from the resident's")
        namespace = _text(request.get("namespace"), "namespace")
        scope = request.get("scope")
        if scope is not None and not isinstance(scope, str):
            raise _Refusal("bad-request", "scope must be a string or null")
        sources = request.get("sources") or []
        if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
            raise _Refusal("bad-request", "sources must be a list of strings")
        with self.engine_session() as engine, _project(engine, namespace):
            if request.get("catch_up") is True:
                engine.catch_up()
            hits = engine.search(
                query,
                k,
                namespace=scope,
                memory_types=_optional(request.get("memory_types")),
                tags=_optional(request.get("tags")),
                sources=sources,
            )
            read = engine.resolve_namespace(scope)
        return {"hits": [_search_hit(h) for h in hits], "scope": "*" if read is None else read}

    def _vector_search(self, request: dict[str, Any]) -> dict[str, Any]:
        query = _query(request)
        k = _whole(request.get("k", 8), "k", 1, MAX_RECALL_K)
        namespace = request.get("namespace")
        with self.engine_session() as engine:
            embeddings = engine.embeddings
            if embeddings.embedder is None:
                return {"hits": []}
            index = embeddings.index
            if index is None or len(index) == 0:
                return {"hits": []}
            vector = embeddings.embed_query(query)
            if vector is None:
                return {"hits": []}
            ns = namespace if isinstance(namespace, str) else None
            found = index.search(vector, k, ns)
        return {"hits": [{"id": memory_id, "score": round(score, 4)} for memory_id, score in found]}


# ---- helpers ----------------------------------------------------------------------------------


@contextmanager
def _project(engine: Engine, namespace: str) -> Iterator[None]:
    """The engine's current project set to the client's for one request, then restored."""
    saved = engine.namespace
    engine.namespace = namespace
    try:
        yield
    finally:
        engine.namespace = saved


def _query(request: dict[str, Any]) -> str:
    query = request.get("query")
    if not isinstance(query, str) or not query.strip():
        raise _Refusal("bad-request", "query must be a non-empty string")
    return query[:MAX_QUERY_CHARS] if request.get("op") == "recall" else query


def _text(value: object, name: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _Refusal("bad-request", f"{name} must be a string")
    return value


def _whole(value: object, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Refusal("bad-request", f"{name} must be a whole number")
    return max(low, min(high, value))


def _optional(value: object) -> Any:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise _Refusal("bad-request", "memory_types and tags must be strings or lists of strings")


def _cosines(engine: Engine, query: str, ids: list[str]) -> dict[str, float]:
    """The raw cosine of the query with each memory's vector (the vector side of the score)."""
    if not ids:
        return {}
    embeddings = engine.embeddings
    index = embeddings.index if embeddings.embedder is not None else None
    if index is None or len(index) == 0:
        return {}
    vector = embeddings.embed_query(query)  # the search just embedded it: a cache hit
    if vector is None:
        return {}
    return dict(zip(ids, index.similarities(vector, ids), strict=True))


def _recall_hit(hit: SearchHit, cosine: float) -> dict[str, Any]:
    memory = hit.memory
    out: dict[str, Any] = {name: getattr(memory, name) for name in RECALL_FIELDS}
    out["memory_type"] = str(memory.memory_type)
    out["tags"] = list(memory.tags)
    out["importance"] = memory.importance
    out["score"] = hit.score
    signals = dict(hit.signals)
    signals["cosine"] = round(float(cosine), 6)
    out["signals"] = signals
    return out


def _search_hit(hit: SearchHit) -> dict[str, Any]:
    out = hit.memory.to_dict()
    out["score"] = hit.score  # unrounded: the CLI rounds as it does for its own hits
    out["signals"] = dict(hit.signals)
    if hit.replaced is not None:
        out.update(hit.replaced)
    return out
