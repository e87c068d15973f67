"""Asking a store's resident: ask it, start it, stop it, and search through it.

``search`` is what ``memlode search`` calls first: when the store's resident answers, its hits
(the engine's own, ``memlode.resident.protocol``) come back as ``memlode.types.SearchHit``, printed
exactly as in-process hits are; when it does not (none runs, another embedder in
this environment, an error, no answer within ``SEARCH_TIMEOUT``) it returns None and the CLI
searches in-process, silently. Nothing here imports the engine.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from typing import Any

from memlode.config import Settings
from memlode.resident_client.paths import database_path, lock_path, socket_path
from memlode.resident_client.wire import exchange
from memlode.types import Memory, MemoryType, SearchHit

__all__ = [
    "SEARCH_TIMEOUT",
    "ask",
    "database_of",
    "embedding_settings",
    "holder",
    "ping",
    "ranking_settings",
    "replacing",
    "search",
    "search_scoped",
    "start",
    "stop",
]

# How long `memlode search` waits for the resident before searching in-process. A warm resident
# answers in tens of milliseconds; one still loading its model is worth waiting for (loading
# it here would take as long).
SEARCH_TIMEOUT = 3.0
PING_TIMEOUT = 1.0
# How long `memlode resident` waits for a detached resident to answer its first ping.
START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


def embedding_settings(settings: Settings) -> dict[str, Any]:
    """The settings that decide whose vectors a process makes (its ``ping`` shows the
    resident's: ``memlode index`` leaves its symbols' vectors to a resident that makes the
    same)."""
    return {
        "embed_provider": (settings.embed_provider or "local").strip().lower(),
        "embed_model": settings.embed_model,
        "embed_url": settings.embed_url,
        "embed_dimensions": settings.embed_dimensions,
    }


def ranking_settings(settings: Settings) -> dict[str, Any]:
    """The settings that decide a ranking, as the resident and a client compare them. Weights
    set at run time live in the store, which both read; the embedder comes from each process's
    own settings."""
    return {**embedding_settings(settings), "weights": settings.effective_weights}


def database_of(settings: Settings) -> str:
    """The store's identity (``paths.database_path``): its file, or its URL without a password."""
    return database_path(str(settings.home), str(settings.store))


def ask(settings: Settings, request: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    """The resident's answer to ``request`` (``db`` filled in), or None without one."""
    database = database_of(settings)
    payload = json.dumps({**request, "db": database}, ensure_ascii=False).encode("utf-8")
    raw = exchange(socket_path(str(settings.home), database), payload, timeout)
    if raw is None:
        return None
    try:
        answer = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return answer if isinstance(answer, dict) else None


def ping(settings: Settings, timeout: float = PING_TIMEOUT) -> dict[str, Any] | None:
    answer = ask(settings, {"op": "ping"}, timeout)
    if answer is None or answer.get("ok") is not True:
        return None
    return answer if _same(answer.get("db"), database_of(settings)) else None


def replacing(
    settings: Settings, memory_id: str, timeout: float = SEARCH_TIMEOUT
) -> tuple[list[str], list[str]] | None:
    """``Engine.replacing`` for a memory just stored, by the resident (its model is loaded, so
    the new memory is embedded and compared at once): (linked as replaced, may be replaced),
    or None when no resident answers."""
    answer = ask(settings, {"op": "replacing", "id": memory_id}, timeout)
    if answer is None or "error" in answer:
        return None
    linked, maybe = answer.get("replaces"), answer.get("may_replace")
    if not isinstance(linked, list) or not isinstance(maybe, list):
        return None
    return [str(i) for i in linked], [str(i) for i in maybe]


def search(
    settings: Settings,
    query: str,
    k: int,
    *,
    scope: str | None,
    memory_types: str | Sequence[str] | None,
    tags: str | Sequence[str] | None,
    sources: Sequence[str],
    namespace: str | None = None,
    timeout: float = SEARCH_TIMEOUT,
) -> list[SearchHit] | None:
    """``Engine.search`` run by the resident, or None (then search in-process).

    ``scope`` is the ``--namespace`` option; ``namespace`` the current project (default: what
    an engine opened here would take, ``Settings.namespace`` or this directory's project).
    """
    found = search_scoped(
        settings,
        query,
        k,
        scope=scope,
        memory_types=memory_types,
        tags=tags,
        sources=sources,
        namespace=namespace,
        timeout=timeout,
    )
    return None if found is None else found[0]


def search_scoped(
    settings: Settings,
    query: str,
    k: int,
    *,
    scope: str | None,
    memory_types: str | Sequence[str] | None,
    tags: str | Sequence[str] | None,
    sources: Sequence[str],
    namespace: str | None = None,
    catch_up: bool = False,
    timeout: float = SEARCH_TIMEOUT,
) -> tuple[list[SearchHit], str] | None:
    """``search``'s hits and the namespace they were read from (``'*'`` for all); with
    ``catch_up`` the resident first embeds a few rows stored without a vector."""
    if not os.path.exists(socket_path(str(settings.home), database_of(settings))):
        return None  # none runs: not even the protocol's imports
    if namespace is None:
        namespace = settings.namespace if settings.namespace is not None else _project_here()
    request = {
        "op": "search",
        "query": query,
        "k": k,
        "namespace": namespace,
        "scope": scope,
        "memory_types": memory_types if isinstance(memory_types, str | None) else [*memory_types],
        "tags": tags if isinstance(tags, str | None) else [*tags],
        "sources": list(sources),
        "settings": ranking_settings(settings),
        "catch_up": catch_up,
    }
    answer = ask(settings, request, timeout)
    if answer is None or "error" in answer:
        return None
    hits, read = answer.get("hits"), answer.get("scope")
    if not isinstance(hits, list) or not isinstance(read, str):
        return None
    try:
        return [_hit(item) for item in hits], read
    except (KeyError, TypeError, ValueError):
        return None


def _hit(item: dict[str, Any]) -> SearchHit:
    values = dict(item)
    score = float(values.pop("score"))
    signals = {str(k): float(v) for k, v in values.pop("signals", {}).items()}
    by, at = values.pop("replaced_by", None), values.pop("replaced_at", None)
    values["memory_type"] = MemoryType(values["memory_type"])
    replaced = {"replaced_by": str(by), "replaced_at": str(at)} if by else None
    return SearchHit(Memory(**values), score, signals, replaced)


def start(
    settings: Settings, *, idle_seconds: float, timeout: float = START_TIMEOUT
) -> dict[str, Any] | None:
    """Start the store's resident detached (unless one runs) and wait for its first answer."""
    from memlode.resident_client.launch import start_detached
    from memlode.resident_client.lock import held

    database = database_of(settings)
    if not held(lock_path(str(settings.home), database)):
        start_detached(
            str(settings.home), database, idle_seconds=idle_seconds, location=settings.db_url
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = ping(settings, timeout=0.5)
        if found is not None:
            return found
        time.sleep(0.05)
    return None


def stop(settings: Settings, timeout: float = STOP_TIMEOUT) -> dict[str, Any] | None:
    """Ask the resident to stop and wait until its lock is free; what it said, or None when
    none runs. A resident hosted by ``memlode mcp`` refuses (``code`` ``refused``). One that
    holds the lock but does not answer in time (busy, stalled) is sent SIGTERM, which it takes
    as a stop request."""
    path = lock_path(str(settings.home), database_of(settings))
    answer = ask(settings, {"op": "stop"}, PING_TIMEOUT)
    if answer is None:
        return _signal_holder(settings, path, timeout)
    if "error" in answer:
        return answer
    _wait_free(path, timeout)
    return answer


def holder(settings: Settings) -> dict[str, Any] | None:
    """What the process that holds the store's resident lock wrote there (its pid, host,
    store), answering or not; None when no process holds it."""
    from memlode.resident_client.lock import held, read_owner

    path = lock_path(str(settings.home), database_of(settings))
    if not held(path):
        return None
    return read_owner(path) or {}


def _signal_holder(settings: Settings, path: str, timeout: float) -> dict[str, Any] | None:
    """SIGTERM to the resident that holds the lock at ``path`` without answering; None when
    no process holds it."""
    import signal

    owner = holder(settings)
    if owner is None:
        return None
    pid = owner.get("pid")
    if not isinstance(pid, int) or owner.get("host") != "resident":
        return {"error": f"the resident (pid {pid}) does not answer; it stops with its host"}
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return None
    except OSError as exc:
        return {"error": f"cannot stop the resident (pid {pid}): {exc.strerror}"}
    if not _wait_free(path, timeout):
        return {"error": f"the resident (pid {pid}) did not stop within {timeout:g} s"}
    return {"pid": pid, "stopped": True, "signal": "SIGTERM"}


def _wait_free(path: str, timeout: float) -> bool:
    """Wait until no process holds the lock at ``path``; False when one still does."""
    from memlode.resident_client.lock import held

    deadline = time.monotonic() + timeout
    while held(path):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


def _project_here() -> str:
    from memlode.project import detect_namespace

    try:
        return detect_namespace(os.getcwd())
    except OSError:  # the working directory was removed
        return ""


def _same(a: object, b: str) -> bool:
    return isinstance(a, str) and database_path("", a) == database_path("", b)
